"""One run at a time per run directory.

Two runs of the same chapter, model and profile share ``runs/<model>/<profile>/<chapter>/``: without a lock the
second start deletes the first run's usage log, each manifest claims the other's calls and the notebook and
tables belong to whichever finished last. The runner therefore holds an exclusive lock on ``.<chapter>.run.lock``
beside the run directory (not in it: a successful run replaces the directory, :mod:`lcrag.book.staging`) from
before it prepares its staging directory until its result is swapped in or set aside; a second run of the same
directory stops at once with a one-line :class:`RunDirBusy` (exit status 2 in the CLI) that names the run
holding it and says what to do. The lock is the operating system's (``filelock``), so a run that dies releases it.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

from lcrag.book.profiles import UsageError

LOCK_FILE = ".run.lock"  # ``.<run dir name>.run.lock`` beside the run directory
OWNER_FILE = ".run.owner.json"  # who holds the lock: pid, host, start time (for the busy message)


def lock_path(out: Path, name: str = LOCK_FILE) -> Path:
    """``.<out's name><name>`` beside the run directory ``out``."""
    return out.parent / f".{out.name}{name}"


class RunDirBusy(UsageError):
    """Another run is writing this run directory."""


def _owner(out: Path) -> str:
    try:
        o = json.loads(lock_path(out, OWNER_FILE).read_text())
        return f"pid {o['pid']} on {o['host']}, started {o['started']}"
    except (OSError, ValueError, KeyError):
        return "owner unknown"


@contextlib.contextmanager
def holding(out: Path, advice: str = "wait for it to finish") -> Iterator[None]:
    """Hold ``out``'s run lock for the block; raise :class:`RunDirBusy` at once if another run holds it, ending
    with ``advice`` (what the command that started this run can do about it)."""
    from filelock import FileLock, Timeout

    out.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(lock_path(out)), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise RunDirBusy(f"run directory {out} is in use by another run ({_owner(out)}): {advice}") from None
    owner_file = lock_path(out, OWNER_FILE)
    try:
        owner = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.strftime("%Y-%m-%dT%H:%M:%S")}
        owner_file.write_text(json.dumps(owner))
        yield
    finally:
        owner_file.unlink(missing_ok=True)
        lock.release()
