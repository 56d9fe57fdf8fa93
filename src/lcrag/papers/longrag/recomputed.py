"""Checks recomputed from LongRAG's published tables (no model call): each count beside the inventory's.

- Table 1: the printed gains and averages recomputed (:func:`table1_gains`, :func:`table1_averages`);
- Table 3: pairwise strategy counts (:func:`strategy_pairwise`), the top strategy per cell (:func:`strategy_top`),
  the SFT gains (:func:`sft_gains`), E&F − Ext (:func:`ef_minus_ext`);
- Tables 12-14 with 3: the token ordering of claim C13 (:func:`token_order`);
- Tables 6-8: the best retrieval setting (:func:`best_settings`), 200*7 vs 500*3 (:func:`small_chunks_vs_large`),
  LongRAG vs its own vanilla RAG at each setting (:func:`longrag_vs_vanilla_settings`).

The expected counts (``*_EXPECTED``) are the inventory's (``../shared/papers/longrag.md``), not the paper's.
:func:`lcrag.papers.longrag.inventory.derived_checks` collects every check in one table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lcrag.papers.longrag.names import DATASETS, SETTINGS, SFT_LLMS, STRATEGIES
from lcrag.papers.longrag.published import paper_table1, paper_table3, paper_tables_6_8, paper_tables_12_14

#: Tolerance for "the recomputed value equals the printed one": the paper rounds to two decimals.
ROUNDING_TOL = 0.01 + 1e-9


def wide_table3(t3: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 3 as one row per (llm, sft, dataset) cell with one column per strategy, in printed order."""
    t3 = paper_table3() if t3 is None else t3
    wide = t3.pivot_table(index=["llm", "sft", "dataset"], columns="strategy", values="paper_f1", sort=False)
    return wide[list(STRATEGIES)]


def _cell_name(llm: str, sft: bool, dataset: str) -> str:
    return f"{llm} {'SFT' if sft else 'no-SFT'}/{dataset}"


def table1_gains() -> pd.DataFrame:
    """Every printed Table 1 gain next to the gain recomputed as LongRAG row − the same LLM's vanilla row.

    Columns: model, llm, dataset, paper_f1, paper_vanilla_f1, paper_gain (printed), paper_gain_recomputed,
    paper_gain_difference (recomputed − printed), within_rounding (|difference| <= 0.01).
    """
    t1 = paper_table1()
    vanilla = t1[t1["group"] == "vanilla RAG"].set_index(["llm", "dataset"])["paper_f1"]
    rows = t1[t1["paper_gain"].notna()].copy()
    rows["paper_vanilla_f1"] = [vanilla[(m, d)] for m, d in zip(rows["llm"], rows["dataset"], strict=True)]
    rows["paper_gain_recomputed"] = (rows["paper_f1"] - rows["paper_vanilla_f1"]).round(2)
    rows["paper_gain_difference"] = (rows["paper_gain_recomputed"] - rows["paper_gain"]).round(2)
    rows["within_rounding"] = rows["paper_gain_difference"].abs() <= ROUNDING_TOL
    cols = [
        "model",
        "llm",
        "dataset",
        "paper_f1",
        "paper_vanilla_f1",
        "paper_gain",
        "paper_gain_recomputed",
        "paper_gain_difference",
        "within_rounding",
    ]
    return rows[cols].reset_index(drop=True)


def table1_averages() -> pd.DataFrame:
    """Every printed Table 1 average next to the mean of the row's printed datasets (CFIC: two datasets).

    Columns: model, n_datasets, paper_average, paper_average_recomputed, paper_average_difference,
    within_rounding.
    """
    t1 = paper_table1()
    per = t1[t1["dataset"] != "average"].groupby("model", sort=False)["paper_f1"]
    printed = t1[t1["dataset"] == "average"].set_index("model")["paper_f1"]
    out = pd.DataFrame(
        {
            "n_datasets": per.count(),
            "paper_average": printed,
            "paper_average_recomputed": per.mean().round(2),
        }
    )
    out["paper_average_difference"] = (out["paper_average_recomputed"] - out["paper_average"]).round(2)
    out["within_rounding"] = out["paper_average_difference"].abs() <= ROUNDING_TOL
    return out.rename_axis("model").reset_index()


#: Pairwise comparisons of Table 3 and the inventory's counts of cells (of 33) where the first is higher.
PAIRWISE_EXPECTED: dict[tuple[str, str], int] = {
    ("Ext", "R&L"): 31,
    ("Ext", "R&B"): 32,
    ("E&F", "R&B"): 32,
    ("E&F", "R&L"): 31,
    ("E&F", "Fil"): 31,
    ("E&F", "Ext"): 20,
    ("R&L", "R&B"): 21,
    ("Fil", "R&B"): 20,
}


def strategy_pairwise(t3: pd.DataFrame | None = None) -> pd.DataFrame:
    """For each pair (a, b) of :data:`PAIRWISE_EXPECTED`: in how many Table 3 cells a > b, a = b, a < b.

    Columns: a, b, cells, a_higher, ties, a_lower, expected_a_higher (the inventory's count), agrees,
    exceptions (the cells where a is not higher, ``llm SFT|no-SFT/dataset``).
    """
    wide = wide_table3(t3)
    records = []
    for (a, b), expected in PAIRWISE_EXPECTED.items():
        diff = wide[a] - wide[b]
        higher = int((diff > 0).sum())
        exceptions = [_cell_name(*idx) for idx, d in diff.items() if not d > 0]
        records.append(
            {
                "a": a,
                "b": b,
                "cells": len(diff),
                "a_higher": higher,
                "ties": int((diff == 0).sum()),
                "a_lower": int((diff < 0).sum()),
                "expected_a_higher": expected,
                "agrees": higher == expected,
                "exceptions": "; ".join(exceptions),
            }
        )
    return pd.DataFrame(records)


#: Cells (of 33) where each strategy is the highest in Table 3, ties counted for every tied strategy.
TOP_EXPECTED = {"R&B": 0, "R&L": 2, "Ext": 11, "Fil": 2, "E&F": 20}


def strategy_top(t3: pd.DataFrame | None = None) -> pd.DataFrame:
    """How often each strategy is the highest of the five in a Table 3 cell (ties count for each tied one).

    Columns: strategy, cells_top, cells, expected_cells_top (inventory), agrees, cells_list.
    """
    wide = wide_table3(t3)
    top = wide.eq(wide.max(axis=1), axis=0)
    return pd.DataFrame(
        {
            "strategy": list(STRATEGIES),
            "cells_top": [int(top[s].sum()) for s in STRATEGIES],
            "cells": len(wide),
            "expected_cells_top": [TOP_EXPECTED[s] for s in STRATEGIES],
            "agrees": [int(top[s].sum()) == TOP_EXPECTED[s] for s in STRATEGIES],
            "cells_list": ["; ".join(_cell_name(*i) for i in top.index[top[s]]) for s in STRATEGIES],
        }
    )


def sft_gains(t3: pd.DataFrame | None = None, strategy: str = "E&F") -> pd.DataFrame:
    """Gain from LRGinstruction SFT for each small model: Table 3 ``strategy`` with SFT − without SFT.

    Columns: llm, dataset, paper_f1_sft, paper_f1_no_sft, paper_sft_gain.
    """
    t3 = paper_table3() if t3 is None else t3
    cell = t3[t3["strategy"] == strategy].set_index(["llm", "sft", "dataset"])["paper_f1"]
    records = [
        {
            "llm": llm,
            "dataset": d,
            "paper_f1_sft": cell[(llm, True, d)],
            "paper_f1_no_sft": cell[(llm, False, d)],
        }
        for llm in SFT_LLMS
        for d in DATASETS
    ]
    out = pd.DataFrame(records)
    out["paper_sft_gain"] = (out["paper_f1_sft"] - out["paper_f1_no_sft"]).round(2)
    return out


#: The models the paper calls good at instruction following when it says the filter helps them (C12).
INSTRUCTION_FOLLOWING = ("GLM-4 no-SFT", *(f"{m} SFT" for m in SFT_LLMS))


def ef_minus_ext(t3: pd.DataFrame | None = None) -> pd.DataFrame:
    """E&F − Ext per Table 3 cell (what adding the filter to the extractor gives), claim C12.

    Columns: llm, sft, dataset, paper_ef_minus_ext, instruction_following (GLM-4 and the SFT models, the
    paper's examples of strong instruction followers).
    """
    wide = wide_table3(t3).reset_index()
    wide["paper_ef_minus_ext"] = (wide["E&F"] - wide["Ext"]).round(2)
    label = wide["llm"] + np.where(wide["sft"], " SFT", " no-SFT")
    wide["instruction_following"] = label.isin(INSTRUCTION_FOLLOWING)
    return wide[["llm", "sft", "dataset", "paper_ef_minus_ext", "instruction_following"]]


#: C13's order of generator input tokens, smallest first.
TOKEN_ORDER: tuple[str, ...] = ("Fil", "E&F", "R&B", "Ext", "R&L")


def token_order(t12: pd.DataFrame | None = None, t3: pd.DataFrame | None = None) -> pd.DataFrame:
    """Claim C13 per SFT model x dataset: tokens(Fil) < tokens(E&F) < tokens(R&B) < tokens(Ext) < tokens(R&L)
    (Tables 12-14) and F1(E&F) > F1(R&B) (Table 3, SFT rows).

    Columns: llm, dataset, paper_tokens_<strategy> ..., tokens_in_order, paper_f1_ef, paper_f1_rb,
    ef_beats_rb, holds.
    """
    t12 = paper_tables_12_14() if t12 is None else t12
    tokens = t12.pivot_table(index=["llm", "dataset"], columns="strategy", values="paper_tokens", sort=False)
    f1 = wide_table3(t3).xs(True, level="sft")
    records = []
    for (llm, dataset), row in tokens.iterrows():
        seq = [row[s] for s in TOKEN_ORDER]
        rec = {"llm": llm, "dataset": dataset}
        rec.update({f"paper_tokens_{s}": int(row[s]) for s in STRATEGIES})
        rec["tokens_in_order"] = all(x < y for x, y in zip(seq, seq[1:], strict=False))
        rec["paper_f1_ef"] = f1.loc[(llm, dataset), "E&F"]
        rec["paper_f1_rb"] = f1.loc[(llm, dataset), "R&B"]
        rec["ef_beats_rb"] = bool(rec["paper_f1_ef"] > rec["paper_f1_rb"])
        rec["holds"] = rec["tokens_in_order"] and rec["ef_beats_rb"]
        records.append(rec)
    return pd.DataFrame(records)


def _longrag_settings(t68: pd.DataFrame | None) -> pd.DataFrame:
    """Tables 6-8 LongRAG rows as one row per (llm, dataset) with one column per setting."""
    t68 = paper_tables_6_8() if t68 is None else t68
    rows = t68[t68["longrag"]]
    return rows.pivot_table(index=["llm", "dataset"], columns="setting", values="paper_f1", sort=False)[
        list(SETTINGS)
    ]


#: Inventory: LongRAG rows (of 7) whose best retrieval setting is each setting, per dataset.
BEST_SETTING_EXPECTED = {
    ("hotpotqa", "200*7"): 6,
    ("hotpotqa", "500*5"): 1,
    ("2wikimqa", "200*12"): 4,
    ("2wikimqa", "200*7"): 3,
    ("musique", "200*12"): 6,
    ("musique", "200*7"): 1,
}


def best_settings(t68: pd.DataFrame | None = None) -> pd.DataFrame:
    """For each dataset and setting: in how many of the 7 LongRAG rows of Tables 6-8 it gives the best F1.

    Columns: dataset, setting, rows_best, rows, expected_rows_best (inventory), agrees.
    """
    wide = _longrag_settings(t68)
    best = wide.idxmax(axis=1)
    records = []
    for d in DATASETS:
        in_d = best.xs(d, level="dataset")
        for s in SETTINGS:
            n = int((in_d == s).sum())
            expected = BEST_SETTING_EXPECTED.get((d, s), 0)
            records.append(
                {
                    "dataset": d,
                    "setting": s,
                    "rows_best": n,
                    "rows": len(in_d),
                    "expected_rows_best": expected,
                    "agrees": n == expected,
                }
            )
    return pd.DataFrame(records)


def small_chunks_vs_large(
    t68: pd.DataFrame | None = None, a: str = "200*7", b: str = "500*3"
) -> pd.DataFrame:
    """Claim C16a: LongRAG rows (Tables 6-8) where setting ``a`` beats ``b`` (similar context length).

    Columns: dataset, rows_a_higher, rows, exceptions.
    """
    wide = _longrag_settings(t68)
    records = []
    for d in DATASETS:
        in_d = wide.xs(d, level="dataset")
        wins = in_d[a] > in_d[b]
        records.append(
            {
                "dataset": d,
                "rows_a_higher": int(wins.sum()),
                "rows": len(in_d),
                "exceptions": "; ".join(in_d.index[~wins]),
            }
        )
    return pd.DataFrame(records)


def longrag_vs_vanilla_settings(t68: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every Tables 6-8 cell of a LongRAG row next to the same LLM's vanilla row at the same setting.

    Columns: llm, sft, dataset, setting, paper_f1_longrag, paper_f1_vanilla, longrag_higher.
    """
    t68 = paper_tables_6_8() if t68 is None else t68
    vanilla = t68[~t68["longrag"]].set_index(["llm", "dataset", "setting"])["paper_f1"]
    out = t68[t68["longrag"]][["llm", "sft", "dataset", "setting", "paper_f1"]].rename(
        columns={"paper_f1": "paper_f1_longrag"}
    )
    keys = zip(out["llm"], out["dataset"], out["setting"], strict=True)
    out["paper_f1_vanilla"] = [vanilla[k] for k in keys]
    out["longrag_higher"] = out["paper_f1_longrag"] > out["paper_f1_vanilla"]
    return out.reset_index(drop=True)

