"""LongRAG's CoT-guided filter, as the released code reads it.

5. **CoT-guided filter**: one LLM call that writes a thought process over all chunks, then one call per chunk
   that answers ``{"status": ...}`` (:func:`parse_status`); nothing kept means everything kept
   (:func:`filtered`). The prompts are in :mod:`lcrag.papers.longrag.prompts`; the calls are made in
   :func:`lcrag.papers.longrag.answering.answer_question`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from lcrag.text import as_text

_TRUE = re.compile("True|true")


def parse_status(response: str | None) -> bool:
    """A filter judgement as the released code reads it: JSON ``{"status": ...}`` whose value is "true" in any
    case; if the response is not such JSON, whether it contains ``True`` or ``true`` anywhere."""
    text = as_text(response)
    try:
        value = json.loads(text)["status"]
        return str(value).lower() == "true"
    except (ValueError, TypeError, KeyError, AttributeError):
        return bool(_TRUE.search(text))


def filtered(chunks: Sequence[str], keep: Sequence[bool]) -> tuple[list[str], bool]:
    """The chunks judged relevant, and whether the code's fallback fired (none kept: all are kept)."""
    if len(chunks) != len(keep):
        raise ValueError(f"{len(keep)} judgements for {len(chunks)} chunks")
    kept = [c for c, k in zip(chunks, keep, strict=True) if k]
    return (kept, False) if kept else (list(chunks), True)


def removed_nothing(rows) -> tuple[int, int, int] | None:
    """How little the filter filtered, per question (Fil and E&F read one filter run): (questions, questions whose
    chunks it removed none of, those among them where it judged none relevant and the code kept all), from answer
    rows with ``filter_fallback`` and ``filter_removed`` (:func:`lcrag.papers.longrag.answering.answer_question`;
    rows without ``filter_removed``, from before it was recorded, count only the fallbacks). None when no row
    records the filter."""
    if "filter_fallback" not in rows:
        return None
    ran = rows[rows["filter_fallback"].notna()]
    if ran.empty:
        return None
    keys = [c for c in ("dataset", "question_id", "setting", "chunk_size", "top_k") if c in ran]
    per_question = ran.drop_duplicates(keys) if "question_id" in keys else ran[ran["strategy"] == ran["strategy"].iloc[0]]
    fell = per_question["filter_fallback"].astype(bool)
    kept_all = (per_question["filter_removed"] == 0) if "filter_removed" in per_question else fell
    return len(per_question), int((kept_all | fell).sum()), int(fell.sum())


def removed_nothing_text(counts: tuple[int, int, int]) -> str:
    """``the filter removed no chunk for 77 of 96 questions (80%; for 70 it judged every chunk relevant, for 7 none,
    and the code then keeps all)`` from :func:`removed_nothing`'s counts."""
    n, nothing, fell = counts
    return (f"the filter removed no chunk for {nothing} of {n} questions ({nothing / n:.0%}; for {nothing - fell} it "
            f"judged every chunk relevant, for {fell} none, and the code then keeps all)")


def filter_sentence(results, tokens) -> str:
    """Section 4's sentence on how much the filter filtered, from the run's answers (:func:`removed_nothing`) and
    its tokens table (columns dataset, strategy, ``ours`` and the paper's ``paper_chatglm3_sft``): the share of
    questions it removed nothing from, and Fil's mean input as a share of R&B's, ours beside the paper's."""
    counts = removed_nothing(results)
    if not counts:
        return "This run did not run the filter (no Fil or E&F)."
    t = tokens.set_index(["dataset", "strategy"])

    def shares(column: str) -> str:
        return ", ".join(f"{t.loc[(d, 'Fil'), column] / t.loc[(d, 'R&B'), column]:.0%} on {d}"
                         for d in dict.fromkeys(tokens["dataset"])
                         if {(d, "Fil"), (d, "R&B")} <= set(t.index) and t.loc[(d, "Fil"), column] > 0)

    ours = shares("ours")
    paper = shares("paper_chatglm3_sft") if "paper_chatglm3_sft" in tokens else ""
    n, nothing, _ = counts
    text = removed_nothing_text(counts)
    said = (f"The filter removed at least one chunk for each of the {n} questions." if not nothing else
            f"{text[0].upper() + text[1:]}; on those questions Fil feeds the generator R&B's very input, and E&F "
            "Ext's.")
    return (f"**How much the filter filtered**: {said}" + (f" Fil's mean input, as a share of R&B's: {ours}" if ours
                                                            else "")
            + (f" (the paper's ChatGLM3-6B-32k with SFT: {paper}, Tables 12-14)" if paper else "")
            + ("." if ours else ""))
