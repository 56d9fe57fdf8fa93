"""What a failed or interrupted chapter run says: the cell that raised, where the attempt is kept
(:mod:`lcrag.book.staging`), what became of the previous run, and how to go on; and SIGTERM as an interruption."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class Terminated(KeyboardInterrupt):
    """SIGTERM received while a chapter ran (a kill, a CI time limit)."""


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Turn SIGTERM into :class:`Terminated` so that an interrupted run still writes its manifest."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated("terminated by SIGTERM")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def describe_error(chapter: str, exc: BaseException) -> dict[str, Any]:
    """Chapter, cell and exception of a failed execution, for the manifest and the message."""
    from papermill.exceptions import PapermillExecutionError

    if isinstance(exc, PapermillExecutionError):
        first = next((ln for ln in (exc.source or "").splitlines() if ln.strip()), "")
        message = (
            f"chapter {chapter!r} failed at In [{exc.exec_count}] (the cell starting "
            f"{first.strip()[:80]!r}): {exc.ename}: {exc.evalue}"
        )
        return {
            "message": message,
            "cell_index": exc.cell_index,
            "execution_count": exc.exec_count,
            "ename": exc.ename,
            "evalue": exc.evalue,
            "source": exc.source,
        }
    text = str(exc).strip().splitlines()
    if isinstance(exc, KeyboardInterrupt):
        message = f"chapter {chapter!r} was interrupted ({text[0] if text else 'SIGINT, Ctrl-C'})"
    else:
        message = f"chapter {chapter!r} failed: {type(exc).__name__}: {text[0] if text else ''}"
    return {"message": message, "ename": type(exc).__name__, "evalue": str(exc)}


def with_where(error: dict[str, Any] | None, failed: Path, out: Path) -> dict[str, Any] | None:
    """``error`` with its message saying where the attempt is, what became of the run before it, how to go on."""
    if error is None:
        return None
    kept = f"{out} keeps the previous successful run" if out.exists() else f"{out} holds no successful run yet"
    again = ("; run the same command again to resume (answers already received come from the response cache)"
             if error.get("ename") in ("KeyboardInterrupt", "Terminated") else "")
    return {**error, "message": f"{error['message']}. The partial notebook and its manifest are in {failed}; "
                                f"{kept}{again}"}


