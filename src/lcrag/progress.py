"""Progress bars, in one place: a bar in a terminal or an interactive notebook, none in an executed chapter.

Inside a chapter run (the runner sets ``LCRAG_RUN_DIR``) a bar would be written into the page that readers see,
so :func:`progress` returns the iterable unchanged there; the runner reports progress cell by cell instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from lcrag import config


def progress(iterable: Iterable, *, enabled: bool = True, **tqdm_kwargs) -> Iterable:
    """``iterable`` wrapped in a ``tqdm`` bar (``desc``, ``total``... as keywords), or unchanged when ``enabled``
    is false or inside a chapter run."""
    if not enabled or config.run_dir() is not None:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, **tqdm_kwargs)
