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
