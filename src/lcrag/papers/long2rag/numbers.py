"""Long²RAG's printed numbers, read from ``tables/*.csv`` (:func:`lcrag.papers.tables.paper_table`).

- Tables 1-4 (:func:`paper_table1` ... :func:`paper_table4`, tidy; :func:`paper_table1_wide` as printed). Paper
  numbers appear only in columns whose name starts with ``paper``.
- Fig. 11's questions per category (:data:`PAPER_CATEGORY_COUNTS`), the numbers stated in the text
  (:data:`PAPER_NUMBERS`: dataset size, key-point pipeline, evaluator accuracy, ...) and the length bins of Figs 6
  and 7 (:data:`PAPER_INPUT_EDGES`, :data:`PAPER_OUTPUT_EDGES`).
- The paper inventory's values derived from the tables (:data:`INVENTORY_DERIVED`: Table 3's rank correlations, the
  F1 of Table 4's printed KPP and KPR, ...), which :mod:`.checks` recomputes.

Each number is typed once, in its CSV; nothing here computes on them (that is :mod:`.checks` and :mod:`.claims`).
The chapter's sentences that state them are written here from the tables (:func:`dataset_sentence`,
:func:`evaluator_sentence`, :func:`length_bins_sentence`, :func:`autods_sentence`, :func:`deviations`).
"""

from __future__ import annotations

import pandas as pd

from lcrag.data.long2rag import CATEGORIES
from lcrag.papers.tables import printed_table

PAPER = "long2rag"


def _number(text: str) -> int | float:
    return int(text) if text.isdigit() else float(text)


#: Fig. 11: questions per category (they sum to the paper's questions), in Table 1's column order.
PAPER_CATEGORY_COUNTS: dict[str, int] = {
    c: int(n) for c, n in printed_table(PAPER, "category_counts")[["category", "questions"]].itertuples(index=False)
}

#: Numbers stated in the text (§1, §3, §6, App. A) that C17, C18, C20, C21 are about: quantity -> value (ints as
#: ints, percentages as fractions).
PAPER_NUMBERS: dict[str, int | float] = {
    q: _number(v) for q, v in printed_table(PAPER, "numbers")[["quantity", "value"]].itertuples(index=False)
}

#: The inventory's [derived] values (``../shared/papers/long2rag.md``): quantity -> value, as :mod:`.checks` puts them
#: beside ours.
INVENTORY_DERIVED: dict[str, float] = {
    q: float(v) for q, v in printed_table(PAPER, "inventory")[["quantity", "value"]].itertuples(index=False)
}

_EDGES = printed_table(PAPER, "length_bins")
#: Fig. 6's input-length bin edges (tokens, for windows of 32k+) and Fig. 7's generation-length edges.
PAPER_INPUT_EDGES = tuple(int(e) for e in _EDGES.loc[_EDGES["axis"] == "input", "edge"])
PAPER_OUTPUT_EDGES = tuple(int(e) for e in _EDGES.loc[_EDGES["axis"] == "generation", "edge"])

TABLE1_COLUMNS = (*CATEGORIES, "Average")
#: Table 2's columns, as our document variants: trunc512, trunc1024, trunc2048, snippet, summary, none.
TABLE2_COLUMNS = tuple(c for c in printed_table(PAPER, "table2").columns if c not in ("model", "source"))


def paper_table1() -> pd.DataFrame:
    """Table 1 long: model, size, column (8 categories and Average), paper_kpr, n_questions (Fig. 11; their sum for
    Average)."""
    t = printed_table(PAPER, "table1")
    columns = tuple(c for c in t.columns if c not in ("model", "size", "source"))
    if columns != TABLE1_COLUMNS:
        raise ValueError(f"Table 1 columns {columns}, expected {TABLE1_COLUMNS}")
    rows = []
    for r in t.to_dict("records"):
        for column in TABLE1_COLUMNS:
            n = PAPER_CATEGORY_COUNTS.get(column, sum(PAPER_CATEGORY_COUNTS.values()))
            rows.append({"model": r["model"], "size": r["size"], "column": column, "paper_kpr": float(r[column]),
                         "n_questions": n})
    return pd.DataFrame(rows)


def paper_table1_wide() -> pd.DataFrame:
    """Table 1 as printed: one row per model, the 8 categories and Average as columns."""
    t = paper_table1()
    return t.pivot(index="model", columns="column", values="paper_kpr").loc[
        list(dict.fromkeys(t["model"])), list(TABLE1_COLUMNS)
    ]


def paper_table2() -> pd.DataFrame:
    """Table 2 long: model, variant (``trunc512`` ... ``none``), paper_kpr."""
    rows = []
    for r in printed_table(PAPER, "table2").to_dict("records"):
        for v in TABLE2_COLUMNS:
            rows.append({"model": r["model"], "variant": v, "paper_kpr": float(r[v])})
    return pd.DataFrame(rows)


def paper_table3() -> pd.DataFrame:
    """Table 3 realigned by model: model, paper_gpt4o, paper_llama3, rank_gpt4o, rank_llama3 (1 = best)."""
    printed = printed_table(PAPER, "table3")
    gpt = {m: float(x) for m, x in zip(printed["gpt4o_model"], printed["gpt4o_kpr"], strict=True)}
    llama = {m: float(x) for m, x in zip(printed["llama3_model"], printed["llama3_kpr"], strict=True)}
    if set(gpt) != set(llama):
        raise ValueError(f"Table 3's two columns list different models: {set(gpt) ^ set(llama)}")
    t = pd.DataFrame({"model": list(gpt), "paper_gpt4o": list(gpt.values())})
    t["paper_llama3"] = t["model"].map(llama)
    t["rank_gpt4o"] = t["paper_gpt4o"].rank(ascending=False).astype(int)
    t["rank_llama3"] = t["paper_llama3"].rank(ascending=False).astype(int)
    return t


def paper_table4() -> pd.DataFrame:
    """Table 4: model, paper_kpp, paper_kpr, paper_kpf, paper_length."""
    rows = []
    for r in printed_table(PAPER, "table4").to_dict("records"):
        rows.append({"model": r["model"], "paper_kpp": float(r["kpp"]), "paper_kpr": float(r["kpr"]),
                     "paper_kpf": float(r["kpf"]), "paper_length": float(r["length"])})
    return pd.DataFrame(rows)


# ============================================================================================ the chapter's sentences


def _k(tokens: int) -> str:
    """A token count in thousands, as the paper's figures print it (8K, 1.5K)."""
    return f"{tokens / 1000:g}K"


def dataset_sentence() -> str:
    """The introduction's sentence on the paper's dataset (§3, abstract)."""
    n = PAPER_NUMBERS
    return (f"The paper's dataset: {n['questions']} questions, {n['domains']} domains, {n['categories']} question "
            f"categories, {n['key points']:,} key points, and **{n['documents per question']} retrieved web pages** "
            f"per question of about {n['words per document (abstract)']:,} words each.")


def evaluator_sentence() -> str:
    """Section 2's sentence on how well the paper's GPT-4o evaluator agrees with its annotators (§6.2)."""
    n = PAPER_NUMBERS
    return (f"The paper reports {100 * n['evaluator accuracy']:.0f} % accuracy for GPT-4o on {n['evaluator cases']} "
            f"cases (§6.2), with Cohen's κ = {n['annotator Cohen kappa']} between its annotators.")


def length_bins_sentence() -> str:
    """Section 6's sentences on the bins of Figs 6 and 7 and how the chapter scales them."""
    inputs, outputs = PAPER_INPUT_EDGES, PAPER_OUTPUT_EDGES
    return (f"The paper bins the packed input at {'/'.join(map(_k, inputs))} tokens (models with 32K-128K windows) "
            f"and the generation at {_k(outputs[0])} ... {_k(outputs[-1])} tokens. We scale both to our setting: "
            f"input edges × (our longest input, at most the window, / {_k(inputs[-1])}), generation edges × (our `max_new_tokens` / "
            f"{_k(outputs[-1])}).")


def autods_sentence() -> str:
    """Section 9's sentences on the paper's key-point pipeline (§3.3) and the validation it reports against human
    annotation, whose data are not released."""
    n = PAPER_NUMBERS
    return ("The paper extracts key points with P5 (per document), merges duplicates with P7 and keeps those whose "
            "AutoDS score (P8; `p(YES) / (p(YES) + p(NO))` from the first answer token's logprobs) reaches "
            f"{n['AutoDS threshold']}. It validates the pipeline against human annotators: the extracted key points "
            f"recall {100 * n['extraction recall']:.1f} % of the key points humans identified in a sample of "
            f"documents (§3.3), and {100 * n['AutoDS false positive rate']:.1f} % of the points the threshold keeps "
            "are false positives by manual annotation (§3.3, A.2). Those annotations are not released.")


def deviations(n_items: int) -> str:
    """The Data and Lengths bullets of the chapter's deviations; ``n_items``: the SummHay-derived items."""
    return (f"- **Data**: SummHay-derived items ({n_items} subtopics; this run uses the subset above) instead of "
            f"Long²RAG's {PAPER_NUMBERS['questions']} questions: documents are synthetic news articles and "
            "conversation transcripts, shorter than the paper's web pages (section 1's table); key points are the "
            "SummHay insights, not GPT-4-Turbo extractions; domains are haystack topics; categories come from a "
            "word rule, so most items are Factual and none Hypothetical.\n"
            "- **Lengths**: inputs are at most the generator's window (their mean per variant: section 3), not up "
            f"to >{_k(PAPER_INPUT_EDGES[-1])}; the paper's input bins are scaled to our longest input.")
