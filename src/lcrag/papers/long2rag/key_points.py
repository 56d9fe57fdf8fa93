"""Long²RAG's key-point pipeline (§3.3), its validation, and Key Point Precision (§6.4).

- Extraction (:func:`extract_key_points`, P5, parsed by :func:`parse_points`), de-duplication (:func:`deduplicate`,
  P7, checked by :func:`parse_dedup`) and the AutoDS filter (:func:`autods_scores`, P8 with YES/NO logprobs, Eq. 3
  :func:`yes_no_score`, kept at :data:`AUTODS_THRESHOLD`).
- Validation against the human SummHay insights (:func:`recovery`).
- The pipeline end to end (:func:`pipeline`, :func:`stage_summary`).
- KPP, our definition (the paper gives none): :func:`response_points_precision`; Table 4's analogue
  (:func:`table4`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from lcrag.judges.similarity import lexical_similarity
from lcrag.papers.long2rag.judges import lexical_scores
from lcrag.papers.long2rag.numbers import PAPER_NUMBERS
from lcrag.papers.long2rag.prompts import (
    OUR_P5_DEMONSTRATION,
    OUR_P7_DEMONSTRATION,
    P5_EXTRACT,
    P7_DEDUPLICATE,
    P8_AUTODS,
)
from lcrag.text.stopwords import RECALL_STOP_WORDS
from lcrag.text.words import content_words

#: §3.3 / App. A.2: a point is kept when its AutoDS score reaches this.
AUTODS_THRESHOLD = PAPER_NUMBERS["AutoDS threshold"]

# ============================================================================================ key-point pipeline

_POINT = re.compile(r"Point\s*\[?\s*(\d+)\s*\]?\s*:\s*(.*?)(?=\n?\s*Point\s*\[?\s*\d+\s*\]?\s*:|\Z)", re.S)
_CONTENT = re.compile(r"<point_start>(.*?)(?:<point_end>|$)", re.S)
_SPAN = re.compile(r"<span_start>(.*?)(?:<span_end>|$)", re.S)


def parse_points(text: str) -> list[dict]:
    """P5 output as ``[{number, point, spans}]``: each ``Point N:`` block's ``<point_start>`` content (or, without
    the markers, the block's text up to its first span) and its ``<span_start>`` spans. Empty points are dropped."""
    out = []
    for number, block in _POINT.findall(text or ""):
        m = _CONTENT.search(block)
        content = m.group(1) if m else block.split("<span_start>")[0]
        content = content.strip().strip("[]").strip()
        if content:
            out.append({"number": int(number), "point": content,
                        "spans": [s.strip() for s in _SPAN.findall(block) if s.strip()]})
    return out


def extract_key_points(model, items: pd.DataFrame, max_tokens: int = 256,
                       demonstration: str = OUR_P5_DEMONSTRATION) -> pd.DataFrame:
    """P5 on every document of every item (one call per document, one round): one row per extracted point,
    with question_id, doc (0-based), number, point, spans, span_verbatim (every span is a substring of the
    document). Documents are cut in the middle if they do not fit the window."""
    requests, where = [], []
    for r in items.to_dict("records"):
        for d, doc in enumerate(r["documents"]):
            requests.append({"prompt": P5_EXTRACT.format(demonstration=demonstration, query=r["question"], text=doc),
                             "max_tokens": max_tokens, "temperature": 0.0, "context_policy": "truncate_middle"})
            where.append((r["question_id"], d, doc))
    rows = []
    for (qid, d, doc), c in zip(where, model.map("ask", requests), strict=True):
        for p in parse_points(c.text):
            rows.append({"question_id": qid, "doc": d, **p,
                         "span_verbatim": bool(p["spans"]) and all(s in doc for s in p["spans"])})
    return pd.DataFrame(rows, columns=["question_id", "doc", "number", "point", "spans", "span_verbatim"])


_GROUP = re.compile(r"\[([\d,\s]+)\]\s*$")


def parse_dedup(text: str, n_original: int) -> tuple[list[dict], dict]:
    """P7 output as ``[{point, sources}]`` and the check the paper describes: every original point in exactly
    one de-duplicated point. ``check`` = {ok, missing, repeated, unknown} (original numbers, 1-based)."""
    groups = []
    for _, block in _POINT.findall(text or ""):
        line = block.strip().splitlines()[0] if block.strip() else ""
        m = _GROUP.search(line)
        sources = [int(x) for x in re.findall(r"\d+", m.group(1))] if m else []
        content = _GROUP.sub("", line).strip()
        if content:
            groups.append({"point": content, "sources": sources})
    seen = [s for g in groups for s in g["sources"]]
    missing = sorted(set(range(1, n_original + 1)) - set(seen))
    repeated = sorted({s for s in seen if seen.count(s) > 1})
    unknown = sorted({s for s in seen if not 1 <= s <= n_original})
    return groups, {"ok": not (missing or repeated or unknown), "missing": missing, "repeated": repeated,
                    "unknown": unknown}


def deduplicate(model, points: pd.DataFrame, max_tokens: int = 512,
                demonstration: str = OUR_P7_DEMONSTRATION) -> pd.DataFrame:
    """P7 per question over its extracted points. When the output fails the partition check, the original points
    are kept unchanged (the paper does not say what it did; this loses nothing) and ``fallback`` is True.
    One row per kept point: question_id, point, sources, fallback."""
    rows = []
    for qid, g in points.groupby("question_id", sort=False):
        originals = list(g["point"])
        listing = "\n".join(f"Point {i}: {p}" for i, p in enumerate(originals, start=1))
        c = model.ask(P7_DEDUPLICATE.format(demonstration=demonstration, points=listing), max_tokens=max_tokens,
                      temperature=0.0, context_policy="truncate_middle")
        groups, check = parse_dedup(c.text, len(originals))
        if check["ok"]:
            rows += [{"question_id": qid, "point": x["point"], "sources": x["sources"], "fallback": False}
                     for x in groups]
        else:
            rows += [{"question_id": qid, "point": p, "sources": [i], "fallback": True}
                     for i, p in enumerate(originals, start=1)]
    return pd.DataFrame(rows, columns=["question_id", "point", "sources", "fallback"])


def yes_no_score(top: dict[str, float]) -> float:
    """Eq. 3: exp(l_YES) / (exp(l_YES) + exp(l_NO)) from the first answer token's top logprobs.

    Tokens are matched after stripping spaces, any case (``"YES"``, ``" Yes"``), keeping the best logprob of
    each; one side absent from the top list counts as probability 0; neither present -> NaN.
    """
    best: dict[str, float] = {}
    for token, lp in (top or {}).items():
        t = token.strip().upper()
        if t in ("YES", "NO"):
            best[t] = max(lp, best.get(t, -math.inf))
    if not best:
        return float("nan")
    y, n = best.get("YES", -math.inf), best.get("NO", -math.inf)
    m = max(y, n)
    return math.exp(y - m) / (math.exp(y - m) + math.exp(n - m))


def autods_scores(model, questions: Sequence[str], points: Sequence[str], top_logprobs: int = 20) -> list[float]:
    """The AutoDS score (P8) of each (question, point): one call with logprobs, max_tokens 1."""
    requests = [{"prompt": P8_AUTODS.format(question=q, point=p), "max_tokens": 1, "temperature": 0.0,
                 "logprobs": True, "top_logprobs": top_logprobs, "context_policy": "truncate_middle"}
                for q, p in zip(questions, points, strict=True)]
    return [yes_no_score(c.top_logprobs(0)) for c in model.map("ask", requests)]


def pipeline(model, items: pd.DataFrame, threshold: float, max_tokens: int = 256, dedup_max_tokens: int = 512,
             autods_points: int = 0) -> dict[str, pd.DataFrame]:
    """§3.3 end to end on ``items``: P5 extraction, P7 de-duplication and, on the first ``autods_points``
    de-duplicated points, P8's AutoDS score; after each stage, how many human key points it recovers
    (:func:`recovery`). Returns the tables ``extracted``, ``deduped``, ``scored`` (empty without AutoDS) and
    ``recovery`` (one row per item and stage)."""
    extracted = extract_key_points(model, items, max_tokens=max_tokens)
    stages = [recovery(items, extracted, threshold, "P5 extracted")]
    deduped = deduplicate(model, extracted, max_tokens=dedup_max_tokens)
    stages.append(recovery(items, deduped, threshold, p7_stage(deduped)))
    scored = pd.DataFrame()
    if autods_points and len(deduped):
        scored = deduped.head(autods_points).copy()
        question = items.set_index("question_id")["question"]
        scored["autods"] = autods_scores(model, list(question[scored["question_id"]]), list(scored["point"]))
        kept = scored[scored["autods"] >= AUTODS_THRESHOLD]
        whole = items[items["question_id"].isin(fully_scored(deduped, scored))]  # an item cut short reads as a loss
        stages.append(recovery(whole, scored, threshold, "P8 scored (fully scored items)"))
        stages.append(recovery(whole, kept, threshold, f"P8 kept (score >= {AUTODS_THRESHOLD:g})"))
    return {"extracted": extracted, "deduped": deduped, "scored": scored,
            "recovery": pd.concat(stages, ignore_index=True)}


def stage_summary(run: dict[str, pd.DataFrame]) -> tuple[pd.DataFrame, str]:
    """Per stage of a :func:`pipeline` run: items, points, key points, recovered, the mean of the items' recalls
    (not recovered / key points: each item weighs the same); and a line on P5's verbatim spans and P7's fallbacks."""
    summary = run["recovery"].groupby("stage", sort=False).agg(
        items=("question_id", "size"), points=("n_points", "sum"), key_points=("n_key_points", "sum"),
        recovered=("n_recovered", "sum"), mean_item_recall=("recall", "mean"))
    ex, dd = run["extracted"], run["deduped"]
    if not len(run["recovery"]):
        return summary, "the key-point pipeline ran on no item (kp_items = 0)"
    verbatim = ex["span_verbatim"].mean() if len(ex) else float("nan")
    note = f"P5: {len(ex)} points, {verbatim:.0%} with every span verbatim in its document; {p7_note(ex, dd)}"
    scored = run.get("scored")
    if scored is not None and 0 < len(scored) < len(dd):
        whole = fully_scored(dd, scored)
        rec = run["recovery"]
        p7 = rec[rec["stage"].str.startswith("P7") & rec["question_id"].isin(whole)]["recall"].mean()
        note += (f"; P8 scored the first {len(scored)} of the {len(dd)} de-duplicated points, so its rows count only "
                 f"the {len(whole)} of {len(dict.fromkeys(dd['question_id']))} items all of whose points it scored"
                 + (f" (P7's mean item recall on them: {p7:.3f})" if whole else ""))
    return summary, note


def fully_scored(deduped: pd.DataFrame, scored: pd.DataFrame) -> list[str]:
    """The items all of whose de-duplicated points P8 scored (it scores the first points only: an item cut short
    would read as a loss of what was never scored)."""
    counts = scored["question_id"].value_counts()
    return [q for q, n in deduped["question_id"].value_counts().items() if counts.get(q, 0) == n]


def p7_stage(deduped: pd.DataFrame) -> str:
    """The recovery stage after P7, named by what P7 did: ``P7 deduplicated``, or ``P7 rejected (P5 points kept)``
    when its output failed the check on every item, or ``P7 (1 of 4 items deduplicated)``."""
    if deduped.empty or "fallback" not in deduped:
        return "P7 deduplicated"
    failed = deduped.groupby("question_id", sort=False)["fallback"].any()
    if not failed.any():
        return "P7 deduplicated"
    if failed.all():
        return "P7 rejected (P5 points kept)"
    return f"P7 ({int((~failed).sum())} of {len(failed)} items deduplicated)"


def p7_note(extracted: pd.DataFrame, deduped: pd.DataFrame) -> str:
    """P7 per item, in words: on how many items its output failed the check (their P5 points kept unmerged) and
    what it merged on the others (``20 points into 1``), from :func:`pipeline`'s ``extracted`` and ``deduped``."""
    items = list(dict.fromkeys(extracted["question_id"]))
    if not items:
        return "P7 ran on no point"
    failed = [q for q in items if deduped.loc[deduped["question_id"] == q, "fallback"].any()]
    kept = int(deduped["question_id"].isin(failed).sum())
    out = (f"P7 failed its check on {len(failed)} of {len(items)} items ({kept} of {len(deduped)} points are their "
           "P5 points, kept unmerged)")
    def merged_note(q: str) -> str:
        before, after = int((extracted["question_id"] == q).sum()), int((deduped["question_id"] == q).sum())
        whole = " (all into one point: the check accepts it, but it keeps no distinction)" if after == 1 < before else ""
        return f"{q}: {before} points into {after}{whole}"

    merged = [merged_note(q) for q in items if q not in failed]
    return out + (f"; on the other{'s' if len(merged) > 1 else ''} it merged {', '.join(merged)}" if merged else "")


RECOVERY_COLUMNS = ("question_id", "stage", "n_key_points", "n_points", "n_recovered", "recall")


def recovery(items: pd.DataFrame, points: pd.DataFrame, threshold: float, stage: str) -> pd.DataFrame:
    """How many of each item's human key points (SummHay insights) the pipeline's points recover: an insight is
    recovered when its lexical score against some point (each point one "sentence") reaches ``threshold`` (the
    deterministic judge's cut). One row per item: n_key_points, n_points, n_recovered, recall, stage."""
    rows = []
    for r in items.to_dict("records"):
        pts = list(points.loc[points["question_id"] == r["question_id"], "point"])
        if pts:
            sim = lexical_similarity(r["key_points"], pts).max(axis=1)
            hit = int((sim >= threshold).sum())
        else:
            hit = 0
        rows.append({"question_id": r["question_id"], "stage": stage, "n_key_points": len(r["key_points"]),
                     "n_points": len(pts), "n_recovered": hit, "recall": hit / len(r["key_points"])})
    return pd.DataFrame(rows, columns=RECOVERY_COLUMNS)


# ============================================================================================ KPP


def response_points_precision(model, responses: pd.DataFrame, items: pd.DataFrame, threshold: float,
                              max_tokens: int = 256) -> pd.DataFrame:
    """KPP per response (our definition; the paper gives none): P5 extracts the response's key points ([Text] =
    the response), and a point is supported when its lexical score against the item's documents (each sentence
    of the concatenation) reaches ``threshold``. Columns: question_id, variant, n_points, n_supported, precision
    (NaN when no point was extracted)."""
    docs = items.set_index("question_id")["documents"]
    question = items.set_index("question_id")["question"]
    requests = [{"prompt": P5_EXTRACT.format(demonstration=OUR_P5_DEMONSTRATION, query=question[q], text=t),
                 "max_tokens": max_tokens, "temperature": 0.0, "context_policy": "truncate_middle"}
                for q, t in zip(responses["question_id"], responses["response"], strict=True)]
    rows = []
    for r, c in zip(responses.to_dict("records"), model.map("ask", requests), strict=True):
        n, ok = point_support([p["point"] for p in parse_points(c.text)], "\n".join(docs[r["question_id"]]),
                              threshold)
        rows.append({"question_id": r["question_id"], "variant": r["variant"], "n_points": n,
                     "n_supported": ok, "precision": ok / n if n else np.nan})
    return pd.DataFrame(rows)


def point_support(points: list[str], doc_text: str, threshold: float) -> tuple[int, int]:
    """(points, supported points) of one response's extracted points: a point without a content word ("It is
    discussed.") states nothing and is not counted; a point is supported when its lexical score against the
    sentences of ``doc_text`` reaches ``threshold``."""
    pts = [p for p in points if content_words(p, RECALL_STOP_WORDS)]
    ok = int((lexical_scores(pts, [doc_text] * len(pts)) >= threshold).sum()) if pts else 0
    return len(pts), ok


def table4(precision: pd.DataFrame, judgments: pd.DataFrame, responses: pd.DataFrame) -> pd.DataFrame:
    """Table 4's analogue, one row per recall judge: KPP, KPR, both KPF readings (:func:`lcrag.metrics.kpr.kpf`)
    of the responses whose ``precision`` (:func:`response_points_precision`) and ``judgments`` are given, with the
    mean number of extracted points and the mean response length."""
    from lcrag.metrics import kpr as K

    rows = []
    for name, g in judgments.groupby("judge"):
        per_q = precision.merge(K.question_kpr(g)[["question_id", "recall"]], on="question_id")
        rows.append({"recall_judge": name, **K.kpf(per_q), "mean_points": precision["n_points"].mean(),
                     "mean_response_tokens": responses["completion_tokens"].mean()})
    return pd.DataFrame(rows)
