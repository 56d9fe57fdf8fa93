"""The Full / RAG / Evidence patterns (Figs. 6.3-6.7): each case × RAG run as one of eight strings, FRE ... ---
(right with the Full document, with RAG, with the Evidence; "-" = wrong there), their counts, the F-E tile grid of
Fig. 6.7, how stable the F-E sets are across prompts, and paired tests computed from counts alone.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from lcrag.papers.thesis.cases import case_keys
from lcrag.papers.thesis.numbers import NO_PIPELINE, PATTERNS
from lcrag.stats import paired_comparison, signed_interval


def patterns(scored: pd.DataFrame, column: str = "correct") -> pd.DataFrame:
    """One row per case × RAG run with Full, RAG and Evidence correctness (same prompt) and the pattern
    string ("F-E" = Full and Evidence right, RAG wrong). Cases lacking one of the three are left out."""
    kept = scored[scored["kept"]]
    fe = kept[kept["setting"] != "rag"].pivot_table(
        index=["task", "case", "prompt"], columns="setting", values=column, aggfunc="first"
    )
    rag = kept[kept["setting"] == "rag"][["task", "case", "prompt", "pipeline", column]]
    df = rag.join(fe, on=["task", "case", "prompt"]).rename(columns={column: "rag"})
    df = df.dropna(subset=[c for c in ("full", "evidence") if c in df] or ["rag"])
    if "full" not in df or "evidence" not in df:
        return pd.DataFrame(
            columns=["task", "case", "pipeline", "prompt", "full", "rag", "evidence", "pattern"]
        )
    for c in ("full", "rag", "evidence"):
        df[c] = df[c].astype(bool)
    df["pattern"] = [
        ("F" if f else "-") + ("R" if r else "-") + ("E" if e else "-")
        for f, r, e in zip(df["full"], df["rag"], df["evidence"], strict=True)
    ]
    return df[["task", "case", "pipeline", "prompt", "full", "rag", "evidence", "pattern"]].reset_index(
        drop=True
    )


def pattern_counts(pats: pd.DataFrame, cases: pd.DataFrame | None = None) -> pd.DataFrame:
    """Counts of the eight patterns per (pipeline, prompt), zeros included, in the thesis's column order.

    ``cases`` restricts to those (task, case) pairs (e.g. the grid's cases, so runs are comparable).
    """
    if cases is not None:
        keys = case_keys(cases)
        pats = pats[[k in keys for k in case_keys(pats, as_list=True)]]
    rows = []
    for (pipeline, prompt), g in pats.groupby(["pipeline", "prompt"], sort=False):
        counts = g["pattern"].value_counts()
        for p in PATTERNS:
            rows.append(
                {
                    "pipeline": pipeline,
                    "prompt": prompt,
                    "pattern": p,
                    "count": int(counts.get(p, 0)),
                    "n": len(g),
                }
            )
    return pd.DataFrame(rows, columns=["pipeline", "prompt", "pattern", "count", "n"])


def fe_grid(pats: pd.DataFrame, pattern: str = "F-E") -> pd.DataFrame:
    """The tile grid of Fig. 6.7: rows = cases that are ``pattern`` in at least one run, columns =
    "pipeline / prompt"; 1 = the case is ``pattern`` there, 0 = not, NaN = not run."""
    if pats.empty:
        return pd.DataFrame()
    df = pats.assign(
        run=pats["pipeline"] + " / " + pats["prompt"], hit=(pats["pattern"] == pattern).astype(int)
    )
    grid = df.pivot_table(index=["task", "case"], columns="run", values="hit", aggfunc="max")
    grid = grid[grid.max(axis=1) > 0]
    order = [f"{p} / {q}" for p in dict.fromkeys(pats["pipeline"]) for q in dict.fromkeys(pats["prompt"])]
    grid = grid[[c for c in order if c in grid.columns]]
    grid.index = [f"{t} {c}" for t, c in grid.index]
    return grid


FE_JACCARD_COLUMNS = ("pipeline", "prompt_a", "prompt_b", "n_a", "n_b", "shared", "jaccard")


def fe_jaccard(pats: pd.DataFrame, pattern: str = "F-E") -> pd.DataFrame:
    """For each pipeline, the Jaccard overlap of its ``pattern`` case sets between every two prompts."""
    rows = []
    for pipeline, g in pats.groupby("pipeline", sort=False):
        sets = {
            q: set(
                zip(
                    h.loc[h["pattern"] == pattern, "task"],
                    h.loc[h["pattern"] == pattern, "case"],
                    strict=True,
                )
            )
            for q, h in g.groupby("prompt", sort=False)
        }
        for a, b in combinations(sets, 2):
            union = sets[a] | sets[b]
            rows.append(
                {
                    "pipeline": pipeline,
                    "prompt_a": a,
                    "prompt_b": b,
                    "n_a": len(sets[a]),
                    "n_b": len(sets[b]),
                    "shared": len(sets[a] & sets[b]),
                    "jaccard": len(sets[a] & sets[b]) / len(union) if union else float("nan"),
                }
            )
    return pd.DataFrame(rows, columns=FE_JACCARD_COLUMNS)


#: The three comparisons of the settings, each as (first, second) of "full", "rag", "evidence": the difference is
#: first − second.
COMPARISONS = {"Full vs RAG": ("full", "rag"), "Evidence vs Full": ("evidence", "full"),
               "Evidence vs RAG": ("evidence", "rag")}


def paired_from_patterns(counts: dict[str, int], *, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Paired tests (bootstrap interval of the difference, McNemar) computed from pattern counts alone.

    The eight counts determine every case's correctness in the three settings, so the thesis's Fig. 6.3 can be
    tested like our runs: Full vs RAG, Evidence vs Full, Evidence vs RAG. The cases' order is not known and
    need not be: a bootstrap interval depends on the cases' values, not their order (:mod:`lcrag.stats`).
    """
    flags = {s: np.array([p[i] != "-" for p, n in counts.items() for _ in range(n)], dtype=bool)
             for i, s in enumerate(("full", "rag", "evidence"))}
    if not flags["full"].size:
        return pd.DataFrame()
    return pd.DataFrame([{"comparison": name, **paired_comparison(flags[a], flags[b], n_boot=n_boot, seed=seed)}
                         for name, (a, b) in COMPARISONS.items()])


def paired_from_runs(scored: pd.DataFrame, pipeline: str, prompt: str, *, n_boot: int = 2000,
                     seed: int = 0) -> pd.DataFrame:
    """:func:`paired_from_patterns`'s three comparisons for our runs (RAG ``pipeline``, ``prompt``), from the
    answers case by case: :func:`lcrag.papers.thesis.accuracy.paired_tests`, so each line is the chapter's paired
    table's row (its counts would give the same interval: a bootstrap reads the cases' values, not their order)."""
    from lcrag.papers.thesis.accuracy import paired_tests

    runs = {"full": ("full", NO_PIPELINE, prompt), "rag": ("rag", pipeline, prompt),
            "evidence": ("evidence", NO_PIPELINE, prompt)}
    rows = []
    for name, (a, b) in COMPARISONS.items():
        t = paired_tests(scored, [(runs[a], runs[b])], n_boot=n_boot, seed=seed)
        if len(t):
            rows.append({"comparison": name, **t.drop(columns=["a", "b", "accuracy_a", "accuracy_b"]).to_dict("records")[0]})
    return pd.DataFrame(rows)


def paired_sentences(paired: pd.DataFrame) -> str:
    """One line per source and comparison of :func:`paired_from_patterns` tables (a ``source`` column): the
    difference in points with its interval, the discordant cases and McNemar's p, and whether the interval
    excludes 0 (the chapter's prose reads these lines instead of typing the numbers)."""
    lines = []
    for r in paired.itertuples():
        clear = "excludes 0" if r.ci_low > 0 or r.ci_high < 0 else "includes 0"
        lines.append(
            f"{r.source}, {r.comparison}: {signed_interval(r.diff, r.ci_low, r.ci_high, ' points')} "
            f"({clear}); {r.a_only} against {r.b_only} discordant cases, McNemar "
            + (f"p = {r.mcnemar_p:.3f}" if r.mcnemar_p >= 0.001 else "p < 0.001")
        )
    return "\n".join(lines)
