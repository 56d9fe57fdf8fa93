"""Run the slow tests in two lanes at once, each pinned to half of this machine's cores.

    python tests/slow_lanes.py [pytest options]        # what `make test` runs after the quick lane

The slow tests (model servers, notebook runs, the book built once from the store) leave a third of two cores idle
when they run one after another: a notebook kernel computes on one core while the test process waits. Two pytest
processes, each on its own half of the cores (``os.sched_setaffinity``), fill both, and each lane's servers,
torch and chapter jobs take only the cores their lane has (``lcrag.config.available_cpus``), so the lanes never
run more threads than there are cores. ``LCRAG_TEST_LANE`` (1 or 2) tells ``conftest.py`` which tests a lane
runs (``LANE_ONE``): the book built from the store and the tests that read it go to lane 1, with enough other
work that both lanes take about as long. Lane 2 prints as it goes; lane 1's output follows when both are done.
The exit status is the first failing lane's. On one core (or where processes cannot be pinned), one lane
runs them all.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def lane_cpus(cpus: list[int]) -> tuple[list[int], list[int]]:
    """The cores of lane 1 and lane 2: the first half and the rest (lane 2 gets the odd one)."""
    half = len(cpus) // 2
    return cpus[:half], cpus[half:]


def _pytest(args: list[str], lane: str | None, cpus: list[int] | None, stdout) -> subprocess.Popen:
    env = dict(os.environ)
    if lane:
        env["LCRAG_TEST_LANE"] = lane
    return subprocess.Popen([sys.executable, "-m", "pytest", "-m", "slow", *args], cwd=ROOT, env=env,
                            stdout=stdout, stderr=subprocess.STDOUT,
                            preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)


def main(args: list[str]) -> int:
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []  # none on macOS, Windows
    if len(cpus) < 2:
        return _pytest(args, None, None, None).wait()
    one, two = lane_cpus(cpus)
    with tempfile.TemporaryFile("w+") as log:
        first = _pytest(args, "1", one, log)
        print(f"slow tests in two lanes: lane 1 on cores {one} (its output follows at the end), "
              f"lane 2 on cores {two}", flush=True)
        codes = [_pytest(args, "2", two, None).wait(), first.wait()]
        log.seek(0)
        print(f"\n---- lane 1 (cores {one}) ----", flush=True)
        sys.stdout.write(log.read())
    return next((c for c in codes if c), 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
