"""What arithmetic on Long²RAG's own tables shows, and the paper's internal inconsistencies. No model call.

- :func:`derived_checks`: Table 1's Average against the question-weighted mean of its categories (within the
  inventory's :data:`AVERAGE_TOL`) and the unweighted mean (too high) (:func:`table1_averages`), Table 3's rank
  correlations and the evaluator gap (:func:`table3_correlations`), and Table 4's KPF against the harmonic mean of
  the printed KPP and KPR (:func:`table4_kpf`), each beside the inventory's value
  (:data:`lcrag.papers.long2rag.numbers.INVENTORY_DERIVED`).
- :func:`inconsistencies`: the inventory's 13 internal inconsistencies, each with where it is.
- :func:`category_table`: our items per question category beside Fig. 11's counts.
"""

from __future__ import annotations

import pandas as pd
from scipy.stats import kendalltau, pearsonr, spearmanr

from lcrag.data.long2rag import CATEGORIES
from lcrag.metrics.kpr import f1
from lcrag.papers.long2rag.numbers import (
    INVENTORY_DERIVED,
    PAPER_CATEGORY_COUNTS,
    PAPER_NUMBERS,
    paper_table1_wide,
    paper_table2,
    paper_table3,
    paper_table4,
)

#: Half a unit of the third decimal: a value printed with three decimals (Table 1, the inventory) is within this of
#: the value it rounds.
HALF_UNIT = 0.0005
#: Table 1 rounds to three decimals; "equal" means within this.
ROUNDING_TOL = HALF_UNIT + 1e-9
#: The inventory's tolerance for "Average = question-weighted mean of the categories".
AVERAGE_TOL = INVENTORY_DERIVED["Table 1 Average tolerance"]

# ============================================================================================ derived checks


def table1_averages() -> pd.DataFrame:
    """Per model: printed Average, the question-weighted mean of the 8 categories (Fig. 11 counts), the unweighted
    mean, and whether the weighted one is within :data:`AVERAGE_TOL` of the printed Average."""
    t = paper_table1_wide()
    w = pd.Series(PAPER_CATEGORY_COUNTS)
    cats = list(CATEGORIES)
    out = pd.DataFrame(
        {
            "model": t.index,
            "paper_average": t["Average"].to_numpy(),
            "weighted_mean": (t[cats] * w[cats]).sum(axis=1).to_numpy() / w.sum(),
            "unweighted_mean": t[cats].mean(axis=1).to_numpy(),
        }
    )
    out["weighted_diff"] = out["weighted_mean"] - out["paper_average"]
    out["unweighted_diff"] = out["unweighted_mean"] - out["paper_average"]
    out["weighted_within_tol"] = out["weighted_diff"].abs() <= AVERAGE_TOL
    return out


def table3_correlations() -> dict:
    """The number of Table 3's models (``models``: 9); Spearman, Kendall and Pearson between the two evaluators' KPR
    over them; the mean gap
    (Llama3-70B minus GPT-4o), whether Llama3 is higher for every model, and the rank swaps."""
    t = paper_table3()
    swaps = t[t["rank_gpt4o"] != t["rank_llama3"]]["model"].tolist()
    gap = t["paper_llama3"] - t["paper_gpt4o"]
    return {
        "models": len(t),
        "spearman": float(spearmanr(t["paper_gpt4o"], t["paper_llama3"]).statistic),
        "kendall": float(kendalltau(t["paper_gpt4o"], t["paper_llama3"]).statistic),
        "pearson": float(pearsonr(t["paper_gpt4o"], t["paper_llama3"]).statistic),
        "mean_gap": float(gap.mean()),
        "min_gap": float(gap.min()),
        "max_gap": float(gap.max()),
        "llama_higher_all": bool((gap > 0).all()),
        "swapped": swaps,
    }


def table4_kpf() -> pd.DataFrame:
    """Table 4's KPF next to the harmonic mean of its printed KPP and KPR (they differ: KPF is not the F1 of the
    averages, so presumably the mean of per-question F1s)."""
    t = paper_table4()
    t["f1_of_printed"] = [f1(p, r) for p, r in zip(t["paper_kpp"], t["paper_kpr"], strict=True)]
    t["diff"] = t["paper_kpf"] - t["f1_of_printed"]
    t["kpf_is_f1_of_means"] = t["diff"].abs() <= ROUNDING_TOL * 4
    return t


def _beside(ours: float, inventory: float, spec: str = ".3f") -> tuple[str, str, bool]:
    """Ours and the inventory's value, each written in ``spec``, and whether ours rounds to it (within
    :data:`HALF_UNIT`)."""
    return format(ours, spec), format(inventory, spec), bool(abs(ours - inventory) < HALF_UNIT)


def derived_checks() -> pd.DataFrame:
    """Every derived check as a row: check, ours (recomputed from the tables), expected (the value the paper
    prints, or what its text or the paper inventory says the tables show), agrees (within the stated tolerance)."""
    av = table1_averages()
    t3 = table3_correlations()
    t4 = table4_kpf().set_index("model")
    t2 = paper_table2().set_index(["model", "variant"])["paper_kpr"]
    t1 = paper_table1_wide()
    n_questions = PAPER_NUMBERS["questions"]
    qwen_untruncated = f"{t2[('Qwen2-72B', 'none')]:.3f} vs {t1.loc['Qwen2-72B', 'Average']:.3f}"
    inv = INVENTORY_DERIVED
    rows = [
        (f"Table 1: Average = question-weighted mean of categories (all 9 models, within {AVERAGE_TOL:g})",
         f"max |diff| {av['weighted_diff'].abs().max():.4f}",
         f"<= {AVERAGE_TOL:g} (max {inv['Table 1 largest weighted residual (GPT-4-Turbo)']:g}, GPT-4-Turbo)",
         bool(av["weighted_within_tol"].all())),
        ("Table 1: the unweighted mean of categories is above the printed Average for every model (so the "
         "Average is not it)", f"{av['unweighted_diff'].min():+.4f} to {av['unweighted_diff'].max():+.4f}",
         f"all above (the inventory says by {inv['Table 1 unweighted mean above Average (least)']:g} to "
         f"{inv['Table 1 unweighted mean above Average (most)']:g}; Mixtral-8x22B's and Mistral-7B's rows give more)",
         bool(av["unweighted_diff"].min() > 0.005)),
        ("Table 1: the largest weighted residual is GPT-4-Turbo's",
         av.loc[av["weighted_diff"].abs().idxmax(), "model"], "GPT-4-Turbo",
         av.loc[av["weighted_diff"].abs().idxmax(), "model"] == "GPT-4-Turbo"),
        (f"Fig. 11: category counts sum to {n_questions}", str(sum(PAPER_CATEGORY_COUNTS.values())),
         str(n_questions), sum(PAPER_CATEGORY_COUNTS.values()) == n_questions),
        ("Table 3: Spearman rho between evaluators", *_beside(t3["spearman"], inv["Table 3 Spearman rho"])),
        ("Table 3: Kendall tau", *_beside(t3["kendall"], inv["Table 3 Kendall tau"])),
        ("Table 3: Pearson r", *_beside(t3["pearson"], inv["Table 3 Pearson r"])),
        ("Table 3: mean gap Llama3-70B - GPT-4o",
         *_beside(t3["mean_gap"], inv["Table 3 mean gap Llama3-70B - GPT-4o"], "+.3f")),
        ("Table 3: only rank swap Claude-3-Sonnet <-> GPT-4-Turbo", ", ".join(t3["swapped"]),
         "Claude-3-Sonnet, GPT-4-Turbo", sorted(t3["swapped"]) == ["Claude-3-Sonnet", "GPT-4-Turbo"]),
        *((f"Table 4: F1 of printed KPP/KPR ({name}) vs KPF {t4.loc[model, 'paper_kpf']:.3f}",
           *_beside(t4.loc[model, "f1_of_printed"], inv[f"Table 4 F1 of printed KPP and KPR ({model})"]))
          for model, name in (("GPT-4o", "GPT-4o"), ("Phi-3-mini-128K", "Phi-3"))),
        ("Table 4: KPF is not the harmonic mean of the printed KPP and KPR", str(not t4["kpf_is_f1_of_means"].any()),
         "True", not t4["kpf_is_f1_of_means"].any()),
        # the paper's two printings of one number, put side by side: ours and expected are the same text
        ("Table 2 vs Tables 1/3: Qwen2-72B untruncated KPR", qwen_untruncated, qwen_untruncated,
         t2[("Qwen2-72B", "none")] != t1.loc["Qwen2-72B", "Average"]),
        ("Table 2: GPT-4o untruncated = Table 1 Average", f"{t2[('GPT-4o', 'none')]:.3f}",
         f"{t1.loc['GPT-4o', 'Average']:.3f}", t2[("GPT-4o", "none")] == t1.loc["GPT-4o", "Average"]),
    ]
    return pd.DataFrame(rows, columns=["check", "ours", "expected", "agrees"])


# ============================================================================================ inconsistencies


def inconsistencies() -> pd.DataFrame:
    """The inventory's 13 internal inconsistencies: what, one statement, the other (the numbers read from the
    tables)."""
    n, t1, t4 = PAPER_NUMBERS, paper_table1_wide()["Average"], table4_kpf().set_index("model")
    qwen_untruncated = paper_table2().set_index(["model", "variant"]).loc[("Qwen2-72B", "none"), "paper_kpr"]
    kpf = "; ".join(f"{t4.loc[m, 'paper_kpf']:.3f} vs {t4.loc[m, 'f1_of_printed']:.3f}"
                    for m in ("GPT-4o", "Phi-3-mini-128K"))
    counts = PAPER_CATEGORY_COUNTS.values()
    rows = (
        ("Average document length", f"{n['words per document (abstract)']:,} words (Abstract, §1)",
         f"{n['words per document (footnote 6)']:,} words (footnote 6, Fig. 12)"),
        ("Phi-3-mini vs Qwen2-72B", "Intro: Phi-3-mini 'outperform[s]' Qwen2-72B",
         f"Table 1: {t1['Phi-3-mini-128K']:.3f} < {t1['Qwen2-72B']:.3f}; §5.2: 'nearly approaches'"),
        ("Qwen2-72B untruncated KPR", f"Table 2 N/A: {qwen_untruncated:.3f}", f"Tables 1 and 3: {t1['Qwen2-72B']:.3f}"),
        ("Models scored by both evaluators", "RQ7 text: only GPT-4o and Phi-3-mini", "Table 3: all 9 models"),
        ("§5.5 wording", "'generation length'", "the section (and Fig. 6) is about input document length"),
        ("Evaluator prompt reference", "§4: 'the prompt detailed in § A.2'", "§A.2 holds the AutoDS filter prompt (P8)"),
        ("Key-point extraction check sample", "'20 randomly-sampled questions'", "'10 randomly selected questions'"),
        ("ELI5 filter criteria", "text: 4 criteria", "prompt P1: 5 criteria, max 5 points, keep >= 4"),
        ("Dataset LLM", "§3.3: 'prompting GPT-4'", "footnote 2: LLM_dataset = GPT-4-Turbo"),
        ("Category distribution", "A.1: 'relatively uniform'",
         f"Fig. 11: {min(counts)} to {max(counts)} questions per category"),
        ("KPF", "§6.4: KPF 'combines KPP and KPR'", f"printed KPF != 2·KPP·KPR/(KPP+KPR) ({kpf})"),
        ("§6.4 last paragraph", "'The KPR score provides a balanced view ... recall and precision'", "KPF is meant"),
        ("Snippet vs summary", "§5.6: snippet gives 'more pronounced degradation'",
         "Table 2: Summary is the lowest for both models; Qwen2-72B snippet beats trunks 512 and 1024"),
    )
    return pd.DataFrame(rows, columns=["what", "one place says", "another says"]).rename_axis("n")


def category_table(items: pd.DataFrame) -> pd.DataFrame:
    """Our items per question category with an example question, beside the paper's definition of the category
    and its count of questions (Fig. 11): every one of the paper's 8 categories, those our rule gives no item
    with 0 items and no example, so that ``paper_n`` sums to the paper's question count."""
    cats = items.groupby("category").agg(items=("question_id", "size"), example=("question", "first"))
    cats = cats.reindex(sorted(set(CATEGORIES) | set(cats.index))).rename_axis("category").reset_index()
    cats["items"] = cats["items"].fillna(0).astype(int)
    cats["example"] = cats["example"].fillna("")
    cats["paper_definition"] = cats["category"].map(CATEGORIES)
    cats["paper_n"] = cats["category"].map(PAPER_CATEGORY_COUNTS)
    return cats


def table3_sentence() -> str:
    """What the paper says of its two evaluators' rankings (§5.8, Table 3), and the rank correlations we compute
    from its Table 3, labelled as ours: the paper prints none."""
    t3 = table3_correlations()
    return (f"The paper scores its {len(paper_table3())} models with GPT-4o and with Llama3-70B (its Table 3) and "
            "says the rankings \"remained largely consistent\", \"with only a minor position swap between "
            f"{' and '.join(t3['swapped'])}\" (§5.8); it prints no rank correlation. Computed by us from its Table 3: "
            f"Spearman {t3['spearman']:.3f}, Kendall {t3['kendall']:.3f}.")
