"""The thesis chapter in the synthesis: the Full document against RAG and the gold Evidence (:data:`FAMILY`).

Reads the chapter's ``accuracy.csv`` (per run, with its bootstrap interval) and ``paired_tests.csv`` (its paired
bootstrap of two runs), on the main cases under the main prompt: the one Full ran on most cases. Whether an arm
is at the floor is the chapter's own rule (:func:`lcrag.papers.thesis.accuracy.accuracy_floor`), as for its claims.
"""

from __future__ import annotations

import pandas as pd

from lcrag.papers.thesis.accuracy import CHANCE, accuracy_floor
from lcrag.synthesis import Family, bar_panel, comparison, load_table, window_cut

NAME = "thesis"
ARM_COLUMNS = ["model", "arm", "prompt", "n", "accuracy", "ci_low", "ci_high", "source"]


def _main_prompt(acc: pd.DataFrame) -> str:
    full = acc[acc["setting"] == "full"]
    return str(full.sort_values("n", ascending=False)["prompt"].iloc[0]) if len(full) else ""


def arms(runs: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    """Full, RAG (the main pipeline) and Evidence accuracy on the main cases, under the main prompt (the one
    Full ran on most cases), with the chapter's bootstrap intervals."""
    cols = ["run", "setting", "pipeline", "prompt", "n", "accuracy", "ci_low", "ci_high"]
    acc = load_table(runs, NAME, "accuracy", cols, problems)
    rows = []
    for _, g in acc.groupby("model", sort=False):
        g = g[g["prompt"] == _main_prompt(g)]
        n_main = g["n"].max()
        rows.append(g[g["n"] == n_main])
    if not rows:
        return pd.DataFrame(columns=ARM_COLUMNS)
    t = pd.concat(rows, ignore_index=True).rename(columns={"run": "arm"})
    return t[ARM_COLUMNS]


def comparisons(runs: pd.DataFrame, arms: pd.DataFrame, problems: list[str]) -> list[dict]:
    """Full vs RAG and Full vs Evidence from the chapter's paired bootstrap table (``paired_tests.csv``), under the
    chapter's floor rule (:func:`lcrag.papers.thesis.accuracy.accuracy_floor`, the one its claims use): an arm whose
    accuracy on the paired cases has an exact interval containing chance makes the comparison *not testable with
    this model*. ``long_context``: whether Full's documents were cut to the window (:func:`full_context`)."""
    cols = ["a", "b", "n", "accuracy_a", "accuracy_b", "diff", "ci_low", "ci_high"]
    paired = load_table(runs, NAME, "paired_tests", cols, problems)
    context = full_context(runs)
    out = []
    for model, g in arms.groupby("model", sort=False):
        prompt, n = g["prompt"].iloc[0], int(g["n"].iloc[0])
        oracle_note = _oracle_floor_note(g, n)
        p = paired[(paired["model"] == model) & (paired["n"] == n)]
        for other in sorted((a for a in g["arm"] if a != "Full"), key=lambda a: a == "Evidence"):  # RAG first
            label_full, label_other = f"Full / {prompt}", f"{other} / {prompt}"
            row, sign = p[(p["a"] == label_full) & (p["b"] == label_other)], 1.0
            if row.empty:
                row, sign = p[(p["a"] == label_other) & (p["b"] == label_full)], -1.0
            if row.empty:
                continue
            r = row.iloc[0]
            lo, hi = sorted((sign * r["ci_low"], sign * r["ci_high"]))
            full_acc, other_acc = (
                (r["accuracy_a"], r["accuracy_b"]) if sign > 0 else (r["accuracy_b"], r["accuracy_a"])
            )
            out.append(comparison(
                NAME, model, f"Full vs {other} ({prompt} prompt, accuracy)", "Full", float(full_acc), other,
                float(other_acc), float(sign * r["diff"]), lo, hi, n, "cases",
                f"the chapter's paired bootstrap over {n} cases" + (oracle_note if other != "Evidence" else ""),
                r["source"].replace("accuracy", "paired_tests"),
                floor=accuracy_floor(arms := {"Full": (round(full_acc * n), n), other: (round(other_acc * n), n)}),
                floored=[a for a, kn in arms.items() if accuracy_floor({a: kn})],
                long_context=context.get((model, prompt, n), "")))  # fmt: skip
    return out


def _oracle_floor_note(g: pd.DataFrame, n: int) -> str:
    """What a Full vs RAG row adds when Full is above the floor and the gold Evidence (one model's :func:`arms`) at
    it too: the model fails on short contexts, not only on retrieved ones, so the gap is not retrieval's alone; ""
    otherwise."""
    ev, full = g[g["arm"] == "Evidence"], g[g["arm"] == "Full"]
    if full.empty or accuracy_floor({"Full": (round(float(full["accuracy"].iloc[0]) * n), n)}):
        return ""
    if ev.empty or not accuracy_floor({"Evidence": (k := round(float(ev["accuracy"].iloc[0]) * n), n)}):
        return ""
    return (f"; the gold Evidence is at the floor too ({k} of {n} right): this model fails on short contexts, not "
            "only on retrieved ones")


def full_context(runs: pd.DataFrame) -> dict[tuple[str, str, int], str]:
    """Per (model, prompt, cases) of the Full arm in ``accuracy.csv``: ``whole document``, or ``cut to the window
    in 3 of 158 cases`` (its ``truncated`` count); nothing for runs without the column."""
    acc = load_table(runs, NAME, "accuracy", ["run", "prompt", "n", "truncated"], [])
    full = acc[acc["run"] == "Full"]
    return {(str(r.model), str(r.prompt), int(r.n)): window_cut(int(r.truncated), int(r.n), "cases", "whole document")
            for r in full.itertuples() if pd.notna(r.truncated)}


FAMILY = Family(
    name=NAME,
    title="BAMBOO multiple choice: Full vs RAG vs gold Evidence",
    tables=lambda runs, problems, n_boot, seed: {NAME: arms(runs, problems)},
    compare=lambda runs, tables, problems, n_boot, seed: comparisons(runs, tables[NAME], problems),
    headline=lambda arm: arm.startswith("RAG"),
    headline_rule="the Full document against the thesis's main RAG pipeline (not the gold Evidence, an upper "
                  "bound for any retriever)",
    detail_index=("model", "arm"),
    plot=bar_panel(NAME, "arm", "accuracy", "thesis: BAMBOO accuracy (main cases)", reference=(CHANCE, "chance")),
)
