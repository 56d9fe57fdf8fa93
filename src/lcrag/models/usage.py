"""Usage accounting: one record per model call (tokens, latency, cache source, estimated cost).

Records are kept in memory for the running process (:func:`records`, :func:`summary`) and, when the runner
has set ``LCRAG_RUN_DIR``, appended to ``$LCRAG_RUN_DIR/usage.jsonl`` so the run manifest can total them.
Nothing secret is ever recorded (no keys, no prompts: only the cache key, a hash).
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import asdict, dataclass, field

from lcrag import config

_LOCK = threading.Lock()
_RECORDS: list[UsageRecord] = []


@dataclass
class UsageRecord:
    model: str
    kind: str  # "chat" | "completion" | "embedding"
    key: str
    source: str  # "store" | "disk" | "network" | "failed" (gave up: no response)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0  # of the request that produced the response, sent to answered (0: embeddings from cache)
    server_s: float | None = None  # of that, the server's own computing time where it says (llama.cpp's timings)
    cost_usd: float | None = 0.0
    estimated_tokens: bool = False
    truncated: bool = False
    serving: dict | None = None
    failures: dict[str, int] = field(default_factory=dict)  # failed attempts before this result, by kind
    tokenizer: str | None = None  # what counted this call's tokens (lcrag.models.tokens: exact, or a stand-in)
    ts: float = field(default_factory=time.time)


def record(rec: UsageRecord) -> None:
    line = json.dumps(asdict(rec), sort_keys=True) + "\n"
    with _LOCK:
        _RECORDS.append(rec)
        run = config.run_dir()
        if run is not None:
            run.mkdir(parents=True, exist_ok=True)
            fd = os.open(run / "usage.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)


def records() -> list[UsageRecord]:
    with _LOCK:
        return list(_RECORDS)


def reset() -> None:
    with _LOCK:
        _RECORDS.clear()


def summary(recs: list[UsageRecord] | list[dict] | None = None):
    """Totals per model and cache source, as a pandas DataFrame (``latency_s`` to 0.1 s, as a page shows it)."""
    import pandas as pd

    recs = records() if recs is None else recs
    rows = [r if isinstance(r, dict) else asdict(r) for r in recs]
    cols = ["model", "source", "calls", "prompt_tokens", "completion_tokens", "latency_s", "cost_usd"]
    if not rows:
        return pd.DataFrame(columns=cols)
    df = pd.DataFrame(rows)
    out = (
        df.groupby(["model", "source"], as_index=False)
        .agg(calls=("key", "size"), prompt_tokens=("prompt_tokens", "sum"),
             completion_tokens=("completion_tokens", "sum"), latency_s=("latency_s", "sum"),
             cost_usd=("cost_usd", lambda s: s.sum(min_count=1)))
    )
    return out.assign(latency_s=out["latency_s"].round(1))[cols]


#: What :func:`summary`'s ``latency_s`` is, in words: said once, by :func:`latency_note` under each page's cost table.
LATENCY_MEANING = ("the model seconds of the recorded calls, summed per model: each call's time from sent to "
                   "answered, as measured when it was made")
#: The sources of calls answered without a model call in this run (read back from the response store or the cache).
READ_BACK = ("store", "disk")


def latency_note(recs: list[UsageRecord] | list[dict] | None = None) -> str:
    """One sentence under a page's :func:`summary`: what its ``latency_s`` is (:data:`LATENCY_MEANING`) and how much
    of it this run spent, from the records' sources: calls read back (:data:`READ_BACK`) took their seconds when they
    were recorded, not now, so the run's wall time (its manifest) can be far below the sum; "" without records."""
    recs = records() if recs is None else recs
    sources = [r["source"] if isinstance(r, dict) else r.source for r in recs]
    if not sources:
        return ""
    n, back = len(sources), sum(s in READ_BACK for s in sources)
    head = f"`latency_s` is {LATENCY_MEANING}. "
    if back == n:
        return head + (f"This run read all {n:,} of its calls back from the response store or the cache, so it spent "
                       "none of those seconds: its own wall time is the run manifest's.")
    if back:
        return head + (f"{back:,} of this run's {n:,} calls were read back from the response store or the cache and "
                       f"cost it none of their seconds; the other {n - back:,} were made in this run (its wall time "
                       "is the run manifest's).")
    return head + f"All {n:,} calls were made in this run (its wall time, the run manifest's, also counts the rest)."
