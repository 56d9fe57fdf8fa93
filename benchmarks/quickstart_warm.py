"""Cold vs warm execution of the quickstart chapter.

    python benchmarks/quickstart_warm.py [--profile quick]

Cold: empty cache, no store (every answer from the model). Warm: the same run again, every answer cached.
Target: warm <= 20 s.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from common import isolate, timed

from lcrag.book.runner import run_chapter


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default="quick")
    args = ap.parse_args()
    isolate()
    out = Path(tempfile.mkdtemp(prefix="lcrag-bench-run-"))
    cold, t_cold = timed(run_chapter, "quickstart", profile=args.profile, out_dir=out / "cold", progress=False)
    warm, t_warm = timed(run_chapter, "quickstart", profile=args.profile, out_dir=out / "warm", progress=False)
    assert cold.ok and warm.ok
    print(f"quickstart, profile {args.profile}: cold {t_cold:6.1f} s, warm {t_warm:6.1f} s "
          f"({t_cold / t_warm:.1f}x)")


if __name__ == "__main__":
    main()
