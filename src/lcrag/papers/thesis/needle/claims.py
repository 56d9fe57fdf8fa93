"""The thesis's claim H4 on the needle test (§6.2): the complex needle is found everywhere, the simple one fails only
beyond a share of the window (:data:`EARLY_SHARE`), and there is no failure cluster at long context in the "upper right
quadrant", read both ways (:data:`QUADRANTS`); and the chapter's floor rule (:func:`recall_floor`), which its claims and
its comparison in the synthesis both ask.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from lcrag.book.claims import below_margin
from lcrag.papers.tables import declared_claims, table_cell
from lcrag.papers.thesis.needle.analysis import FOUND_RECALL
from lcrag.papers.thesis.numbers import other_generator
from lcrag.stats import bound, exact_interval, percent, unpaired_bootstrap_ci
from lcrag.text import join_words

#: The margins of H4's parts, as thesis/claims.csv declares them (its tolerance column; book/verdicts.md: a claim
#: that an effect is absent is reproduced only by an equivalence test, inside a margin the claim states). H4a ("found
#: everywhere") and H4b's first part ("never below the share") claim that misses are absent: a miss rate counts as
#: none when its exact 95 % interval lies below COMPLEX_MISS_MARGIN (H4a) or EARLY_MISS_MARGIN (H4b). H4c and H4d
#: ("no failure cluster"): the quadrant fails at most CLUSTER_MARGIN more often than the rest.
COMPLEX_MISS_MARGIN = declared_claims("thesis")["H4a"].tolerance
EARLY_MISS_MARGIN = declared_claims("thesis")["H4b"].tolerance
CLUSTER_MARGIN = declared_claims("thesis")["H4c"].tolerance  # H4d declares its own (the same 15 %)
#: The thesis finds "no significant drop ... in the upper right quadrant (large context, end of context)", unlike
#: Kamradt. Its words and Kamradt's heatmaps (depth 0 on top, as ours) name different quadrants, so both are tested,
#: each at long context (lengths above the grid's median): H4c the needle in the second half (depth >= 50 %: "end
#: of context", the lower right as drawn), H4d in the first half (depth < 50 %: the upper right as drawn, where
#: Kamradt's GPT-4 lost the needle). The thesis defines its quadrant in words, so H4c is its claim and H4d the book's
#: alternative reading (its claim text says so). Claim id -> its :class:`Quadrant`.
class Quadrant(NamedTuple):
    prefix: str  # of its keys in :func:`h4_tests`
    holds: Callable[[pd.Series], pd.Series]  # depth -> in the quadrant
    where: str  # as the claim's value names it
    margin: float  # the excess fail rate its claim of no cluster allows (thesis/claims.csv)
    book_reading: bool = False  # the book's reading, not the thesis's words: tallied apart (lcrag.book.claims)


QUADRANTS = {
    "H4c": Quadrant("late", lambda depth: depth >= 50, "the lower right (long context, depth ≥ 50 %)",
                    CLUSTER_MARGIN),
    "H4d": Quadrant("front", lambda depth: depth < 50, "the upper right (long context, depth < 50 %)",
                    declared_claims("thesis")["H4d"].tolerance, book_reading=True),
}
#: H4b: the share of the window below which the thesis saw the simple needle never fail (§6.2; tables/needle_text.csv).
EARLY_SHARE = int(table_cell("thesis", "needle_text", "simple", "share_pct")) / 100


def _rate(k: int, n: int, ci: tuple[float, float]) -> str:
    """``k of n missed (95 % CI [lo, hi] %)``, the bounds in per cent to one decimal: a lower bound above 0 stays
    above 0, and a bound next to a margin shows on which side it lies (9.9 against 10)."""
    return f"{k} of {n} missed (95 % CI [{percent(ci[0])}, {percent(ci[1])}] %)"


def rules() -> str:
    """How H4's parts are decided, in words (the chapter's section 9 and each claim's evidence say the same)."""
    share, cluster = f"{100 * EARLY_SHARE:.0f} %", f"{100 * CLUSTER_MARGIN:.0f} points"
    return (f"H4b's first half claims an absence (no simple-needle miss below {share} of the longest length "
            "tested): reproduced when the miss rate's exact 95 % interval (Clopper-Pearson) lies below the claim's "
            f"margin ({100 * EARLY_MISS_MARGIN:.0f} % of the cells), not reproduced when above it, inconclusive "
            "otherwise; its second half, "
            "misses beyond that share, holds when their rate's interval lies above 0. H4c and H4d claim no failure "
            "cluster at long context (lengths above the grid's median): H4c in the thesis's \"upper right quadrant "
            "(large context, end of context)\" by its words (depth ≥ 50 %), H4d, the book's alternative reading, "
            "where Kamradt's heatmaps (depth 0 on top, as ours) draw it and his GPT-4 lost the needle (depth < 50 %). "
            f"Each is reproduced when the 95 % bootstrap interval of the difference in fail rates lies below {cluster}, "
            f"not reproduced when Fisher's one-sided exact test finds a cluster (p < 0.05) of at least {cluster}, "
            "inconclusive otherwise, also when the model finds fewer than half of the other cells.")


def cells_needed(margin: float) -> int:
    """The fewest cells in which no miss shows a miss rate below ``margin``: the exact 95 % upper bound at 0 misses
    (Clopper-Pearson) under it."""
    return next(n for n in range(1, 10_000) if exact_interval(0, n)[1] < margin)


def resolution(lengths: Mapping[str, Sequence[int]], depths: Sequence[float]) -> pd.DataFrame:
    """What each model's grid can show at best: :func:`h4_tests` on a model that finds every needle in every cell of
    its grid (``lengths[model]`` x ``depths`` x both needles). Per model and part (H4b's early window, H4c's and H4d's
    quadrants): the cells the part reads, the upper bound of its 95 % interval with no miss, the part's margin and
    whether that perfect model gets *reproduced* (``decidable``): where it does not, no run on this grid can."""
    rows = []
    for model, lens in lengths.items():
        df = pd.DataFrame([{"setting": "full", "needle": n, "context_tokens": L, "depth": d, "found": True}
                           for n in ("simple", "complex") for L in lens for d in depths])
        t = h4_tests(df, max(lens))
        rows.append({"model": model, "part": "H4b", "cells": t["simple_early_cells"], "bound": t["early_miss_ci_high"],
                     "margin": EARLY_MISS_MARGIN, "decidable": t["early_miss_ci_high"] < EARLY_MISS_MARGIN})
        long = df["context_tokens"] > df["context_tokens"].median()
        for claim, q in QUADRANTS.items():
            rows.append({"model": model, "part": claim, "cells": int((long & q.holds(df["depth"])).sum()),
                         "bound": t[f"{q.prefix}_ci_high"], "margin": q.margin,
                         "decidable": t[f"no_{q.prefix}_cluster"] is True})
    return pd.DataFrame(rows)


def resolution_sentence(table: pd.DataFrame) -> str:
    """:func:`resolution` in words: the parts no run on its grid can reproduce (parts with the same cells read
    together), per group of models the cells they read and the bound with no miss, and the cells that would be
    needed; "" when none."""
    from lcrag.models.registry import title_of

    blind = table[~table["decidable"].astype(bool)]
    if blind.empty:
        return ""
    by_part = {p: tuple(map(tuple, g[["model", "cells", "bound"]].to_numpy())) for p, g in blind.groupby("part",
                                                                                                        sort=False)}
    said, done = [], set()
    for part, rows in by_part.items():
        if part in done:
            continue
        same = [p for p, r in by_part.items() if r == rows]
        done.update(same)
        what = "H4b's early window" if part == "H4b" else "the " + " and ".join(same) + " quadrants"
        g = blind[blind["part"] == part]
        groups = ", ".join(f"{percent(b)} % ({int(c)} cells: {join_words([title_of(m) for m in h['model']])})"
                           for (c, b), h in g.groupby(["cells", "bound"], sort=False))
        margin = float(g["margin"].iloc[0])
        said.append(f"{what} {groups}, above the {100 * margin:.0f} % margin ({cells_needed(margin)} cells needed)")
    return ("**What this grid can show.** With no miss at all, the 95 % bound still allows, in " + "; in ".join(said)
            + ": there even a model that finds every needle gets *inconclusive*.")


def h4_statement() -> str:
    """The chapter's account of Fig. 6.1 and of what the thesis concludes from it (H4), its words on the simple needle
    quoted (tables/needle_text.csv) and the inventory's reading of them marked as such."""
    words = table_cell("thesis", "needle_text", "simple", "source").split(": ", 1)[1]
    return ("Figure 6.1 shows one heatmap per needle (context length × depth) and prints no cell values. The thesis "
            "concludes (claim **H4** of the inventory): the complex needle is found everywhere; "
            f"\"{words}\" (the inventory reads: never below {100 * EARLY_SHARE:.0f} % of the window); and there is "
            "no failure cluster at long context in the \"upper right quadrant\", unlike Kamradt's GPT-4 and Claude "
            "2.1 runs.")


def recall_floor(arms: Mapping[str, pd.Series]) -> str | None:
    """The chapter's floor rule, in one place: why a claim or comparison on these arms (name -> the deterministic
    recall, 0-1, of each of its cells) is *not testable with this model*: the arms whose mean recall is below 0.05
    (:func:`lcrag.book.verdicts.floor_reason`, rule 3 of book/verdicts.md); None when every arm is above it (an arm
    without cells is left out). H4 (:func:`check_h4`) and the synthesis's full-vs-RAG row
    (:mod:`lcrag.papers.thesis.needle.comparison`) both ask it, so they always agree."""
    from lcrag.book.verdicts import floor_reason

    return floor_reason({f"{name} (mean recall)": {"score": float(np.mean(v))} for name, v in arms.items() if len(v)})


def h4_floors(df: pd.DataFrame) -> dict[str, str | None]:
    """H4's parts' floors (:func:`recall_floor`) on one model's full-context cells: H4a reads the complex needle,
    H4b the simple one, H4c and H4d both needles pooled (a quadrant that fails is the effect they measure, not a
    floor)."""
    full = df[df["setting"] == "full"]
    complex_, simple = (full.loc[full["needle"] == n, "recall"] for n in ("complex", "simple"))
    return {"H4a": recall_floor({"full, complex needle": complex_}),
            "H4b": recall_floor({"full, simple needle": simple}),
            **dict.fromkeys(QUADRANTS, recall_floor({"full, both needles": pd.concat([complex_, simple])}))}


def h4_tests(df: pd.DataFrame, window: int) -> dict:
    """The parts of H4 on one model's full-context answers (``found`` from the deterministic scorer), each
    True (reproduced), False (not reproduced) or None (inconclusive), from an interval, never from counts alone
    (book/verdicts.md):

    - ``complex_everywhere`` (H4a): the complex needle's miss rate, by its exact 95 % interval (Clopper-Pearson),
      below :data:`COMPLEX_MISS_MARGIN` (:func:`lcrag.book.claims.below_margin`);
    - ``simple_fails_late`` (H4b): the simple needle's miss rate below :data:`EARLY_SHARE` of ``window`` below
      :data:`EARLY_MISS_MARGIN` by the same test, and its miss rate at or beyond that share above 0 (the lower
      bound of its exact interval; None where no cell there missed): False when the early rate lies above the
      margin, True when both parts hold, None otherwise;
    - ``no_late_cluster`` (H4c) and ``no_front_cluster`` (H4d): no failure cluster in the quadrant of
      :data:`QUADRANTS` (:func:`cluster_test`; its other values carry the same prefix: ``late_fail``,
      ``late_rest_fail``, ``late_p``, ``late_ci_low``, ``late_ci_high``).
    """
    from lcrag.book.claims import all_of

    full = df[df["setting"] == "full"]
    cx, sp = full[full["needle"] == "complex"], full[full["needle"] == "simple"]
    out: dict = {"complex_found": cx["found"].mean() if len(cx) else float("nan")}
    out["complex_misses"], out["complex_cells"] = int((~cx["found"]).sum()), len(cx)
    out["complex_miss_ci_low"], out["complex_miss_ci_high"] = exact_interval(out["complex_misses"], len(cx))
    out["complex_everywhere"] = below_margin((out["complex_miss_ci_low"], out["complex_miss_ci_high"]),
                                             COMPLEX_MISS_MARGIN)
    early_cells = sp["context_tokens"] < EARLY_SHARE * window
    early, late = sp[early_cells], sp[~early_cells]
    out["simple_fail_rate"] = 1 - sp["found"].mean() if len(sp) else float("nan")
    out["simple_early_fails"], out["simple_early_cells"] = int((~early["found"]).sum()), len(early)
    out["early_miss_ci_low"], out["early_miss_ci_high"] = exact_interval(out["simple_early_fails"], len(early))
    out["simple_late_fails"], out["simple_late_cells"] = int((~late["found"]).sum()), len(late)
    out["late_miss_ci_low"], out["late_miss_ci_high"] = exact_interval(out["simple_late_fails"], len(late))
    none_early = below_margin((out["early_miss_ci_low"], out["early_miss_ci_high"]), EARLY_MISS_MARGIN)
    some_late = True if out["late_miss_ci_low"] > 0 else None  # NaN (no late cell) compares False
    out["simple_fails_late"] = all_of([none_early, some_late])
    both = pd.concat([cx, sp])
    for q in QUADRANTS.values():
        t = cluster_test(both, q.holds, q.margin)
        out.update({f"{q.prefix}_{k}": t[k] for k in ("fail", "rest_fail", "p", "ci_low", "ci_high")})
        out[f"no_{q.prefix}_cluster"] = t["no_cluster"]
    return out


def cluster_test(both: pd.DataFrame, in_quadrant, margin: float = CLUSTER_MARGIN) -> dict:
    """No failure cluster in a quadrant of long context (lengths above the grid's median, ``in_quadrant(depth)``)
    of ``both`` (one model's full-context cells, both needles, ``found``): the quadrant's and the other cells'
    fail rates (``fail``, ``rest_fail``), Fisher's one-sided p, the bootstrap interval of the difference, and
    ``no_cluster``. An absent effect is shown by an equivalence test, not by a test that fails to find it: True
    when the 95 % interval of (the quadrant's fail rate - the rest's) lies below ``margin``; False when the
    quadrant fails significantly more often (Fisher's exact test, one-sided, 5 %) by at least ``margin`` (a
    significant excess smaller than the margin is not the cluster the claim denies); None otherwise
    (inconclusive), and when the model finds the needle in fewer than half of the other cells (no drop can show
    against a floor)."""
    from scipy.stats import fisher_exact

    nan = float("nan")
    if both.empty:
        return {"fail": nan, "rest_fail": nan, "p": nan, "ci_low": nan, "ci_high": nan, "no_cluster": None}
    quadrant = (both["context_tokens"] > both["context_tokens"].median()) & in_quadrant(both["depth"])
    a, b = both[quadrant], both[~quadrant]
    out = {"fail": 1 - a["found"].mean(), "rest_fail": 1 - b["found"].mean()}
    table = [[int((~a["found"]).sum()), int(a["found"].sum())], [int((~b["found"]).sum()), int(b["found"].sum())]]
    out["p"] = float(fisher_exact(table, alternative="greater").pvalue) if len(a) and len(b) else nan
    out["ci_low"], out["ci_high"] = (
        unpaired_bootstrap_ci(~a["found"].to_numpy(bool), ~b["found"].to_numpy(bool)) if len(a) and len(b)
        else (nan, nan))
    if not len(a) or not len(b) or b["found"].mean() < 0.5:
        out["no_cluster"] = None
    elif out["p"] < 0.05 and out["fail"] - out["rest_fail"] >= margin:
        out["no_cluster"] = False
    else:
        out["no_cluster"] = True if out["ci_high"] < margin else None
    return out


def _too_few_found(rest_fail: float) -> str:
    """What the evidence adds when :func:`cluster_test`'s floor rule decided (the needle found in fewer than half of
    the other cells): the share found, "" otherwise."""
    found = 1 - rest_fail
    return (f"; inconclusive here for that reason: the needle is found in only {found:.0%} of the other cells"
            if found < 0.5 else "")


def check_h4(ledger, df: pd.DataFrame, window: int, lengths_note: str = "") -> dict:
    """H4's three parts as claims of ``ledger`` (one ledger per model), each *not testable with this model* when the
    full-context cells it reads are at the floor (:func:`h4_floors`); returns :func:`h4_tests`' values."""
    t = h4_tests(df, window)
    floors = h4_floors(df)
    note = f" ({lengths_note})" if lengths_note else ""
    share = f"{100 * EARLY_SHARE:.0f} %"
    cx_ci = (t["complex_miss_ci_low"], t["complex_miss_ci_high"])
    level = other_generator(ledger.model, "a level of the thesis's generator (GPT-3.5-Turbo's perfect score)")
    rule = ("" if level else f"; reproduced when the miss rate's exact 95 % interval (Clopper-Pearson) lies below "
            f"{100 * COMPLEX_MISS_MARGIN:.0f} % (the claim's margin), not reproduced when it lies above it, "
            "inconclusive otherwise")
    ledger.check("H4a", our_value=f"{t['complex_found']:.0%} of cells found: "
                 f"{_rate(t['complex_misses'], t['complex_cells'], cx_ci)}", passed=t["complex_everywhere"],
                 evidence=f"found: deterministic recall >= {FOUND_RECALL}{rule}{note}",
                 anchor="needle-claims", floor=floors["H4a"], untestable=level)
    cut = int(EARLY_SHARE * window)
    early_ci = (t["early_miss_ci_low"], t["early_miss_ci_high"])
    late_ci = (t["late_miss_ci_low"], t["late_miss_ci_high"])
    ledger.check("H4b", our_value=f"below {cut} tokens "
                 f"{_rate(t['simple_early_fails'], t['simple_early_cells'], early_ci)}; from {cut} on "
                 f"{_rate(t['simple_late_fails'], t['simple_late_cells'], late_ci)}",
                 passed=t["simple_fails_late"],
                 evidence=f"{share} of the longest length tested ({window} tokens), as the thesis's is of the 8k "
                          f"it tested: {cut} tokens; "
                          "reproduced when the early miss rate's exact 95 % interval (Clopper-Pearson) lies below "
                          f"{100 * EARLY_MISS_MARGIN:.0f} % (the claim's margin) and the late one's above 0, not "
                          "reproduced when the early one lies above the margin, inconclusive otherwise" + note,
                 anchor="needle-claims", floor=floors["H4b"])
    for claim, q in QUADRANTS.items():
        lo, hi = t[f"{q.prefix}_ci_low"], t[f"{q.prefix}_ci_high"]
        ledger.check(claim, our_value=f"fail {t[f'{q.prefix}_fail']:.0%} in {q.where} vs "
                     f"{t[f'{q.prefix}_rest_fail']:.0%} elsewhere (difference 95 % CI [{bound(100 * lo, 0)}, "
                     f"{bound(100 * hi, 0)}] pp; Fisher p = {t[f'{q.prefix}_p']:.3f})",
                     passed=t[f"no_{q.prefix}_cluster"],
                     evidence=f"both needles; reproduced when the interval lies below +{100 * q.margin:.0f} pp, "
                              "not reproduced when Fisher's one-sided test finds a cluster (p < 0.05) of at least "
                              f"+{100 * q.margin:.0f} pp, inconclusive otherwise or when fewer than half of the "
                              f"other cells are found{note}{_too_few_found(t[f'{q.prefix}_rest_fail'])}",
                     anchor="needle-claims", floor=floors[claim], book_reading=q.book_reading)
    return t


def check_models(specs, scored: pd.DataFrame, lengths: dict, n_depths: int) -> tuple[list, pd.DataFrame]:
    """H4 on every model, one claims ledger each (the window taken as the model's longest length); the ledgers
    and the tests' values, one row per model."""
    from lcrag.book import ClaimsLedger

    ledgers, rows = [], []
    for s in specs:
        ledger = ClaimsLedger(None, paper="thesis", model=s)
        window = max(lengths[s])
        t = check_h4(ledger, scored[scored["model"] == s], window,
                     lengths_note=f"{len(lengths[s])} lengths up to {window} x {n_depths} depths")
        rows.append({"model": s, **t})
        ledgers.append(ledger)
    return ledgers, pd.DataFrame(rows)
