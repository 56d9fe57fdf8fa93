"""The inventory's derived counts (``../shared/papers/longrag.md`` §4-5), recomputed from the paper's tables.

:func:`derived_checks` puts every count the inventory derives from LongRAG's tables beside the value recomputed
here (:mod:`lcrag.papers.longrag.recomputed`); the inventory's own tables of SFT gains and of E&F − Ext are
:data:`INVENTORY_SFT_GAINS` and :data:`INVENTORY_EF_MINUS_EXT`, its recomputed Table 1 gains
:data:`INVENTORY_TABLE1_GAINS`, read from ``tables/inventory.csv``. No model call.
"""

from __future__ import annotations

import pandas as pd

from lcrag.papers.longrag.published import PAPER
from lcrag.papers.longrag.recomputed import (
    best_settings,
    ef_minus_ext,
    longrag_vs_vanilla_settings,
    sft_gains,
    small_chunks_vs_large,
    strategy_pairwise,
    strategy_top,
    table1_averages,
    table1_gains,
    token_order,
)
from lcrag.papers.tables import printed_table

#: How a check's detail begins when its expected value is not the inventory's but corrected from the paper's text
#: (the inventory misread a printed cell; ``../shared/papers/longrag.md`` is left as it is).
CORRECTED = "expected value corrected from the paper's text"


def _inventory(quantity: str) -> dict[tuple[str, str], float]:
    """The inventory's values of ``quantity`` (``tables/inventory.csv``): (model, dataset) -> F1 points."""
    t = printed_table(PAPER, "inventory")
    t = t[t["quantity"] == quantity]
    return {(m, d): float(v) for m, d, v in zip(t["model"], t["dataset"], t["value"], strict=True)}


#: The inventory's tables of SFT gains (E&F, SFT − no SFT) and of E&F − Ext (C12), to check them against.
INVENTORY_SFT_GAINS = _inventory("SFT gain")
INVENTORY_EF_MINUS_EXT = _inventory("E&F - Ext")
#: The two Table 1 average gains the inventory recomputes 0.01 away from the printed ones.
INVENTORY_TABLE1_GAINS = _inventory("Table 1 average gain")
#: How the inventory's note on Table 1 names their models.
SHORT_NAMES = {"Qwen1.5-7B-32k": "Qwen", "ChatGLM3-6B-32k": "ChatGLM3"}


def derived_checks() -> pd.DataFrame:
    """Every count the inventory derives from the paper's tables, recomputed: check, inventory_expected,
    recomputed_from_paper, agrees, detail. One row per check; the details name the exception cells."""
    rows: list[dict] = []

    def add(check: str, expected, recomputed, detail: str = "") -> None:
        rows.append(
            {
                "check": check,
                "inventory_expected": expected,
                "recomputed_from_paper": recomputed,
                "agrees": expected == recomputed,
                "detail": detail,
            }
        )

    gains = table1_gains()
    printed = gains.set_index(["llm", "dataset"])["paper_gain"]  # the gains as Table 1 prints them
    off = gains[gains["paper_gain_difference"] != 0]
    n_ok = int(gains["within_rounding"].sum())
    add("Table 1 gains within 0.01 of recomputed (21 cells + 7 averages)", 28, n_ok)
    add(
        "Table 1 gains that differ from the recomputed ones by 0.01",
        2,
        len(off),
        "inventory: " + ", ".join(f"{SHORT_NAMES[llm]} avg {v:.2f} vs {printed[llm, d]:.2f}"
                                  for (llm, d), v in INVENTORY_TABLE1_GAINS.items()) + "; recomputed: "
        + "; ".join(
            f"{r.llm} {r.dataset} {r.paper_gain_recomputed:.2f} vs printed {r.paper_gain:.2f}"
            for r in off.itertuples()
        ),
    )
    top = gains.loc[gains.groupby("dataset", sort=False)["paper_gain"].idxmax()]
    add(
        "Table 1 largest printed gain per column (the paper underlines it; formatting lost)",
        "Vicuna-v1.5-7B-16k on every column",
        "; ".join(f"{r.llm} on {r.dataset} ({r.paper_gain:.2f})" for r in top.itertuples()),
        f"{CORRECTED}: the inventory's note on Table 1 names Llama3-8B-8k on musique "
        f"({printed['Llama3-8B-8k', 'musique']:.2f}), but Table 1 prints " + " and ".join(
            f"{r.model} {r.paper_f1:.2f}({r.paper_gain:.2f}↑)" for r in gains[
                (gains["dataset"] == "musique") & gains["llm"].isin(["Vicuna-v1.5-7B-16k", "Llama3-8B-8k"])
            ].itertuples()) + " on musique",
    )
    rows[-1]["agrees"] = bool((top["llm"] == "Vicuna-v1.5-7B-16k").all())
    avgs = table1_averages()
    add(
        "Table 1 averages within 0.01 of recomputed",
        len(avgs),
        int(avgs["within_rounding"].sum()),
        "; ".join(
            f"{r.model} {r.paper_average_recomputed:.2f} vs {r.paper_average:.2f}"
            for r in avgs.itertuples()
            if r.paper_average_difference != 0
        ),
    )
    for r in strategy_pairwise().itertuples():
        add(
            f"Table 3: {r.a} > {r.b} (of 33 cells)",
            r.expected_a_higher,
            r.a_higher,
            f"not higher: {r.exceptions}",
        )
    for r in strategy_top().itertuples():
        add(f"Table 3: {r.strategy} top, ties counted (of 33)", r.expected_cells_top, r.cells_top)
    fil = strategy_pairwise().set_index(["a", "b"]).loc[("Fil", "R&B")]
    add("Table 3: Fil >= R&B (of 33 cells)", 23, int(fil["a_higher"] + fil["ties"]))
    sg = sft_gains()
    add(
        "SFT gains of E&F positive (of 12)",
        12,
        int((sg["paper_sft_gain"] > 0).sum()),
        f"range {sg['paper_sft_gain'].min():+.2f} to {sg['paper_sft_gain'].max():+.2f} (inventory "
        f"{min(INVENTORY_SFT_GAINS.values()):+.2f} to {max(INVENTORY_SFT_GAINS.values()):+.2f})",
    )
    got = {(r.llm, r.dataset): r.paper_sft_gain for r in sg.itertuples()}
    add(
        "SFT gain values equal the inventory's table (of 12)",
        12,
        sum(abs(got[k] - v) < 1e-9 for k, v in INVENTORY_SFT_GAINS.items()),
    )
    em = ef_minus_ext()
    got = {
        (f"{r.llm} {'SFT' if r.sft else 'no-SFT'}", r.dataset): r.paper_ef_minus_ext for r in em.itertuples()
    }
    add(
        "C12 E&F − Ext values equal the inventory's table (of 15)",
        15,
        sum(abs(got[k] - v) < 1e-9 for k, v in INVENTORY_EF_MINUS_EXT.items()),
    )
    for r in best_settings().itertuples():
        if r.expected_rows_best or r.rows_best:
            add(
                f"Tables 6-8 {r.dataset}: {r.setting} best LongRAG setting (of 7)",
                r.expected_rows_best,
                r.rows_best,
            )
    sc = small_chunks_vs_large()
    add(
        "Tables 6-8: 200*7 > 500*3 for LongRAG rows (of 21)",
        19,
        int(sc["rows_a_higher"].sum()),
        "; ".join(f"{r.dataset} {r.rows_a_higher}/7" for r in sc.itertuples()),
    )
    lv = longrag_vs_vanilla_settings()
    fails = lv[~lv["longrag_higher"]]
    add(
        "Tables 6-8: LongRAG not above its own vanilla (of 84 cells)",
        3,
        len(fails),
        "; ".join(
            f"{r.dataset} {r.llm} {r.setting} ({r.paper_f1_longrag:.2f} vs {r.paper_f1_vanilla:.2f})"
            for r in fails.itertuples()
        ),
    )
    to = token_order()
    add("C13 token order and E&F > R&B (SFT model x dataset, of 12)", 12, int(to["holds"].sum()))
    return pd.DataFrame(rows)


def disagreements_markdown(checks: pd.DataFrame) -> str:
    """The checks of :func:`derived_checks` whose recomputed value disagrees with the inventory's, in full (a table
    cell would cut them): one bullet each with both values and the detail, or a sentence saying that all agree."""
    bad = checks[~checks["agrees"].astype(bool)]
    fixed = checks[checks["detail"].astype(str).str.startswith(CORRECTED)] if "detail" in checks else checks[:0]
    corrected = "".join(f" **{r.check}**: {r.detail}." for r in fixed.itertuples())
    if len(fixed):
        corrected = (" One expected value is not the inventory's:" if len(fixed) == 1
                     else f" {len(fixed)} expected values are not the inventory's:") + corrected
    if bad.empty:
        return f"All {len(checks)} checks agree with the inventory.{corrected}"
    items = [f"- **{r.check}**: the inventory expects {r.inventory_expected}; the paper's tables give "
             f"{r.recomputed_from_paper}" + (f" ({r.detail})" if str(r.detail or "") else "") + "."
             for r in bad.itertuples()]
    head = (f"{len(bad)} of the {len(checks)} checks disagree with the inventory:" if len(bad) > 1
            else f"1 of the {len(checks)} checks disagrees with the inventory:")
    tail = ("Each recomputed value is read from the paper's own tables (transcribed in "
            "`lcrag/papers/longrag/tables/`), so a disagreement points at the inventory's reading of the paper, "
            "unless a cell was transcribed wrong: the detail names the cells to check against the paper.")
    return "\n".join([head, "", *items, "", tail + corrected])
