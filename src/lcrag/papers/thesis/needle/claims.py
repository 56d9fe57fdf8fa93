"""The thesis's claim H4 on the needle test (§6.2): the complex needle is found everywhere, the simple one fails only
beyond a share of the window (:data:`EARLY_SHARE`), and there is no failure cluster at long context with the needle near the end; and the
chapter's floor rule (:func:`recall_floor`), which its claims and its comparison in the synthesis both ask.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from lcrag.papers.tables import table_cell
from lcrag.papers.thesis.needle.analysis import FOUND_RECALL
from lcrag.stats import unpaired_bootstrap_ci

#: H4c's equivalence margin: "no failure cluster" holds when the late quadrant (long context, needle in the second
#: half) fails at most this much more often than the rest, with 95 % confidence (book/verdicts.md: a claim that an
#: effect is absent).
CLUSTER_MARGIN = 0.15
#: H4b: the share of the window below which the thesis saw the simple needle never fail (§6.2; tables/needle_text.csv).
EARLY_SHARE = int(table_cell("thesis", "needle_text", "simple", "share_pct")) / 100


def h4_statement() -> str:
    """The chapter's account of Fig. 6.1 and of what the thesis concludes from it (H4), its share as printed."""
    return ("Figure 6.1 shows one heatmap per needle (context length × depth) and prints no cell values. The thesis "
            "concludes (claim **H4** of the inventory): the complex needle is found everywhere; the simple one fails "
            f"now and then, only beyond about {100 * EARLY_SHARE:.0f} % of the window; and there is no failure "
            "cluster at long context with the needle near the end, unlike Kamradt's GPT-4 and Claude 2.1 runs.")


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
    H4b the simple one, H4c both needles pooled (a quadrant that fails is the effect it measures, not a floor)."""
    full = df[df["setting"] == "full"]
    complex_, simple = (full.loc[full["needle"] == n, "recall"] for n in ("complex", "simple"))
    return {"H4a": recall_floor({"full, complex needle": complex_}),
            "H4b": recall_floor({"full, simple needle": simple}),
            "H4c": recall_floor({"full, both needles": pd.concat([complex_, simple])})}


def h4_tests(df: pd.DataFrame, window: int) -> dict:
    """The three parts of H4 on one model's full-context answers (``found`` from the deterministic scorer).

    - ``complex_everywhere``: every complex-needle cell found;
    - ``simple_fails_late``: the simple needle fails somewhere, and never below :data:`EARLY_SHARE` of ``window``;
    - ``no_late_cluster``: no failure cluster in the late quadrant (length above the grid's median, depth
      >= 50 %): the lower right of the chapter's heatmaps, whose depth 0 is on top (the thesis's "upper right
      quadrant"). An absent effect is shown by an equivalence test, not by a test that fails to find it: True when
      the 95 % bootstrap interval of (the quadrant's fail rate - the rest's) lies below :data:`CLUSTER_MARGIN`;
      False when the quadrant fails significantly more often (Fisher's exact test, one-sided, 5 %); None
      otherwise (inconclusive), and when the model finds the needle in fewer than half of the other cells (no
      drop can show against a floor).
    """
    from scipy.stats import fisher_exact

    full = df[df["setting"] == "full"]
    cx, sp = full[full["needle"] == "complex"], full[full["needle"] == "simple"]
    out: dict = {"complex_found": cx["found"].mean() if len(cx) else float("nan")}
    out["complex_everywhere"] = bool(cx["found"].all()) if len(cx) else None
    fails = sp[~sp["found"]]
    early = fails[fails["context_tokens"] < EARLY_SHARE * window]
    out["simple_fail_rate"] = 1 - sp["found"].mean() if len(sp) else float("nan")
    out["simple_early_fails"] = len(early)
    out["simple_fails_late"] = (len(fails) > 0 and len(early) == 0) if len(sp) else None
    both = pd.concat([cx, sp])
    if both.empty:
        out.update(late_fail=float("nan"), rest_fail=float("nan"), late_p=float("nan"), late_ci_low=float("nan"),
                   late_ci_high=float("nan"), no_late_cluster=None)
        return out
    median = both["context_tokens"].median()
    late = (both["context_tokens"] > median) & (both["depth"] >= 50)
    a, b = both[late], both[~late]
    out["late_fail"], out["rest_fail"] = 1 - a["found"].mean(), 1 - b["found"].mean()
    table = [[int((~a["found"]).sum()), int(a["found"].sum())], [int((~b["found"]).sum()), int(b["found"].sum())]]
    out["late_p"] = float(fisher_exact(table, alternative="greater").pvalue) if len(a) and len(b) else float("nan")
    out["late_ci_low"], out["late_ci_high"] = (
        unpaired_bootstrap_ci(~a["found"].to_numpy(bool), ~b["found"].to_numpy(bool)) if len(a) and len(b)
        else (float("nan"),) * 2)
    if not len(a) or not len(b) or b["found"].mean() < 0.5:
        out["no_late_cluster"] = None
    elif out["late_p"] < 0.05:
        out["no_late_cluster"] = False
    else:
        out["no_late_cluster"] = True if out["late_ci_high"] < CLUSTER_MARGIN else None
    return out


def check_h4(ledger, df: pd.DataFrame, window: int, lengths_note: str = "") -> dict:
    """H4's three parts as claims of ``ledger`` (one ledger per model), each *not testable with this model* when the
    full-context cells it reads are at the floor (:func:`h4_floors`); returns :func:`h4_tests`' values."""
    t = h4_tests(df, window)
    floors = h4_floors(df)
    note = f" ({lengths_note})" if lengths_note else ""
    ledger.check("H4a", our_value=f"{t['complex_found']:.0%} of cells found", passed=t["complex_everywhere"],
                 evidence=f"deterministic recall >= {FOUND_RECALL} in every complex-needle cell{note}",
                 anchor="needle-claims", floor=floors["H4a"])
    ledger.check("H4b", our_value=f"fail rate {t['simple_fail_rate']:.0%}; {t['simple_early_fails']} misses below "
                 f"{int(EARLY_SHARE * window)} tokens", passed=t["simple_fails_late"],
                 evidence=f"window taken as {window} tokens (the longest length tested){note}",
                 anchor="needle-claims", floor=floors["H4b"])
    lo, hi = t["late_ci_low"], t["late_ci_high"]
    ledger.check("H4c", our_value=f"fail {t['late_fail']:.0%} in the lower right (long context, depth ≥ 50 %) vs "
                 f"{t['rest_fail']:.0%} elsewhere "
                 f"(difference 95 % CI [{100 * lo:+.0f}, {100 * hi:+.0f}] pp; Fisher p = {t['late_p']:.3f})",
                 passed=t["no_late_cluster"],
                 evidence=f"both needles; reproduced when the interval lies below +{100 * CLUSTER_MARGIN:.0f} pp, "
                          "not reproduced when Fisher's one-sided test finds a cluster (p < 0.05), inconclusive "
                          f"otherwise or when fewer than half of the other cells are found{note}",
                 anchor="needle-claims", floor=floors["H4c"])
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
