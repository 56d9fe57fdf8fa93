"""Accuracy and paired tests: accuracy per run with bootstrap intervals (:func:`accuracy_table`), paired
comparisons of two runs on their common cases (:func:`paired_tests`: a paired bootstrap interval of the difference
and McNemar's exact test), the verdict helpers the claims use (:func:`floor_of`; every threshold is decided by
:func:`lcrag.book.claims.interval_in`) and the chapter's floor rule (:func:`accuracy_floor`, which the synthesis asks too).

A *run* is (setting, pipeline, prompt): ``("full", "-", "BAMBOO")``, ``("rag", "CQT", "CTX1")``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from lcrag.book.claims import interval_in
from lcrag.papers.thesis.numbers import NO_PIPELINE
from lcrag.stats import bootstrap_ci, label_permutation, paired_comparison, sign_test

RUN = ["setting", "pipeline", "prompt"]


def run_label(setting: str, pipeline: str) -> str:
    """``Full``, ``Evidence`` or ``RAG CQT``."""
    return {"full": "Full", "evidence": "Evidence"}.get(setting, f"RAG {pipeline}")


def in_run_order(acc: pd.DataFrame, pipelines: Sequence[str]) -> pd.DataFrame:
    """``acc`` (one row per run and prompt) sorted by run, its ``run`` column ordered as a picture reads it: Full,
    the RAG ``pipelines`` in their order, Evidence, then any other run by name."""
    order = [run_label("full", ""), *[run_label("rag", p) for p in pipelines], run_label("evidence", "")]
    runs = set(acc["run"])
    run = pd.Categorical(acc["run"], [r for r in order if r in runs] + sorted(runs - set(order)), ordered=True)
    return acc.assign(run=run).sort_values("run", kind="stable")


def accuracy_table(
    scored: pd.DataFrame, by: Sequence[str] = RUN, *, n_boot: int = 2000, seed: int = 0
) -> pd.DataFrame:
    """Accuracy per group (default: per run = setting × pipeline × prompt) under the three scorers, with a
    95 % bootstrap interval of the main (lenient) accuracy, refusals, unparseable answers and tokens, and the
    baselines beside it: ``chance`` (a guess among four options), ``letter_prior`` (the accuracy of the same answers
    shuffled across the cases: the model's letter preferences without the question, :func:`lcrag.stats.
    label_permutation`), ``prior_p`` (the permutation p-value of the accuracy against that) and ``at_floor`` (the
    accuracy's exact 95 % interval reaches chance: book/verdicts.md's floor)."""
    from lcrag.book.verdicts import accuracy_at_floor

    rows = []
    for keys, g in scored.groupby(list(by), sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        lo, hi = bootstrap_ci(g["correct"].to_numpy(float), n_boot=n_boot, seed=seed)
        prior, prior_p = label_permutation(g["pred_lenient"], g["answer"], n_perm=n_boot, seed=seed)
        lp = g[g["pred_logprob"].notna()]
        rows.append(
            {
                **dict(zip(by, keys, strict=True)),
                "n": len(g),
                "correct": int(g["correct"].sum()),
                "accuracy": g["correct"].mean(),
                "ci_low": lo,
                "ci_high": hi,
                "accuracy_raw": g["correct_raw"].mean(),
                "accuracy_logprob": lp["correct_logprob"].mean() if len(lp) else float("nan"),
                "refusals": int((g["status"] == "refusal").sum()),
                "unparseable": int((g["status"] == "unparseable").sum()),
                "prompt_tokens": g["prompt_tokens"].mean(),
                "truncated": int(g["truncated"].sum()),
                "chance": CHANCE,
                "letter_prior": prior,
                "prior_p": prior_p,
                "at_floor": accuracy_at_floor(int(g["correct"].sum()), len(g), CHANCE),
            }
        )
    out = pd.DataFrame(rows)
    if "setting" in out and "pipeline" in out:
        out.insert(0, "run", [run_label(s, p) for s, p in zip(out["setting"], out["pipeline"], strict=True)])
    return out


def baselines_reading(acc: pd.DataFrame, alpha: float = 0.05) -> str:
    """A sentence on an :func:`accuracy_table`'s baselines: which runs are at the floor, which do not beat the
    model's letter prior (permutation p at or above ``alpha``), and what the rest beat."""
    label = [f"{r} ({p})" for r, p in zip(acc["run"], acc["prompt"], strict=True)]
    floor = [lab for lab, f in zip(label, acc["at_floor"], strict=True) if f]
    prior = [lab for lab, f, p in zip(label, acc["at_floor"], acc["prior_p"], strict=True) if not f and p >= alpha]
    top = acc["letter_prior"].max()
    out = [f"Beside each accuracy: chance ({CHANCE:.2f}) and the model's letter prior, its own answers shuffled "
           f"across the cases (here up to {top:.2f}: a model that prefers one letter gets more than chance by "
           "guessing it)."]
    above = [lab for lab in label if lab not in floor]
    if not floor:
        out.append("No run is at the floor.")
    elif len(above) < len(floor):
        out.append(f"At the floor (exact interval reaching chance): {len(floor)} of {len(label)} runs"
                   + (f", all but {', '.join(above)}." if above else ", every one."))
    else:
        out.append(f"At the floor (exact interval reaching chance): {', '.join(floor)}.")
    if prior:
        out.append(f"Above the floor but not above its letter prior (permutation p ≥ {alpha}): {', '.join(prior)}.")
    rest = len(acc) - len(floor) - len(prior)
    if rest:
        out.append(f"{'The other' if floor or prior else 'All'} {rest} run{'s' if rest != 1 else ''} beat both.")
    return " ".join(out)


def _wide(scored: pd.DataFrame, column: str = "correct") -> pd.DataFrame:
    """Cases × runs: one column per (setting, pipeline, prompt)."""
    return scored.pivot_table(index=["task", "case"], columns=RUN, values=column, aggfunc="first")


def paired_tests(
    scored: pd.DataFrame,
    pairs: Iterable[tuple[tuple[str, str, str], tuple[str, str, str]]],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> pd.DataFrame:
    """For each pair of runs ``(a, b)`` (each ``(setting, pipeline, prompt)``), on the cases both answered:
    accuracies, the difference a − b with a paired bootstrap interval (95 %, or ``level``), and McNemar's exact
    test."""
    wide = _wide(scored)
    rows = []
    for a, b in pairs:
        if a not in wide.columns or b not in wide.columns:
            continue
        both = wide[[a, b]].dropna()
        x, y = both[a].astype(bool).to_numpy(), both[b].astype(bool).to_numpy()
        stats = paired_comparison(x, y, n_boot=n_boot, seed=seed, level=level)
        rows.append(
            {
                "a": f"{run_label(a[0], a[1])} / {a[2]}",
                "b": f"{run_label(b[0], b[1])} / {b[2]}",
                "n": stats.pop("n"),
                "accuracy_a": x.mean() if len(x) else np.nan,
                "accuracy_b": y.mean() if len(y) else np.nan,
                **stats,
            }
        )
    return pd.DataFrame(rows)


def standard_pairs(scored: pd.DataFrame) -> list:
    """Full vs RAG and RAG vs Evidence for every RAG run, and Evidence vs Full for every prompt."""
    pairs = []
    runs = scored[RUN].drop_duplicates()
    for r in runs[runs["setting"] == "rag"].itertuples(index=False):
        rag = (r.setting, r.pipeline, r.prompt)
        pairs.append((("full", NO_PIPELINE, r.prompt), rag))
        pairs.append((rag, ("evidence", NO_PIPELINE, r.prompt)))
    for prompt in runs["prompt"].unique():
        pairs.append((("evidence", NO_PIPELINE, prompt), ("full", NO_PIPELINE, prompt)))
    return pairs


def run_accuracy(
    acc: pd.DataFrame, setting: str, pipeline: str, prompt: str, task: str | None = None
) -> float:
    """The accuracy of one run (setting, pipeline, prompt, and ``task`` if given) in an :func:`accuracy_table`;
    NaN when the run is missing."""
    q = (acc["setting"] == setting) & (acc["pipeline"] == pipeline) & (acc["prompt"] == prompt)
    if task is not None and "task" in acc:
        q &= acc["task"] == task
    return float(acc.loc[q, "accuracy"].iloc[0]) if q.any() else float("nan")


def paired_difference(scored: pd.DataFrame, a: tuple, b: tuple, n_boot: int, seed: int,
                      level: float = 0.95) -> dict:
    """:func:`paired_tests` of one pair of runs as ``{diff, ci, n, p}`` (NaN and n = 0 when they share no case)."""
    t = paired_tests(scored, [(a, b)], n_boot=n_boot, seed=seed, level=level)
    if t.empty or t["n"].iloc[0] == 0:
        return {"diff": float("nan"), "ci": (float("nan"), float("nan")), "n": 0, "p": float("nan")}
    r = t.iloc[0]
    return {
        "diff": float(r["diff"]),
        "ci": (float(r["ci_low"]), float(r["ci_high"])),
        "n": int(r["n"]),
        "p": float(r["mcnemar_p"]),
    }


def interaction_difference(scored: pd.DataFrame, a: tuple, b: tuple, c: tuple, d: tuple, n_boot: int,
                           seed: int) -> dict:
    """How much more run ``a`` gains over ``b`` than ``c`` over ``d``, on the cases all four answered: the mean
    over cases of ``(a - b) - (c - d)`` (correct = 1) with its bootstrap 95 % interval, as ``{diff, ci, n}``."""
    from lcrag.stats import bootstrap_ci

    wide = _wide(scored)
    if not all(r in wide.columns for r in (a, b, c, d)):
        return {"diff": float("nan"), "ci": (float("nan"), float("nan")), "n": 0}
    both = wide[[a, b, c, d]].dropna().astype(float)
    x = ((both[a] - both[b]) - (both[c] - both[d])).to_numpy()
    if not len(x):
        return {"diff": float("nan"), "ci": (float("nan"), float("nan")), "n": 0}
    return {"diff": float(x.mean()), "ci": bootstrap_ci(x, n_boot=n_boot, seed=seed, bounds=(-2.0, 2.0)), "n": len(x)}


def proportion_in(k: int, n: int, low: float | None = None, high: float | None = None) -> bool | None:
    """:func:`lcrag.book.claims.interval_in` (bounds included) for a proportion ``k / n`` on its 95 % Wilson
    interval (None for no cases)."""
    from lcrag.stats import wilson_interval

    return interval_in(wilson_interval(int(k), int(n)), low, high) if n else None


CHANCE = 0.25  # the kept cases have four options


def accuracy_floor(counts: Mapping[str, tuple[int, int]]) -> str | None:
    """The chapter's floor rule, in one place: why a comparison of these arms is *not testable with this model*,
    given each arm's ``(correct, n)`` on the cases it is compared on: the arms whose accuracy's exact 95 % interval
    contains :data:`CHANCE` (:func:`lcrag.book.verdicts.floor_reason`, rule 3 of book/verdicts.md); None when every
    arm is above it. The chapter's claims (:func:`floor_of`) and its comparison in the synthesis
    (:mod:`lcrag.papers.thesis.comparison`) both ask it, so a claim and the synthesis's row on the same arms and
    cases always agree."""
    from lcrag.book.verdicts import floor_reason

    return floor_reason({label: {"correct": int(k), "n": int(n), "chance": CHANCE} for label, (k, n) in counts.items()})


def floor_of(scored: pd.DataFrame, runs: Sequence[tuple[str, str, str]]) -> str | None:
    """Why a claim on these runs (setting, pipeline, prompt) is *not testable with this model*: a run whose
    accuracy on its rows of ``scored`` is at the floor (:func:`accuracy_floor`); None when every run is above it
    (runs without rows are left out)."""
    counts = {}
    for setting, pipeline, prompt in runs:
        r = scored[(scored["setting"] == setting) & (scored["pipeline"] == pipeline) & (scored["prompt"] == prompt)]
        if len(r):
            counts[f"{run_label(setting, pipeline)} {prompt}"] = (int(r["correct"].sum()), len(r))
    return accuracy_floor(counts)


def not_run_of(scored: pd.DataFrame, runs: Sequence[tuple[str, str, str]]) -> str | None:
    """Why a claim on these runs (setting, pipeline, prompt) cannot be tested on ``scored``: the runs it needs
    that have no rows there (a profile that leaves them out, e.g. ``companion``'s ``grid_per_task: 0``), or no
    runs at all; None when every one has rows."""
    if not len(runs):
        return "any of its runs (no grid in this run)"
    missing = [f"{run_label(setting, pipeline)} {prompt}" for setting, pipeline, prompt in runs
               if not ((scored["setting"] == setting) & (scored["pipeline"] == pipeline)
                       & (scored["prompt"] == prompt)).any()]
    return f"{', '.join(missing)} on these cases" if missing else None


def largest_count(counts: pd.Series, which: str, alpha: float = 0.05) -> tuple[bool | None, str]:
    """Is ``counts[which]`` the largest count? Against the largest other one, an exact binomial test on the two
    (one-sided, ``alpha``: :func:`lcrag.stats.sign_test`): True when it is significantly larger, False when the
    other is, None otherwise; and what the test compared, with its p-value."""
    ours, rival = int(counts[which]), str(counts.drop(which).idxmax())
    other = int(counts[rival])
    if ours + other == 0:
        return None, f"{which} 0, {rival} 0"
    up, down = sign_test(ours, other)
    big, small = ((which, ours), (rival, other)) if ours >= other else ((rival, other), (which, ours))
    said = (f"{big[0]} {big[1]} against {small[0]} {small[1]}: one-sided exact binomial p = "
            f"{min(up, down):.2g} that {big[0]} is the larger")
    return (True if up < alpha else False if down < alpha else None), said


def largest_share_at_most(counts: pd.DataFrame, limit: float) -> bool | None:
    """Is the largest share ``count / n`` of these runs at most ``limit``? Judged on its 95 % Wilson interval
    (:func:`proportion_in`): True when the whole interval is at most the limit, False when it lies above it, None
    otherwise (or no runs)."""
    if counts.empty:
        return None
    top = counts.loc[(counts["count"] / counts["n"]).idxmax()]
    return proportion_in(int(top["count"]), int(top["n"]), high=limit)


def level_claim(correct: pd.Series, paper_pct: float, tol_pp: float, n_boot: int, seed: int) -> tuple[bool | None, str]:
    """A level claim, "within ``tol_pp`` points of the paper's ``paper_pct`` %", on the bootstrap 95 % interval of
    the accuracy (right = 1, one value per case: :func:`lcrag.stats.bootstrap_ci`, the interval the accuracy table
    gives the same run), and the accuracy with its interval as text: ``63.10% [52.4, 72.6]``."""
    x = correct.to_numpy(float)
    if not len(x):
        return None, "n/a"
    lo, hi = bootstrap_ci(x, n_boot=n_boot, seed=seed)
    return interval_in((lo, hi), (paper_pct - tol_pp) / 100, (paper_pct + tol_pp) / 100), (
        f"{100 * x.mean():.2f}% [{100 * lo:.1f}, {100 * hi:.1f}]")
