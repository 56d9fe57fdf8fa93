"""A run replaces its run directory only when it succeeded: a failed or interrupted run never touches the last good one.

A run executes in a staging directory beside its run directory and is swapped in at the end, or set aside::

    runs/<model>/<profile>/<chapter>/           the latest successful run, whole: its notebook, manifest and tables
    runs/<model>/<profile>/<chapter>.staging/   the run being executed (its kernel's LCRAG_RUN_DIR and working dir)
    runs/<model>/<profile>/<chapter>.failed/    the latest failed or interrupted attempt: partial notebook, manifest

So the synthesis, ``lcrag book``, ``lcrag store check`` and the reuse of unchanged runs (:mod:`lcrag.book.reuse`)
read a run directory that holds one successful run, never the tables of two runs mixed, and a failed re-run leaves
the previous successful one in place (what ``book/rerun.md`` promises). A successful run removes a stale
``.failed`` attempt. Every step happens under the run's lock (:mod:`lcrag.book.run_lock`), whose file lies beside
the run directory, so the lock outlives the swap. The swap is two renames; a process killed between them leaves the
previous run as ``<chapter>.replaced``, which the next run of the directory puts back (:func:`recover`).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

STAGING, FAILED, REPLACED = ".staging", ".failed", ".replaced"


def beside(out: Path, suffix: str) -> Path:
    """``<out><suffix>``, a sibling of the run directory (same file system, so a rename moves it)."""
    return out.with_name(out.name + suffix)


def is_attempt(run_dir: Path) -> bool:
    """Whether ``run_dir`` is a staging, failed or replaced attempt rather than a run directory."""
    return Path(run_dir).name.endswith((STAGING, FAILED, REPLACED))


def recover(out: Path) -> None:
    """Finish what a killed swap left: the previous run put back if the new one never arrived, leftovers removed."""
    replaced = beside(out, REPLACED)
    if replaced.exists() and not out.exists():
        os.rename(replaced, out)
    shutil.rmtree(replaced, ignore_errors=True)


def prepare(out: Path) -> Path:
    """An empty staging directory for a run of ``out`` (a killed run's staging is removed)."""
    recover(out)
    stage = beside(out, STAGING)
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    return stage


def commit(stage: Path, out: Path) -> Path:
    """Swap the successful run in ``stage`` in as ``out`` (the previous run, and any failed attempt, go); ``out``."""
    replaced = beside(out, REPLACED)
    if out.exists():
        os.rename(out, replaced)
    os.rename(stage, out)
    shutil.rmtree(replaced, ignore_errors=True)
    shutil.rmtree(beside(out, FAILED), ignore_errors=True)
    return out


def set_aside(stage: Path, out: Path) -> Path:
    """Keep the failed or interrupted run in ``stage`` as ``<out>.failed`` (replacing an older one); its path."""
    failed = beside(out, FAILED)
    shutil.rmtree(failed, ignore_errors=True)
    os.rename(stage, failed)
    return failed
