"""The thesis's numbers, and the codes the chapter names its runs with.

The printed values are read from the CSV files in ``tables/`` (:func:`lcrag.papers.tables.paper_table`), each typed
once with where it was printed; this module only turns them into the shapes the chapter uses:

- :data:`THESIS_TABLE_6_1` (``table_6_1.csv`` and the pooled values of ``accuracy_text.csv``),
- :data:`THESIS_REPRODUCTION_RAW`, :data:`THESIS_ACCURACY`, :data:`THESIS_CQT_MEETINGQA` (``accuracy_text.csv``),
- :data:`THESIS_FIG_6_3` (``fig_6_3.csv``), :data:`THESIS_TABLE_6_2_WRONG` (``table_6_2.csv``),
  :data:`THESIS_TABLE_6_3` (``table_6_3.csv``), :data:`THESIS_SANITY` (``embedding_sanity.csv``),
  :data:`GPT35_USD_PER_M` (``prices.csv``).
"""

from __future__ import annotations

import pandas as pd

from lcrag.papers.tables import paper_table, printed_table

TASKS = ("meetingqa", "paperqa")
SETTINGS = ("full", "rag", "evidence")
NO_PIPELINE = "-"  # the pipeline column of Full and Evidence rows
PATTERNS = ("FRE", "FR-", "F-E", "F--", "-RE", "-R-", "--E", "---")
THESIS_PIPELINES = ("CQT", "CQS", "BQT", "CET", "BET")
# Cases the thesis discusses by number; always part of the grid subset (in this order of priority).
THESIS_NAMED_CASES = {"meetingqa": (28, 55, 4, 12, 3), "paperqa": (38, 1)}
# Duplicates the thesis removed (MeetingQA 4k case 5 = case 12: same question, options and answer).
THESIS_DROPPED_DUPLICATES = {("meetingqa", "4k"): (5,)}


def thesis_table(name: str) -> pd.DataFrame:
    """The thesis's table ``name`` (``tables/<name>.csv``), as printed."""
    return paper_table("thesis", name)


def _number(value) -> float | None:
    """A printed value as a float; None where the thesis prints "-" or nothing."""
    if isinstance(value, str) and value.strip() in ("-", ""):
        return None
    return None if pd.isna(value) else float(value)


def _accuracy_text() -> pd.DataFrame:
    return printed_table("thesis", "accuracy_text")  # as printed: two decimals stay two


def _text_accuracy(setting: str, pipeline: str, prompt: str, task: str) -> pd.Series:
    t = _accuracy_text()
    row = t[
        (t["setting"] == setting)
        & (t["pipeline"] == pipeline)
        & (t["prompt"] == prompt)
        & (t["task"] == task)
    ]
    if len(row) != 1:
        raise KeyError(f"accuracy_text.csv has {len(row)} rows for {setting} {pipeline} {prompt} {task}")
    return row.iloc[0]


def _table_6_1() -> dict[tuple[str, str], tuple[float | None, float | None, float | None]]:
    """Table 6.1 as {(row, prompt): (MeetingQA, PaperQA, pooled)}; pooled: the Full accuracy the text states.
    Rows printed only as "-" are left out."""
    text = _accuracy_text()
    pooled = text[(text["setting"] == "full") & (text["task"] == "pooled")].set_index("prompt")["accuracy"]
    out = {}
    for r in thesis_table("table_6_1").itertuples(index=False):
        values = (_number(r.meetingqa), _number(r.paperqa))
        if values == (None, None):
            continue
        pool = _number(pooled.get(r.prompt)) if r.row == "clean & parsed" else None
        out[r.row, r.prompt] = (*values, pool)
    return out


def _table_6_2_wrong() -> dict[int, str | None]:
    """Table 6.2's wrong CQT + BAMBOO answers (case: answer; None = refusal), removed cases left out."""
    t = thesis_table("table_6_2")
    t = t[(t["gt"] != "-") & (t["rag"] != t["gt"])]
    return {int(c): (None if a == "None" else a) for c, a in zip(t["case"], t["rag"], strict=True)}


def _table_6_3() -> dict[int, dict[str, list[int]]]:
    """Table 6.3 as {case: {ranker: top-5 chunk numbers}}, rankers named as :func:`lcrag.retrieval.get_ranker`."""
    out: dict[int, dict[str, list[int]]] = {}
    positions = [f"pos_{i}" for i in range(1, 6)]
    for row in thesis_table("table_6_3").to_dict("records"):
        out.setdefault(int(row["case"]), {})[row["ranking"].lower()] = [int(row[p]) for p in positions]
    return out


_prices = thesis_table("prices")

GPT35_USD_PER_M = {  # gpt-3.5-turbo-0125, as the thesis quotes
    k: float(v) for k, v in zip(_prices["tokens"], _prices["usd_per_million"], strict=True)
}
# Fig. 6.3 (BAMBOO prompt, CQT, 158 cases); --- is derived (158 minus the rest).
_fig_6_3 = thesis_table("fig_6_3")
THESIS_FIG_6_3 = {p: int(n) for p, n in zip(_fig_6_3["pattern"], _fig_6_3["count"], strict=True)}
#: The Fig. 6.3 counts the text does not print (computed from the others): marked [derived] where shown.
FIG_6_3_DERIVED = frozenset(p for p, s in zip(_fig_6_3["pattern"], _fig_6_3["source"], strict=True)
                            if str(s).startswith("derived"))
# Table 6.1 (%), MeetingQA / PaperQA, and the pooled values §6.1 and §6.5 state; row 1 is BAMBOO's published numbers.
THESIS_TABLE_6_1 = _table_6_1()
THESIS_REPRODUCTION_RAW = {  # §6.1 text: the thesis's raw reproduction
    t: float(_text_accuracy("full", NO_PIPELINE, "BAMBOO", t)["accuracy"]) for t in TASKS
}
#: Fig. 6.3's runs (BAMBOO prompt; RAG: CQT): setting -> its pipeline.
_FIG_6_3_PIPELINES = {"full": NO_PIPELINE, "rag": "CQT", "evidence": NO_PIPELINE}


def printed_accuracy(setting: str) -> str:
    """The pooled accuracy (%) of ``setting``'s Fig. 6.3 run as the text prints it (two decimals)."""
    return str(_text_accuracy(setting, _FIG_6_3_PIPELINES[setting], "BAMBOO", "pooled")["accuracy"])


def pooled_source(prompt: str) -> str:
    """Where the thesis's text states ``prompt``'s pooled Full accuracy (the section of accuracy_text.csv's source):
    "§6.1 text" for BAMBOO, "§6.5 text" for CTX1 and CTX2."""
    return str(_text_accuracy("full", NO_PIPELINE, prompt, "pooled")["source"]).split(":")[0].split(" on ")[0].strip()


THESIS_ACCURACY = {s: float(printed_accuracy(s)) for s in SETTINGS}  # BAMBOO prompt, CQT (Fig. 6.3)
# §6.3: CQT + BAMBOO on the 84 MeetingQA cases (Table 6.2's run), accuracy in %.
THESIS_CQT_MEETINGQA = float(_text_accuracy("rag", "CQT", "BAMBOO", "meetingqa")["accuracy"])
# Table 6.2: the 19 MeetingQA cases CQT + BAMBOO got wrong (case: answer; None = refusal); the rest = GT.
THESIS_TABLE_6_2_WRONG: dict[int, str | None] = _table_6_2_wrong()
# Table 6.3: top-5 chunk numbers (1-based), MeetingQA cases 1-3, the evidence as query, 512/50 chunks.
THESIS_TABLE_6_3: dict[int, dict[str, list[int]]] = _table_6_3()
THESIS_SANITY = {
    (a, b): float(c)
    for a, b, c in zip(*(thesis_table("embedding_sanity")[k] for k in ("a", "b", "cosine")), strict=True)
}


THESIS_GENERATORS = ("gpt-3.5",)  # the thesis's generator: gpt-3.5-turbo-0125


GENERATOR_LEVEL = "a level of the thesis's generator (GPT-3.5-Turbo)"


def other_generator(model: str | None, what: str = GENERATOR_LEVEL) -> str | None:
    """Why a claim about ``what`` (a level of the thesis's generator: an accuracy; or a single case's pattern) cannot
    be tested on ``model``'s run; None when it is the thesis's generator. Another model's level says how good that
    model is, not whether the thesis measured its own correctly."""
    if model and any(g in str(model).lower() for g in THESIS_GENERATORS):
        return None
    return f"{what}; {model or 'another model'} is another generator, whose value is shown, not compared"


def rule_alone(passed: bool | None, model: str | None) -> str:
    """What a claim's rule alone reads (``passed``: its test's outcome) on ``model``'s run, for the evidence of a claim
    that :func:`other_generator` makes *not testable*, which overrides it; "" where the test decides nothing or
    ``model`` is the thesis's generator."""
    from lcrag.book.claims import verdict

    if passed is None or other_generator(model) is None:
        return ""
    return f"; the rule alone would read {verdict(passed)} (overridden)"
