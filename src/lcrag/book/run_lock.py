"""One run at a time per run directory.

Two runs of the same chapter, model and profile share ``runs/<model>/<profile>/<chapter>/``: without a lock the
second start deletes the first run's usage log, each manifest claims the other's calls and the notebook and
tables belong to whichever finished last. The runner therefore holds an exclusive lock on ``.run.lock`` in the
run directory from before it clears the directory until the manifest is written; a second run of the same
directory stops at once with a one-line :class:`RunDirBusy` (exit status 2 in the CLI) that names the run
holding it. The lock is the operating system's (``filelock``), so a run that dies releases it.
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

LOCK_FILE = ".run.lock"
OWNER_FILE = ".run.owner.json"  # who holds the lock: pid, host, start time (for the busy message)


class RunDirBusy(UsageError):
    """Another run is writing this run directory."""


def _owner(out: Path) -> str:
    try:
        o = json.loads((out / OWNER_FILE).read_text())
        return f"pid {o['pid']} on {o['host']}, started {o['started']}"
    except (OSError, ValueError, KeyError):
        return "owner unknown"


@contextlib.contextmanager
def holding(out: Path) -> Iterator[None]:
    """Hold ``out``'s run lock for the block; raise :class:`RunDirBusy` at once if another run holds it."""
    from filelock import FileLock, Timeout

    out.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(out / LOCK_FILE), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise RunDirBusy(
            f"run directory {out} is in use by another run ({_owner(out)}): wait for it to finish, or give this "
            "run its own directory (--out-dir)"
        ) from None
    try:
        owner = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.strftime("%Y-%m-%dT%H:%M:%S")}
        (out / OWNER_FILE).write_text(json.dumps(owner))
        yield
    finally:
        (out / OWNER_FILE).unlink(missing_ok=True)
        lock.release()
