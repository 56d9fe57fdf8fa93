"""Summary of a Haystack (Laban et al., arXiv 2407.01370): 10 haystacks and the auto-eval benchmark.

A haystack file is one JSON object (topic, subtopics with insights, queries, retriever scores, summaries
and their evaluations, and 100 documents). :func:`load_haystack` turns it into tidy tables.

Files: ``news1..5`` are the first published upstream version; ``conv1..5`` are the HarlynDN
``data_cleaned`` copies, identical to the originals except that ``summaries`` / ``eval_summaries`` were
emptied, so their ``summaries`` and ``judgments`` tables are empty.

Quirk kept, not hidden: in the news files each subtopic's ``oracle`` retriever dict scores 200 document
ids, 100 of which are not documents of the haystack. ``retriever_scores`` keeps every entry and marks
these with ``in_haystack=False``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from lcrag.data.fetch import path as data_path
from lcrag.data.records import LoadReport, check_errors, finish, read_json, reject, require

NEWS = tuple(f"news{i}" for i in range(1, 6))
CONV = tuple(f"conv{i}" for i in range(1, 6))
HAYSTACKS = NEWS + CONV
EVAL_BENCHMARK = "summhay/eval_benchmark_data.json"
EVAL_FIELDS = ("topic", "subtopic_id", "subtopic", "summkey", "summary", "reference_insights", "annotation")


@dataclass
class Haystack:
    """One SummHay haystack as tidy tables (see the module docstring for the columns)."""

    name: str
    kind: str
    topic: str
    topic_id: str
    documents: pd.DataFrame
    subtopics: pd.DataFrame
    insights: pd.DataFrame
    retriever_scores: pd.DataFrame
    summaries: pd.DataFrame
    judgments: pd.DataFrame
    source: str = ""
    notes: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return (
            f"Haystack({self.name!r}, topic={self.topic[:50]!r}, documents={len(self.documents)}, "
            f"subtopics={len(self.subtopics)}, insights={len(self.insights)})"
        )


def haystack_file(name: str) -> str:
    """The manifest path of haystack ``name`` (``news1``..``news5``, ``conv1``..``conv5``)."""
    if name in NEWS:
        return f"summhay/topic_{name}.json"
    if name in CONV:
        return f"summhay/harlyndn_data_cleaned/topic_{name}.json"
    raise ValueError(f"unknown SummHay haystack {name!r}; expected one of {HAYSTACKS}")


def load_haystack(name: str, path: Path | str | None = None) -> Haystack:
    """Load one haystack. Tables:

    - ``documents``: document_id, idx, text, n_words, insights_included (list of insight ids)
    - ``subtopics``: subtopic_id, name, description, query, n_insights
    - ``insights``: subtopic_id, insight_id, name, text, query (conv only, else None)
    - ``retriever_scores``: subtopic_id, retriever, document_id, score, in_haystack
    - ``summaries``: subtopic_id, summary_key, bullets (list of str)
    - ``judgments``: subtopic_id, summary_key, insight_id, coverage, bullet_id (Int64, <NA> for "NA")
    """
    haystack_file(name)  # validates the name
    source = Path(path) if path else data_path(haystack_file(name))
    raw = read_json(source)
    where = str(source)
    subtopics = require(raw, "subtopics", where)
    documents = _documents(require(raw, "documents", where), where)
    scores = _retriever_scores(subtopics, where, set(documents["document_id"]))
    haystack = Haystack(
        name=name,
        kind="news" if name in NEWS else "conv",
        topic=require(raw, "topic", where),
        topic_id=require(raw, "topic_id", where),
        documents=documents,
        subtopics=_subtopics(subtopics, where),
        insights=_insights(subtopics, where),
        retriever_scores=scores,
        summaries=_summaries(subtopics, where),
        judgments=_judgments(subtopics, where),
        source=where,
    )
    n_outside = int((~scores["in_haystack"]).sum())
    if n_outside:
        haystack.notes.append(f"{n_outside} retriever scores are for document ids not in this haystack")
    return haystack


def load_haystacks(kind: str = "all") -> dict[str, Haystack]:
    """``{name: Haystack}`` for ``kind`` = ``"all"``, ``"news"`` or ``"conv"``."""
    names = {"all": HAYSTACKS, "news": NEWS, "conv": CONV}.get(kind)
    if names is None:
        raise ValueError(f"kind must be 'all', 'news' or 'conv', not {kind!r}")
    return {name: load_haystack(name) for name in names}


def _documents(documents: list, where: str) -> pd.DataFrame:
    rows = []
    for i, doc in enumerate(documents):
        at = f"{where}: documents[{i}]"
        text = require(doc, "document_text", at)
        rows.append(
            {
                "document_id": require(doc, "document_id", at),
                "idx": require(doc, "idx", at),
                "text": text,
                "n_words": len(text.split()),
                "insights_included": list(require(doc, "insights_included", at)),
            }
        )
    df = pd.DataFrame(rows, columns=["document_id", "idx", "text", "n_words", "insights_included"])
    if df["document_id"].duplicated().any():
        raise ValueError(
            f"{where}: duplicate document ids {sorted(df.loc[df.document_id.duplicated(), 'document_id'])}"
        )
    return df


def _subtopics(subtopics: list, where: str) -> pd.DataFrame:
    rows = []
    for i, sub in enumerate(subtopics):
        at = f"{where}: subtopics[{i}]"
        rows.append(
            {
                "subtopic_id": require(sub, "subtopic_id", at),
                "name": require(sub, "subtopic_name", at),
                "description": require(sub, "subtopic", at),
                "query": require(sub, "query", at),
                "n_insights": len(require(sub, "insights", at)),
            }
        )
    return pd.DataFrame(rows, columns=["subtopic_id", "name", "description", "query", "n_insights"])


def _insights(subtopics: list, where: str) -> pd.DataFrame:
    rows = []
    for i, sub in enumerate(subtopics):
        for j, ins in enumerate(sub["insights"]):
            at = f"{where}: subtopics[{i}].insights[{j}]"
            rows.append(
                {
                    "subtopic_id": sub["subtopic_id"],
                    "insight_id": require(ins, "insight_id", at),
                    "name": ins.get("insight_name"),
                    "text": require(ins, "insight", at),
                    "query": ins.get("query"),
                }
            )
    return pd.DataFrame(rows, columns=["subtopic_id", "insight_id", "name", "text", "query"])


def _retriever_scores(subtopics: list, where: str, doc_ids: set[str]) -> pd.DataFrame:
    rows = []
    for i, sub in enumerate(subtopics):
        retrievers = require(sub, "retriever", f"{where}: subtopics[{i}]")
        for retriever, scores in retrievers.items():
            for document_id, score in scores.items():
                rows.append(
                    (sub["subtopic_id"], retriever, document_id, float(score), document_id in doc_ids)
                )
    return pd.DataFrame(rows, columns=["subtopic_id", "retriever", "document_id", "score", "in_haystack"])


def _summaries(subtopics: list, where: str) -> pd.DataFrame:
    rows = []
    for i, sub in enumerate(subtopics):
        for key, bullets in require(sub, "summaries", f"{where}: subtopics[{i}]").items():
            rows.append({"subtopic_id": sub["subtopic_id"], "summary_key": key, "bullets": list(bullets)})
    return pd.DataFrame(rows, columns=["subtopic_id", "summary_key", "bullets"])


def _judgments(subtopics: list, where: str) -> pd.DataFrame:
    rows = []
    for i, sub in enumerate(subtopics):
        for key, items in require(sub, "eval_summaries", f"{where}: subtopics[{i}]").items():
            for k, item in enumerate(items):
                at = f"{where}: subtopics[{i}].eval_summaries[{key!r}][{k}]"
                bullet = require(item, "bullet_id", at)
                rows.append(
                    {
                        "subtopic_id": sub["subtopic_id"],
                        "summary_key": key,
                        "insight_id": require(item, "insight_id", at),
                        "coverage": require(item, "coverage", at),
                        "bullet_id": None if bullet == "NA" else int(bullet),
                    }
                )
    df = pd.DataFrame(rows, columns=["subtopic_id", "summary_key", "insight_id", "coverage", "bullet_id"])
    df["bullet_id"] = df["bullet_id"].astype("Int64")
    return df


# --- the auto-evaluation benchmark -----------------------------------------------------------------


def load_eval_benchmark(path: Path | str | None = None, errors: str = "raise") -> pd.DataFrame:
    """The 200 human-annotated summaries used to benchmark automatic evaluators, one row per record.

    Columns: ``record`` (0-based position in the file), ``topic_fn`` / ``topic_id`` (each record has
    one of them; the other is None), ``topic, subtopic_id, subtopic, summkey, summary`` (list of str),
    ``reference_insights`` and ``annotation`` (lists of dicts, the human labels), then one column per
    ``predictions_*`` key as in the file (lists of ``{coverage, bullet_id, insight_id}``).
    A record missing a field raises naming its position, or is dropped with ``errors="drop"``.
    """
    check_errors(errors)
    source = Path(path) if path else data_path(EVAL_BENCHMARK)
    records = read_json(source)
    if not isinstance(records, list):
        raise ValueError(f"{source}: expected a JSON list of records, got {type(records).__name__}")
    report = LoadReport(str(source), n_read=len(records))
    rows = []
    for i, record in enumerate(records):
        missing = [k for k in EVAL_FIELDS if not isinstance(record, dict) or k not in record]
        if missing:
            reject(report, i, f"missing {missing}", errors, unit="record")
            continue
        rows.append(
            {"record": i, "topic_fn": record.get("topic_fn"), "topic_id": record.get("topic_id"), **record}
        )
    prediction_columns = list(dict.fromkeys(k for r in rows for k in r if k.startswith("predictions_")))
    columns = ["record", "topic_fn", "topic_id", *EVAL_FIELDS, *prediction_columns]
    return finish(pd.DataFrame(rows, columns=columns), report)
