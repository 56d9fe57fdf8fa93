"""Cold run time of each chapter's quick profile, for the teaching page.

    python benchmarks/quick_profiles.py                        # every chapter of the book, profile quick
    python benchmarks/quick_profiles.py --chapters needle thesis
    python benchmarks/quick_profiles.py --profile smoke --out /tmp/smoke_times.json   # a cheap trial

Each chapter runs once, cold: its own empty response cache (a fresh temporary LCRAG_CACHE_DIR, so no chapter
profits from another's answers) and LCRAG_STORE=off (the committed responses are not read): every answer is
computed. The embedded servers of both models are started first and their start-up is timed separately
(``server_start_s``), so a chapter's time does not depend on its place in the order. Run it on a quiet machine:
the times are what a student waits.

Writes (merges into) ``book/quick_times.json``: one record per chapter and machine (chapter, profile, model,
status, wall_s, notebook_s, calls, network_calls, date, cores, machine, amx, parameters_sha, server_start_s, commit); a chapter
measured again on the same CPU replaces its record, one measured on another CPU adds a column to the table.
``lcrag book`` turns the file into the table of the teaching page, leaving out a time measured with other
parameters than the chapter's quick profile has now (``parameters_sha``).
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from lcrag import config
from lcrag.book.profiles import available_chapters, chapter_profiles, resolve
from lcrag.book.runner import run_chapter
from lcrag.book.teaching import (
    QUICK_TIMES_FILE,
    merge_quick_times,
    parameters_digest,
    read_quick_times,
    timed_chapters,
    write_quick_times,
)
from lcrag.book.toc import toc_chapters
from lcrag.chapters import last_chapters
from lcrag.models import llama_load

EMBEDDED = ("local/smollm2-135m-instruct", "local/gemma3-270m")


def book_chapters(root: Path) -> list[str]:
    """Every chapter with a notebook that calls models: the book's in TOC order, then those still shown as a
    placeholder (the order of the teaching page's table)."""
    available = available_chapters(root)
    listed = [c for c in toc_chapters(root) if c in available]
    return timed_chapters(listed, available, last_chapters())


def start_servers(specs: tuple[str, ...]) -> float:
    """Start the embedded servers (idempotent); seconds it took."""
    from lcrag.models import server

    t0 = time.perf_counter()
    for spec in specs:
        server.start(spec)
    return time.perf_counter() - t0


def measure(chapter: str, profile: str, model: str | None, work: Path) -> dict:
    """Run one chapter cold in ``work`` and describe the run."""
    os.environ["LCRAG_CACHE_DIR"] = str(Path(tempfile.mkdtemp(prefix=f"cache-{chapter}-", dir=work)))
    os.environ["LCRAG_STORE"] = "off"
    t0 = time.perf_counter()
    res = run_chapter(
        chapter, profile=profile, model=model, out_dir=work / "runs" / chapter, check=False, progress=False
    )
    wall = time.perf_counter() - t0
    usage = res.manifest.get("usage") or {}
    return {
        "chapter": chapter,
        "profile": profile,
        "model": res.model,
        "status": res.status,
        "wall_s": round(wall, 1),
        "notebook_s": res.manifest.get("wall_time_s"),
        "calls": int(usage.get("calls", 0)),
        "network_calls": int((usage.get("by_source") or {}).get("network", 0)),
        "date": res.manifest.get("finished") or datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "cores": os.cpu_count(),
        "machine": f"{platform.system()} {platform.machine()}, {llama_load.cpu_model()}",
        "amx": llama_load.has_amx(),
        "parameters_sha": parameters_digest(resolve(chapter, profile, root=config.project_root())),
        "commit": (res.manifest.get("git") or {}).get("commit"),
        "error": res.error,
    }


def main() -> None:
    root = config.project_root()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chapters", nargs="*", help="default: every chapter of the book that calls a model")
    ap.add_argument("--profile", default="quick")
    ap.add_argument("--model", default=None, help="default: $LCRAG_MODEL or the embedded SmolLM2")
    ap.add_argument("--out", type=Path, default=root / QUICK_TIMES_FILE)
    ap.add_argument(
        "--servers",
        nargs="*",
        default=list(EMBEDDED),
        help="embedded models to start before timing (default: both; none for a remote model)",
    )
    args = ap.parse_args()

    chapters = args.chapters or book_chapters(root)
    missing = [c for c in chapters if args.profile not in chapter_profiles(c, root)]
    if missing:
        raise SystemExit(f"no {args.profile!r} profile in notebooks/profiles.yml for: {', '.join(missing)}")
    work = Path(tempfile.mkdtemp(prefix="lcrag-quick-times-"))
    server_s = start_servers(tuple(args.servers))
    print(f"servers ready in {server_s:.1f} s; runs in {work}")

    records = []
    for chapter in chapters:
        rec = measure(chapter, args.profile, args.model, work)
        rec["server_start_s"] = round(server_s, 1)
        records.append(rec)
        print(
            f"{chapter:12s} {rec['status']:12s} {rec['wall_s']:8.1f} s  {rec['calls']:5d} calls "
            f"({rec['network_calls']} computed)" + (f"  {rec['error']}" if rec["error"] else "")
        )
        write_quick_times(args.out, merge_quick_times(read_quick_times(args.out), [rec]))  # keep what is done
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
