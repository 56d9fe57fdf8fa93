"""Run manifests: what produced a chapter's numbers, written next to them as ``manifest.json``.

A manifest records the chapter, profile, model spec and effective parameters; the code (git commit
and whether the tree was dirty) and package versions; when and how long it ran; and what the model
calls cost, summarised from ``usage.jsonl`` (one JSON line per model call, appended by the model
layer). The list of response keys a run used goes to ``keys_used.txt`` so that ``lcrag store check``
can compare the committed response store with what the book actually needs.
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lcrag import jsonl

#: Distributions whose versions every manifest records (``None`` when not installed).
TRACKED_PACKAGES: tuple[str, ...] = (
    "lcrag",
    "openai",
    "llama-cpp-python",
    "papermill",
    "jupyter-book",
    "pandas",
    "torch",
    "sentence-transformers",
)

USAGE_FILE = "usage.jsonl"
KEYS_FILE = "keys_used.txt"
MANIFEST_FILE = "manifest.json"


def package_versions(names: tuple[str, ...] = TRACKED_PACKAGES) -> dict[str, str | None]:
    """Installed version of each distribution, None if absent."""
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    if out.get("lcrag") is None:  # running from a source tree that is not pip-installed
        import lcrag

        out["lcrag"] = f"{lcrag.__version__} (not installed)"
    return out


def git_info(root: Path) -> dict[str, Any]:
    """``{"commit": sha | None, "dirty": bool | None}`` of the checkout at ``root``.

    ``commit`` is None outside a git checkout or before the first commit; ``dirty`` is True when
    tracked or untracked (not ignored) files differ from the commit.
    """

    def git(*args: str) -> str | None:
        try:
            res = subprocess.run(
                ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return res.stdout.strip() if res.returncode == 0 else None

    commit = git("rev-parse", "--verify", "-q", "HEAD")
    status = git("status", "--porcelain")
    return {"commit": commit or None, "dirty": None if status is None else bool(status)}


def environment_info() -> dict[str, str]:
    return {"python": platform.python_version(), "platform": platform.platform()}


# --------------------------------------------------------------------------------------------
# usage.jsonl


@dataclass
class UsageLog:
    """The parsed usage log of a run. Malformed lines are skipped and listed, never fatal."""

    records: list[dict] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)  # "usage.jsonl line N: why"


def read_usage(path: Path) -> UsageLog:
    """Parse ``usage.jsonl``; a missing file is an empty log (the chapter made no model calls)."""
    log = UsageLog()
    path = Path(path)
    if not path.exists():
        return log
    for lineno, rec, problem in jsonl.objects(path):
        if problem:
            log.malformed.append(f"{path.name} line {lineno}: {problem}")
        else:
            log.records.append(rec)
    return log


def _num(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def summarize_usage(log: UsageLog) -> dict[str, Any]:
    """Totals of a usage log: calls by source and kind, tokens, cost, serving settings seen."""
    recs = log.records
    serving: list[dict] = []
    for r in recs:
        s = r.get("serving")
        if s and s not in serving:
            serving.append(s)
    return {
        "calls": len(recs),
        "by_source": dict(Counter(str(r.get("source")) for r in recs)),
        "by_kind": dict(Counter(str(r.get("kind")) for r in recs)),
        "models": sorted({str(r.get("model")) for r in recs if r.get("model")}),
        "tokenizers": sorted({str(r["tokenizer"]) for r in recs if r.get("tokenizer")}),
        "prompt_tokens": int(sum(_num(r.get("prompt_tokens")) for r in recs)),
        "completion_tokens": int(sum(_num(r.get("completion_tokens")) for r in recs)),
        "estimated_token_calls": sum(1 for r in recs if r.get("estimated_tokens")),
        "truncated_calls": sum(1 for r in recs if r.get("truncated")),
        "cost_usd": round(sum(_num(r.get("cost_usd")) for r in recs), 6),
        "latency_s": round(sum(_num(r.get("latency_s")) for r in recs), 3),
        "server_s": round(sum(_num(r.get("server_s")) for r in recs), 3),  # 0 where no server reported it
        "serving": serving,
        "failures": dict(sum((Counter(r.get("failures") or {}) for r in recs), Counter())),
        "retried_calls": sum(1 for r in recs if r.get("failures")),
        "malformed_lines": list(log.malformed),
    }


def keys_used(log: UsageLog) -> list[str]:
    """Sorted distinct response keys of a usage log."""
    return sorted({str(r["key"]) for r in log.records if r.get("key") and r.get("source") != "failed"})


def write_keys(path: Path, keys: list[str]) -> None:
    Path(path).write_text("".join(f"{k}\n" for k in keys), encoding="utf-8")


def read_keys(path: Path) -> list[str]:
    return [line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


# --------------------------------------------------------------------------------------------
# manifest.json


def write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(manifest, indent=2, default=repr) + "\n", encoding="utf-8")


def read_manifest(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _cell(value: Any) -> str:
    """A value as one markdown table cell (no newlines, pipes escaped); a record (parameters, serving settings) as
    its JSON in code, so that the page prints it as written ("--no-deps", straight quotes), not typeset."""
    if not isinstance(value, (dict, list, tuple)):
        value = value if isinstance(value, str) else json.dumps(value, default=repr, ensure_ascii=False)
        return value.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    text = json.dumps(value, default=repr, ensure_ascii=False).replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def manifest_markdown(m: dict[str, Any]) -> str:
    """The compact "Run manifest" table appended to the executed notebook."""
    usage = m.get("usage") or {}
    git = m.get("git") or {}
    commit = (git.get("commit") or "no commit")[:12]
    if git.get("dirty"):
        commit += " (uncommitted changes)"
    versions = m.get("versions") or {}
    rows: list[tuple[str, Any]] = [
        ("status", m.get("status")),
        ("chapter / profile", f"{m.get('chapter')} / {m.get('profile')}"),
        ("model", m.get("model")),
        ("parameters", m.get("parameters")),
        ("response store", m.get("store_mode")),
        ("code", commit),
        ("started (UTC)", m.get("started")),
        ("wall time", f"{m.get('wall_time_s', 0):.1f} s"),
        ("model calls", f"{usage.get('calls', 0)}" + (" (" + ", ".join(
            f"{k}: {v}" for k, v in sorted(usage["by_source"].items())) + ")" if usage.get("by_source") else "")),
        (
            "tokens (prompt / completion)",
            f"{usage.get('prompt_tokens', 0)} / {usage.get('completion_tokens', 0)}",
        ),
        ("cost (USD)", f"{usage.get('cost_usd', 0.0):.4f}"),
    ]
    if usage.get("tokenizers"):
        rows.append(("tokens counted by", ", ".join(usage["tokenizers"])))
    if usage.get("estimated_token_calls"):
        rows.append(("calls with estimated token counts", usage["estimated_token_calls"]))
    if usage.get("truncated_calls"):
        rows.append(("calls with truncated input", usage["truncated_calls"]))
    if usage.get("failures"):
        rows.append(("failed attempts, retried", f"{sum(usage['failures'].values())} in "
                     f"{usage.get('retried_calls', 0)} calls ("
                     + ", ".join(f"{k}: {v}" for k, v in sorted(usage["failures"].items())) + ")"))
    if usage.get("serving"):
        rows.append(("serving", usage["serving"]))
    if usage.get("malformed_lines"):
        rows.append(("malformed usage lines", len(usage["malformed_lines"])))
    rows.append(
        (
            "versions",
            ", ".join(f"{k} {v}" for k, v in versions.items() if v) + f", python {m.get('python')}",
        )
    )
    if m.get("error"):
        rows.append(("error", m["error"].get("message")))
    # One line in view; the table folded (a <details> block renders folded in the book and in Jupyter alike).
    summary = (f"{m.get('status')}: model `{m.get('model')}`, profile `{m.get('profile')}`, store "
               f"`{m.get('store_mode')}`, code `{commit}`, {m.get('wall_time_s', 0):.0f} s, "
               f"{usage.get('calls', 0)} model calls")
    lines = ["## Run manifest", "", summary, "", "<details><summary>Every field</summary>", "",
             "| | |", "|---|---|"]
    lines += [f"| {_cell(k)} | {_cell(v)} |" for k, v in rows]
    lines += ["", "</details>", "", f"Full record: `{MANIFEST_FILE}` in the run directory."]
    return "\n".join(lines)
