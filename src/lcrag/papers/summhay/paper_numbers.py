"""The paper's numbers (Laban et al. 2024, arXiv:2407.01370v1), read from ``tables/*.csv`` in the shapes the chapter uses.

Each value is typed once, in a CSV under ``lcrag/papers/summhay/tables/`` with the table, figure or section it was
printed in (:func:`lcrag.papers.tables.paper_table`); this module only reshapes them. Scores are on the 0-100 scale;
None = "–" (not run). They are shown only in columns named ``paper*``, never used to compute an "ours" value.

- :data:`PAPER_TABLE2`, :data:`PAPER_HUMAN`, :data:`PAPER_WORDS_PER_BULLET`: Table 2 (``table2.csv``,
  ``table2_words_per_bullet.csv``); :func:`paper_table2` in long form;
- :data:`PAPER_TABLE1`, :data:`PAPER_TABLE3`, :data:`PAPER_TABLE4` (with :data:`PAPER_TABLE4_TWO_DECIMALS`),
  :data:`PAPER_TABLE5`: Tables 1, 3, 4, 5;
- :data:`PAPER_SHAPE` (§1, §3.2, §3.4) and :data:`PAPER_INSIGHTS` (Table 2's pool), :data:`PAPER_ORACLE_CEILING` (§6);
- :data:`WORKED_EXAMPLE_SCORES`, :data:`WORKED_EXAMPLE_DOCUMENTS`: Fig. 2 and Fig. 4;
- :data:`RELEASED_COST_PER_SUMMARY`: not the paper's, the released ``Eval_Benchmarking.ipynb``'s cost per summary;
- the chapter's sentences that state the paper's numbers, written from the tables (:func:`shape_sentence`,
  :func:`tokens_sentence`, :func:`table1_note`, :func:`table4_conclusions`, :func:`judge_question`,
  :func:`ceiling_sentence`).
"""

from __future__ import annotations

import pandas as pd

from lcrag.papers.summhay.names import (
    PAPER_COLUMNS,
    PAPER_SETTING,
    PAPER_SETTING_LITERAL,
    SUMMARIZERS,
    TABLE4_EVALUATORS,
)
from lcrag.papers.tables import printed_table

PAPER = "summhay"
#: How the paper prints a value it does not have ("not run").
NOT_RUN = "–"


def _value(text: str) -> float | None:
    return None if text == NOT_RUN else float(text)


def _by_metric(table: pd.DataFrame, columns) -> dict[str, dict[str, tuple]]:
    """``{metric: {summarizer: (value per column)}}``, in the file's row order."""
    out: dict[str, dict[str, tuple]] = {}
    for r in table.to_dict("records"):
        out.setdefault(r["metric"], {})[r["summarizer"]] = tuple(_value(r[c]) for c in columns)
    return out


_T2 = printed_table(PAPER, "table2")
_T2_HUMAN = _T2["summarizer"] == "human"
_WB = printed_table(PAPER, "table2_words_per_bullet").set_index("summarizer")["words_per_bullet"]

#: Table 2: ``{metric: {summarizer: (Rand, Vect, LongE, KWs, RR3, Orac, Full)}}`` (the printed headers,
#: :data:`~lcrag.papers.summhay.names.PAPER_COLUMNS`), without the Human Perf. row.
PAPER_TABLE2: dict[str, dict[str, tuple]] = _by_metric(_T2[~_T2_HUMAN], PAPER_COLUMNS)
#: Table 2, Human Perf. row (Oracle setting) and #Wb column (words per bullet).
PAPER_HUMAN = {
    **{r["metric"]: float(r["Orac"]) for r in _T2[_T2_HUMAN].to_dict("records")},
    "words_per_bullet": float(_WB["human"]),
}
PAPER_WORDS_PER_BULLET = {s: float(v) for s, v in _WB.drop("human").items()}

#: Table 5: citation precision and recall, (Oracle, Full).
PAPER_TABLE5: dict[str, dict[str, tuple]] = _by_metric(printed_table(PAPER, "table5"), ("Orac", "Full"))

#: Table 3: Joint in the full-context setting by document order (Top, Bottom, Random) and the sensitivity.
PAPER_TABLE3 = {
    r["summarizer"]: tuple(float(r[c]) for c in ("Top", "Bottom", "Random", "Sensitivity"))
    for r in printed_table(PAPER, "table3").to_dict("records")
}

#: Table 1: (coverage correlation with humans, linking accuracy %, cost of the 200 summaries in USD).
PAPER_TABLE1 = {
    r["evaluator"]: tuple(float(r[c]) for c in ("cov_corr", "link_acc", "cost_usd"))
    for r in printed_table(PAPER, "table1").to_dict("records")
}

_T4 = printed_table(PAPER, "table4").to_dict("records")
#: Table 4: mean (auto - human) coverage per summarizer, for the evaluators
#: :data:`~lcrag.papers.summhay.names.TABLE4_EVALUATORS` (GPT-4o, Claude 3 Opus, Gemini-1.5-pro).
PAPER_TABLE4 = {r["row"]: tuple(float(r[e]) for e in TABLE4_EVALUATORS) for r in _T4}
#: The Table 4 values printed with two decimals rather than three (compared at that precision).
PAPER_TABLE4_TWO_DECIMALS = {
    (r["row"], e) for r in _T4 for e in TABLE4_EVALUATORS if len(r[e].partition(".")[2]) == 2
}

#: §3.4 and §1 of the paper: the benchmark's shape (integers where printed as such).
PAPER_SHAPE = {
    r["quantity"]: int(r["value"]) if r["value"].isdigit() else float(r["value"])
    for r in printed_table(PAPER, "shape").to_dict("records")
}

#: The insights Table 2 pools: the subtopics times the insights per subtopic (§3.4).
PAPER_INSIGHTS = round(PAPER_SHAPE["subtopics"] * PAPER_SHAPE["insights per subtopic"])

#: §6: best citation F1 within a 15k-token Oracle context (cl100k_base tokens).
PAPER_ORACLE_CEILING = float(printed_table(PAPER, "oracle_ceiling")["value"].iloc[0])

#: Not the paper's: the released ``Eval_Benchmarking.ipynb`` cost of evaluating one summary, in USD.
RELEASED_COST_PER_SUMMARY = {
    r["evaluator"]: float(r["cost_usd"]) for r in printed_table(PAPER, "released_cost_per_summary").to_dict("records")
}

#: The scores printed with the worked examples of Fig. 2 and Fig. 4: ``{example: {metric: score}}``.
WORKED_EXAMPLE_SCORES = {
    r["example"]: {m: int(r[m]) for m in ("coverage", "citation", "joint")}
    for r in printed_table(PAPER, "worked_example_scores").to_dict("records")
}
#: The reference documents of each insight of Fig. 2 and Fig. 4, as printed: ``{figure: {insight: ids}}``.
WORKED_EXAMPLE_DOCUMENTS: dict[str, dict[str, tuple[int, ...]]] = {}
for _r in printed_table(PAPER, "worked_example_documents").to_dict("records"):
    WORKED_EXAMPLE_DOCUMENTS.setdefault(_r["figure"], {})[_r["insight"]] = tuple(map(int, _r["documents"].split()))
del _r


def paper_table2(swap: bool = True) -> pd.DataFrame:
    """Table 2 in long form: summarizer, setting, metric, paper (0-100), paper_column (the printed header)."""
    mapping = PAPER_SETTING if swap else PAPER_SETTING_LITERAL
    rows = [
        {"summarizer": s, "setting": mapping[col], "metric": metric, "paper": v, "paper_column": col}
        for metric, by_summarizer in PAPER_TABLE2.items()
        for s, values in by_summarizer.items()
        for col, v in zip(PAPER_COLUMNS, values, strict=True)
        if v is not None
    ]
    return pd.DataFrame(rows)


# ============================================================================================ the chapter's sentences


def shape_sentence() -> str:
    """The introduction's sentence on the benchmark's size (§1, §3.4)."""
    return (f"The paper's {PAPER_SHAPE['haystacks']} haystacks, half of conversations and half of news articles, "
            f"hold about {PAPER_SHAPE['documents per haystack']} synthetic documents each.")


def tokens_sentence() -> str:
    """Section 1's sentence on the paper's token count per haystack (§3.4)."""
    return (f"The paper counts about {PAPER_SHAPE['tokens per haystack (mean)'] / 1000:.0f}k tokens per haystack "
            "without naming a tokenizer; we count in OpenAI's `cl100k_base`, the released code's "
            "(`lcrag.models.tiktoken_files`), or in the model's own, not comparable, where it cannot be fetched: the "
            "check above names which.")


def table1_note(n_summaries: int) -> str:
    """Section 4's note on Table 1's costs (the released cost per summary x ``n_summaries``, beside the printed
    one where they differ after rounding) and its Manual Annot. row."""
    misprinted = []
    for evaluator, per_summary in RELEASED_COST_PER_SUMMARY.items():
        cost, printed = per_summary * n_summaries, PAPER_TABLE1[evaluator][2]
        if round(cost, 1) != printed:
            misprinted.append(f"{SUMMARIZERS.get(evaluator, evaluator)}'s comes to \\${cost:.2f} (\\${cost:.1f} "
                              f"rounded), where the paper prints \\${printed:.1f}")
    prints = f"; {', and '.join(misprinted)}" if misprinted else ", as the paper prints them"
    corr, link, _ = PAPER_TABLE1["Manual Annot."]
    return (f"The costs are the released notebook's cost per summary × {n_summaries}{prints}. The Manual Annot. row "
            f"({corr:.3f}, {link:.1f}) comes from 35 summaries annotated by four people, which are not released.")


def table4_conclusions(table4_cmp: pd.DataFrame) -> str:
    """Section 4's sentence on Table 4's conclusions: the range of the judges' mean bias (points, 0-100) in the
    released file (``ours`` of :func:`lcrag.papers.summhay.evaluator_study.compare_table4`) and in the paper."""
    ours = 100 * table4_cmp.loc[table4_cmp["row"] == "Average", "ours"]
    paper = [100 * x for x in PAPER_TABLE4["Average"]]
    return ("On the released file, every judge over-estimates coverage on average "
            f"(by {ours.min():.1f}–{ours.max():.1f} points rather than {min(paper):.1f}–{max(paper):.1f}) and no "
            "model family is favoured; the file has too few summaries to show length unrelated to Δ (C17).")


def judge_question() -> str:
    """Section 5's question: how far a judge without an LLM is from GPT-4o's coverage correlation (Table 1)."""
    return f"How far is a judge that needs no LLM from GPT-4o's {PAPER_TABLE1['gpt-4o'][0]:.3f}?"


def ceiling_sentence() -> str:
    """Section 6's sentence on the paper's Oracle citation ceiling (§6)."""
    return ("**The Oracle citation ceiling** (claim C18). The paper says the best citation F1 a summary can reach "
            f"within a 15k-token Oracle context is {PAPER_ORACLE_CEILING:g}: the context holds only part of each "
            "insight's documents.")
