"""Long²RAG (Qi et al., Findings of EMNLP 2024, arXiv 2410.23000): the loader, and items built like it from SummHay.

**The real dataset.** 280 questions, each with a domain (10), a question category (8), the 5 retrieved documents
(full web pages) and its key points (2,055 in all). It was never published beyond a README (the repository
``QZH-777/longrag`` holds only ``README.md`` at commit ``f7bf34d``), so no field name is known. :func:`load_long2rag`
reads the format as the paper describes it, one JSON object per line, and accepts the obvious spellings of each
field (:data:`FIELD_ALIASES`); when the files appear, only the aliases may need a line more.

**Items we can build.** :func:`summhay_items` turns every SummHay subtopic into a Long²RAG-protocol item: question =
the subtopic's query, documents = its 5 documents with the highest oracle score (the number of the subtopic's
insights a document contains), key points = the subtopic's insights that those documents contain (statements the
SummHay authors planted and checked), domain = the haystack's topic, category = one of Long²RAG's 8 categories by
the deterministic rule :func:`assign_category`. These items are an adaptation, not the paper's data.

Both return the same tidy table (:data:`ITEM_COLUMNS`, one row per question); :func:`key_points_table` gives one
row per key point.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from lcrag.data.records import (
    LoadReport,
    check_errors,
    finish,
    jsonl_lines,
    parse_json_line,
    reject,
)
from lcrag.papers.tables import paper_table

#: Fig. 3 of the paper: the 8 question categories, in the paper's order, with their definitions (verbatim).
CATEGORIES: dict[str, str] = {
    "Factual": "Asking for specific facts or data, usually with a clear answer.",
    "Explanatory": "Requiring an explanation of a phenomenon or concept, often involving a detailed description "
    "of causes or processes.",
    "Comparative": "Comparing two or more objects to identify similarities and differences.",
    "Subjective": "Asking for an evaluation or judgment of something, usually involving subjective opinions.",
    "Methodological": "Asking for the methods or steps to solve a problem.",
    "Causal": "Exploring the reasons or motives behind a phenomenon.",
    "Hypothetical": "Based on hypothetical premises, often involving predictions or speculations.",
    "Predictive": "Asking for predictions about future events or outcomes.",
}

#: §3.1 / Figs 4, 9, 10: the 10 domains.
DOMAINS: tuple[str, ...] = (
    "AI",
    "Biology",
    "Economics",
    "Film",
    "History",
    "Music",
    "Religion",
    "Sports",
    "Technology",
    "Others",
)

#: Documents per question in the paper (§3.2).
N_DOCUMENTS = 5

#: Field -> accepted key names in a record, first match wins (the real schema is unknown).
FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "question_id": ("id", "question_id", "qid", "_id"),
    "question": ("question", "query", "input"),
    "domain": ("domain", "topic"),
    "category": ("category", "question_type", "type"),
    "documents": ("documents", "docs", "retrieved_documents", "ctxs", "contexts"),
    "key_points": ("key_points", "keypoints", "points"),
}
#: Inside a document object: its text, and optional title / url.
DOC_TEXT = ("text", "content", "page_content", "document", "body")
#: Inside a key-point object: its text.
POINT_TEXT = ("point", "key_point", "text", "content")

ITEM_COLUMNS = [
    "question_id",
    "question",
    "domain",
    "category",
    "documents",
    "doc_titles",
    "key_points",
    "n_documents",
    "n_key_points",
    "doc_words",
]


def _first(record: dict, field: str) -> tuple[bool, object]:
    for key in FIELD_ALIASES[field]:
        if key in record:
            return True, record[key]
    return False, None


def _document(doc: object) -> tuple[str, str | None]:
    """``(text, title)`` of a document given as a string or an object with a text field."""
    if isinstance(doc, str):
        return doc, None
    if isinstance(doc, dict):
        for key in DOC_TEXT:
            if isinstance(doc.get(key), str):
                title = doc.get("title")
                return doc[key], title if isinstance(title, str) else None
    raise ValueError(f"a document must be a string or an object with one of {DOC_TEXT} as a string")


def _point(point: object) -> str:
    if isinstance(point, str):
        return point
    if isinstance(point, dict):
        for key in POINT_TEXT:
            if isinstance(point.get(key), str):
                return point[key]
    raise ValueError(f"a key point must be a string or an object with one of {POINT_TEXT} as a string")


def _canonical(value: object, allowed, what: str) -> str:
    """``value`` matched case-insensitively to one of ``allowed``; a ValueError naming the allowed set."""
    if isinstance(value, str):
        for name in allowed:
            if value.strip().lower() == name.lower():
                return name
    raise ValueError(f"unknown {what} {value!r}; expected one of {list(allowed)}")


def parse_record(record: object, line: int) -> dict:
    """One Long²RAG record as a row of :data:`ITEM_COLUMNS`; a ValueError saying what is wrong otherwise.

    Required: question (non-empty), domain (one of :data:`DOMAINS`), category (one of :data:`CATEGORIES`), at least
    one document, at least one key point. A missing id becomes ``line-<n>``.
    """
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {type(record).__name__}")
    row: dict = {}
    for field in ("question", "domain", "category", "documents", "key_points"):
        found, value = _first(record, field)
        if not found:
            raise ValueError(f"missing {field!r} (accepted keys: {list(FIELD_ALIASES[field])})")
        row[field] = value
    found, qid = _first(record, "question_id")
    row["question_id"] = str(qid) if found and qid is not None else f"line-{line}"
    if not isinstance(row["question"], str) or not row["question"].strip():
        raise ValueError("question must be a non-empty string")
    row["domain"] = _canonical(row["domain"], DOMAINS, "domain")
    row["category"] = _canonical(row["category"], CATEGORIES, "category")
    if not isinstance(row["documents"], list) or not row["documents"]:
        raise ValueError("documents must be a non-empty list")
    if not isinstance(row["key_points"], list) or not row["key_points"]:
        raise ValueError("key_points must be a non-empty list")
    docs = [_document(d) for d in row["documents"]]
    row["documents"] = [t for t, _ in docs]
    row["doc_titles"] = [title for _, title in docs]
    row["key_points"] = [_point(p) for p in row["key_points"]]
    row["n_documents"] = len(docs)
    row["n_key_points"] = len(row["key_points"])
    row["doc_words"] = [len(t.split()) for t in row["documents"]]
    return {c: row[c] for c in ITEM_COLUMNS}


def load_long2rag(path: Path | str, errors: str = "raise") -> pd.DataFrame:
    """The Long²RAG questions of a JSON Lines file, one row per question (:data:`ITEM_COLUMNS`).

    A malformed line raises a ValueError naming the file and line (``errors="raise"``) or is dropped, counted and
    reported in ``df.attrs["report"]`` (``errors="drop"``). Questions with a number of documents other than
    :data:`N_DOCUMENTS` are kept and listed in ``df.attrs["not_five_documents"]`` (the paper says 5 each). Duplicate
    question ids are an error.
    """
    check_errors(errors)
    source = Path(path)
    if not source.is_file():
        raise FileNotFoundError(f"{source}: no such Long²RAG file (the dataset is not public; see the module doc)")
    report = LoadReport(str(source))
    rows = []
    for line, text, problem in jsonl_lines(source):
        if text is not None and not text.strip():
            continue
        report.n_read += 1
        if problem:
            reject(report, line, problem, errors)
            continue
        try:
            value, lenient = parse_json_line(text)
            row = parse_record(value, line)
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            reject(report, line, str(exc), errors)
            continue
        if lenient:
            report.lenient.append(line)
        rows.append(row)
    df = pd.DataFrame(rows, columns=ITEM_COLUMNS)
    dup = df["question_id"][df["question_id"].duplicated()]
    if len(dup):
        raise ValueError(f"{source}: duplicate question ids {sorted(set(dup))}")
    df.attrs["not_five_documents"] = list(df.loc[df["n_documents"] != N_DOCUMENTS, "question_id"])
    return finish(df, report)


def key_points_table(items: pd.DataFrame) -> pd.DataFrame:
    """One row per key point: question_id, key_point_id (``<question_id>#<k>`` unless the items carry ids),
    key_point, domain, category."""
    rows = []
    for r in items.to_dict("records"):
        ids = r.get("key_point_ids") or [f"{r['question_id']}#{k}" for k in range(len(r["key_points"]))]
        for kid, text in zip(ids, r["key_points"], strict=True):
            rows.append(
                {
                    "question_id": r["question_id"],
                    "key_point_id": kid,
                    "key_point": text,
                    "domain": r["domain"],
                    "category": r["category"],
                }
            )
    return pd.DataFrame(rows, columns=["question_id", "key_point_id", "key_point", "domain", "category"])


# ============================================================================================ SummHay adaptation

#: Our short domain name for each SummHay haystack (its topic is in the ``topic`` column of the items).
SUMMHAY_DOMAINS: dict[str, str] = {
    "news1": "Cars",
    "news2": "Banking",
    "news3": "Retail",
    "news4": "Social media",
    "news5": "Markets",
    "conv1": "Medicine",
    "conv2": "Project management",
    "conv3": "Remote work",
    "conv4": "Sales",
    "conv5": "Studying",
}

#: The category rule: the first category whose pattern matches the query (lower case, words) wins; no match is
#: Factual ("asking for specific facts or data"). Each pattern is a cue of the paper's definition (Fig. 3).
CATEGORY_RULES: tuple[tuple[str, str], ...] = (
    ("Comparative", r"\b(compare|compared|comparison|competitors?|versus|vs|difference|differences)\b"),
    ("Hypothetical", r"\b(what if|if|would|suppose|imagine)\b"),
    ("Predictive", r"\b(future|plans?|upcoming|prospects|guidance|forecasts?|next)\b"),
    ("Causal", r"\b(why|impacts?|effects?|factors|causes?|reasons?|reactions?|influence|impacting|due to)\b"),
    (
        "Methodological",
        r"\b(how to|steps|strategies|techniques|methods|management|actions|tips|recommended|planning)\b",
    ),
    ("Subjective", r"\b(opinions?|debated?|satisfaction|concerns?|views|success stories|best)\b"),
    ("Explanatory", r"\b(explain|explained|explanation|explored|detailed|context|concepts)\b"),
)


def assign_category(question: str) -> tuple[str, str]:
    """``(category, cue)`` of ``question`` by :data:`CATEGORY_RULES`: the first matching rule, its matched words.

    Deterministic and inspectable: the cue says why. ``("Factual", "")`` when no rule matches.
    """
    q = question.lower()
    for category, pattern in CATEGORY_RULES:
        m = re.search(pattern, q)
        if m:
            return category, m.group(0)
    return "Factual", ""


def oracle_documents(haystack, subtopic_id: str, n: int = N_DOCUMENTS) -> pd.DataFrame:
    """The ``n`` documents of ``haystack`` with the highest oracle score for the subtopic (ties: lower ``idx``
    first, i.e. the stored order), with columns document_id, idx, score, text, insights_included."""
    scores = haystack.retriever_scores
    oracle = scores[
        (scores["subtopic_id"] == subtopic_id) & (scores["retriever"] == "oracle") & scores["in_haystack"]
    ]
    if oracle.empty:
        raise ValueError(f"{haystack.name}: no oracle scores for subtopic {subtopic_id}")
    docs = haystack.documents.merge(oracle[["document_id", "score"]], on="document_id", how="inner")
    docs = docs.sort_values(["score", "idx"], ascending=[False, True], kind="stable").head(n)
    return docs[["document_id", "idx", "score", "text", "insights_included"]].reset_index(drop=True)


def summhay_items(haystacks: Mapping, n_documents: int = N_DOCUMENTS, max_subtopics: int | None = None) -> pd.DataFrame:
    """Long²RAG-protocol items from SummHay haystacks (``{name: Haystack}``), one row per subtopic.

    Columns: :data:`ITEM_COLUMNS` plus ``haystack, topic, subtopic_id, key_point_ids, document_ids, oracle_scores,
    category_cue, n_subtopic_insights``. Key points are the subtopic's insights contained in at least one of the
    chosen documents, in the subtopic's insight order; ``n_subtopic_insights`` is how many the subtopic has.
    A subtopic none of whose insights is in its top documents is an error (it would have no key point).
    """
    rows = []
    for name, h in haystacks.items():
        subtopics = h.subtopics if not max_subtopics else h.subtopics.head(max_subtopics)
        for sub in subtopics.to_dict("records"):
            sid = sub["subtopic_id"]
            docs = oracle_documents(h, sid, n_documents)
            contained = {i for inc in docs["insights_included"] for i in inc}
            ins = h.insights[h.insights["subtopic_id"] == sid]
            kept = ins[ins["insight_id"].isin(contained)]
            if kept.empty:
                raise ValueError(f"{name} subtopic {sid}: none of its insights is in its top {n_documents} documents")
            category, cue = assign_category(sub["query"])
            rows.append(
                {
                    "question_id": f"{name}/{sid}",
                    "question": sub["query"],
                    "domain": SUMMHAY_DOMAINS.get(name, name),
                    "category": category,
                    "documents": list(docs["text"]),
                    "doc_titles": [None] * len(docs),
                    "key_points": list(kept["text"]),
                    "n_documents": len(docs),
                    "n_key_points": len(kept),
                    "doc_words": [len(t.split()) for t in docs["text"]],
                    "haystack": name,
                    "topic": h.topic,
                    "subtopic_id": sid,
                    "key_point_ids": list(kept["insight_id"]),
                    "document_ids": list(docs["document_id"]),
                    "oracle_scores": [float(s) for s in docs["score"]],
                    "category_cue": cue,
                    "n_subtopic_insights": len(ins),
                }
            )
    return pd.DataFrame(rows)


def select_items(items: pd.DataFrame, haystacks, per_haystack: int = 0, max_key_points: int = 0) -> pd.DataFrame:
    """The items of a run: those of ``haystacks``, the first ``per_haystack`` of each (0: all), each with its first
    ``max_key_points`` key points (0: all)."""
    out = items[items["haystack"].isin(haystacks)]
    if per_haystack:
        out = out.groupby("haystack", sort=False).head(per_haystack)
    out = out.reset_index(drop=True)
    if max_key_points:
        out = out.assign(key_points=out["key_points"].map(lambda k: k[:max_key_points]),
                         key_point_ids=out["key_point_ids"].map(lambda k: k[:max_key_points]))
        out["n_key_points"] = out["key_points"].map(len)
    return out


def items_summary(items: pd.DataFrame) -> pd.DataFrame:
    """The shape of an item set next to the paper's §3 numbers: questions, domains, categories, documents per
    question, words per document, key points (total and per question)."""
    words = [w for ws in items["doc_words"] for w in ws]
    ours = {
        "questions": len(items),
        "domains": items["domain"].nunique(),
        "categories": items["category"].nunique(),
        "documents per question": float(items["n_documents"].mean()),
        "words per document": float(pd.Series(words).mean()) if words else float("nan"),
        "key points": int(items["n_key_points"].sum()),
        "key points per question": float(items["n_key_points"].mean()),
    }
    stated = paper_table("long2rag", "numbers").set_index("quantity")["value"]  # the paper's text, as data
    paper = {
        "questions": stated["questions"],
        "domains": stated["domains"],
        "categories": stated["categories"],
        "documents per question": stated["documents per question"],
        "words per document": stated["words per document (abstract)"],
        "key points": stated["key points"],
        "key points per question": stated["key points"] / stated["questions"],
    }
    return pd.DataFrame({"quantity": list(ours), "ours": list(ours.values()), "paper": [paper[k] for k in ours]})
