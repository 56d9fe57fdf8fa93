"""The thesis's Tables 6.1-6.3 recomputed, beside the printed values (:mod:`lcrag.papers.thesis.numbers`):
Full-setting accuracy per prompt (6.1), the per-case CQT answers on MeetingQA (6.2), the rankers' top-5 chunks for
MeetingQA cases 1-3 (6.3), and the two cosine similarities the thesis quotes (:func:`embedding_sanity`). The
thesis's values are in the columns whose names start with ``paper_`` (the book's glossary), ours in the others.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from lcrag.papers.tables import table_cell
from lcrag.papers.thesis.cases import case_keys
from lcrag.papers.thesis.numbers import (
    TASKS,
    THESIS_SANITY,
    THESIS_TABLE_6_1,
    THESIS_TABLE_6_2_WRONG,
    THESIS_TABLE_6_3,
    pooled_source,
    printed_accuracy,
)
from lcrag.retrieval import get_ranker
from lcrag.text.chunking import recursive_split


def table_6_1(scored: pd.DataFrame, grid_cases: pd.DataFrame | None = None) -> pd.DataFrame:
    """Full-setting accuracy (%) per prompt and task under the three scorers, next to Table 6.1.

    ``cases`` says which cases: "kept" (every kept case the prompt was asked on), "grid" (the kept cases of
    the grid's cases, where every prompt ran: the fair comparison between prompts), and "original" (kept and
    removed cases, when the removed ones were asked: the 100 + 100 before cleaning, read with the raw scorer, as the
    table's first row, BAMBOO's published numbers).
    ``paper_accuracy`` is the thesis's value and ``paper_source`` where it prints it: the row of Table 6.1, under the
    row's own label (``Table 6.1 "Clean & Parsed"``, ``Table 6.1 "Original & Raw"``: the label is the thesis's, and
    :func:`table_6_1_note` says why its BAMBOO cells cannot be clean-case accuracies), or the section of the text
    that states the pooled accuracy, which the table does not print (§6.1 for BAMBOO, §6.5 for CTX1 and CTX2). Always its whole set of cases, so on a "grid" row it is not
    the same cases as ours. The cells that cannot be accuracies on their row's cases (:data:`NOT_ACCURACIES`) are
    left out of ``paper_accuracy``: ``paper_note`` gives the printed value and says why.
    """
    full = scored[scored["setting"] == "full"]
    grid_keys = case_keys(grid_cases) if grid_cases is not None else set()
    rows = []
    for prompt, g in full.groupby("prompt", sort=False):
        kept = g[g["kept"]]
        sets = [("kept", kept)]
        in_grid = kept[[k in grid_keys for k in case_keys(kept, as_list=True)]]
        if grid_keys and 0 < len(in_grid) < len(kept):
            sets.append(("grid", in_grid))
        elif grid_keys and len(in_grid) == len(kept):
            sets = [("grid", kept)]
        if (~g["kept"]).any():
            sets.append(("original", g))
        for label, part in sets:
            for task in [*part["task"].unique(), "pooled"]:
                t = part if task == "pooled" else part[part["task"] == task]
                lp = t[t["pred_logprob"].notna()]
                rows.append(
                    {
                        "prompt": prompt,
                        "cases": label,
                        "task": task,
                        "n": len(t),
                        "raw": 100 * t["correct_raw"].mean(),
                        "lenient": 100 * t["correct"].mean(),
                        "logprob": 100 * lp["correct_logprob"].mean() if len(lp) else float("nan"),
                        "paper_accuracy": _thesis_6_1(label, prompt, task),
                        "paper_source": _thesis_6_1_source(label, prompt, task),
                        "paper_note": _thesis_6_1_note(label, prompt, task),
                    }
                )
    return pd.DataFrame(rows)


#: Table 6.1's cells (row, prompt, task) that cannot be accuracies on the cases of their row (:func:`table_6_1_note`):
#: :func:`table_6_1` sets none of them beside ours.
NOT_ACCURACIES = frozenset(("clean & parsed", "BAMBOO", task) for task in TASKS)


def table_6_1_note() -> str:
    """The chapter's opening of Table 6.1: what its BAMBOO "clean & parsed" row prints, how the book reads it (its
    inference: the thesis does not say on which cases), and the pooled accuracy the text gives instead."""
    mq, pq = (table_cell("thesis", "table_6_1", "clean & parsed/BAMBOO", task) for task in TASKS)
    return (f"Full-setting accuracy per prompt. The thesis's Table 6.1 prints {mq}/{pq} for BAMBOO's \"clean & "
            f"parsed\" row, which cannot be accuracies on 84 and 74 cases: by the book's inference, its text's raw "
            f"reproduction on the 100 + 100 cases before cleaning (H1); its text gives the pooled "
            f"{printed_accuracy('full')} %.")


def _table_6_1_row(label: str) -> str:
    """The row of Table 6.1 (as table_6_1.csv spells it) that sits beside our ``cases`` label."""
    return "original & raw" if label == "original" else "clean & parsed"


def _thesis_6_1_source(label: str, prompt: str, task: str) -> str:
    """Where the thesis prints the value beside ours: its Table 6.1 row under the thesis's own label (row 1: BAMBOO's
    published numbers, as the §6.1 text says), or for the pooled accuracy, which the table does not print, the
    section of the text that states it (accuracy_text.csv's source: §6.1 for BAMBOO, §6.5 for CTX1 and CTX2; none for
    the original cases)."""
    if task == "pooled":
        return f"{pooled_source(prompt)} (pooled)" if label != "original" else ""
    row = _table_6_1_row(label)
    return f'Table 6.1 "{row.title()}"' + (" (BAMBOO paper)" if row == "original & raw" else "")


def _thesis_6_1_note(label: str, prompt: str, task: str) -> str:
    """Why the thesis's cell is not in ``paper_accuracy`` (its printed value, one of :data:`NOT_ACCURACIES`), or ""."""
    if (_table_6_1_row(label), prompt, task) not in NOT_ACCURACIES:
        return ""
    printed = table_cell("thesis", "table_6_1", f"{_table_6_1_row(label)}/{prompt}", task)
    return f"prints {printed}: not an accuracy on the kept cases (the note above; H1)"


def _thesis_6_1(label: str, prompt: str, task: str) -> float:
    if (_table_6_1_row(label), prompt, task) in NOT_ACCURACIES:
        return float("nan")
    row = THESIS_TABLE_6_1.get((_table_6_1_row(label), prompt))
    if row is None:
        return float("nan")
    value = {"meetingqa": row[0], "paperqa": row[1], "pooled": row[2]}.get(task)
    return float("nan") if value is None else float(value)


#: Table 6.2's cell for an answer without a letter (the thesis prints "None", which the book's pages show as a missing
#: value, a dash: :data:`lcrag.book.reading.NO_VALUE`).
NO_LETTER = "no letter"


def table_6_2(
    scored: pd.DataFrame,
    cases: pd.DataFrame,
    pipeline: str = "CQT",
    prompt: str = "BAMBOO",
) -> pd.DataFrame:
    """Per MeetingQA case: the correct letter, the thesis's CQT + BAMBOO answer (``paper_answer``, ``paper_correct``)
    and ours ("-" removed, :data:`NO_LETTER` no letter)."""
    mq = cases[cases["task"] == "meetingqa"].sort_values("case")
    ours = scored[
        (scored["task"] == "meetingqa")
        & (scored["setting"] == "rag")
        & (scored["pipeline"] == pipeline)
        & (scored["prompt"] == prompt)
    ].set_index("case")
    rows = []
    for item in mq.itertuples(index=False):
        if not item.kept:
            rows.append(
                {
                    "case": item.case,
                    "gt": "-",
                    "paper_answer": "-",
                    "ours": "-",
                    "paper_correct": None,
                    "ours_correct": None,
                }
            )
            continue
        thesis = THESIS_TABLE_6_2_WRONG.get(item.case, item.answer)
        thesis = NO_LETTER if thesis is None else thesis
        if item.case in ours.index:
            p = ours.loc[item.case, "pred_lenient"]
            mine = p if isinstance(p, str) else NO_LETTER
        else:
            mine = ""
        rows.append(
            {
                "case": item.case,
                "gt": item.answer,
                "paper_answer": thesis,
                "ours": mine,
                "paper_correct": thesis == item.answer,
                "ours_correct": (mine == item.answer) if mine else None,
            }
        )
    return pd.DataFrame(rows)


def table_6_2_wide(t62: pd.DataFrame, blocks: int = 4) -> pd.DataFrame:
    """Table 6.2 laid out as the thesis prints it: ``blocks`` side-by-side blocks of Case / GT / paper / ours."""
    n = math.ceil(len(t62) / blocks)
    parts = []
    for b in range(blocks):
        part = t62.iloc[b * n : (b + 1) * n][["case", "gt", "paper_answer", "ours"]].reset_index(drop=True)
        part.columns = pd.MultiIndex.from_product([[f"block {b + 1}"], ["case", "GT", "paper", "ours"]])
        parts.append(part)
    return pd.concat(parts, axis=1)


def table_6_3(
    cases: pd.DataFrame, embedder=None, *, chunk_size: int = 512, chunk_overlap: int = 50, k: int = 5
) -> pd.DataFrame:
    """Top-5 chunk numbers per ranker for MeetingQA cases 1-3 (the evidence as query), next to Table 6.3.

    Columns: case, ranker, n_chunks, paper_top5 (the thesis's list), ours, exact (same list), top2 (same first
    two), chunk11_top3 (case 3: chunk 11 among our first three, the thesis's observation for every ranker), and
    embedder (the embedding model of the cosine and SVM rows; the thesis's was "davinci-002").
    """
    rows, name = [], _name(embedder)
    mq = cases[(cases["task"] == "meetingqa")].set_index("case")
    for case, thesis_rows in THESIS_TABLE_6_3.items():
        item = mq.loc[case]
        chunks = recursive_split(item["content"], chunk_size=chunk_size, chunk_overlap=chunk_overlap)
        for ranker, thesis in thesis_rows.items():
            ours = [h.index + 1 for h in get_ranker(ranker, chunks, embedder).rank(item["evidence"], k)]
            rows.append(
                {
                    "case": case,
                    "ranker": ranker,
                    "n_chunks": len(chunks),
                    "paper_top5": thesis,
                    "ours": ours,
                    "exact": ours == thesis,
                    "top2": ours[:2] == thesis[:2],
                    "chunk11_top3": (11 in ours[:3]) if case == 3 else None,
                    "embedder": name,
                }
            )
    return pd.DataFrame(rows)


def _name(embedder) -> str:
    """The embedder's spec; with none given, the default one :func:`lcrag.retrieval.get_ranker` builds."""
    if embedder is None:
        from lcrag.models.embeddings import get_embedder

        embedder = get_embedder()
    return str(embedder.name)


def embedding_sanity(embedder) -> pd.DataFrame:
    """The thesis's two cosine similarities (H16: ``paper_cosine``, with davinci-002), recomputed with ``embedder``
    (``ours``; its spec in ``embedder``)."""
    rows = []
    for (a, b), thesis in THESIS_SANITY.items():
        va, vb = embedder.embed([a, b])
        rows.append({"a": a, "b": b, "paper_cosine": thesis, "ours": float(np.dot(va, vb)), "embedder": _name(embedder)})
    return pd.DataFrame(rows)
