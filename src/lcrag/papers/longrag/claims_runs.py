"""LongRAG's behavioural claims decided on our per-question results (paired bootstrap intervals).

:func:`run_claims` decides the claims the paper makes about behaviour (E&F beats R&B, R&L is not robust, the
extractor is the main contributor, the filter alone is marginal, E&F is best; the token order of C13 and the
retrieval setting of C16a when the results carry them) on our runs, with the paired bootstrap intervals of
:func:`lcrag.papers.longrag.differences.strategy_differences`, and the paper's central claim C1 (LongRAG beats
long-context LLMs) as E&F against our long-context arm, Full. Claim ids end in ``-ours``. The claims on the grid
and the transfer sections (C16a, C14) are in :mod:`lcrag.papers.longrag.claims_sections`; the same claims on the
paper's own tables are in :mod:`lcrag.papers.longrag.claims_paper`; the floor rule and the rest both modules share
are in :mod:`lcrag.papers.longrag.claims_common`.
"""

from __future__ import annotations

from collections.abc import Collection

import pandas as pd

from lcrag.book.claims import all_of, greater, less
from lcrag.papers.longrag.claims_common import (
    f1_floor,
    floor_note,
    floored_datasets,
    intervals_text,
    majority,
    not_run,
)
from lcrag.papers.longrag.claims_paper import MARGINAL_POINTS
from lcrag.papers.longrag.claims_sections import check_settings, check_transfer
from lcrag.papers.longrag.differences import RUN_PAIRS, check_results, strategy_differences
from lcrag.papers.longrag.names import DEFAULT_SETTING, STRATEGIES
from lcrag.papers.longrag.recomputed import TOKEN_ORDER, strategy_pairwise


def _negate(v: bool | None) -> bool | None:
    return None if v is None else not v


def _pick_generator(results: pd.DataFrame, generator: str | None, ledger) -> str:
    """The generator whose rows decide the claims: the argument, else the ledger's model, else the only one."""
    gens = list(results["generator"].unique())
    if generator is not None:
        if generator not in gens:
            raise ValueError(f"generator {generator!r} not in results ({gens})")
        return generator
    if getattr(ledger, "model", None) in gens:
        return ledger.model
    if len(gens) == 1:
        return gens[0]
    raise ValueError(f"results hold several generators {gens}: pass generator=")


def inputs_note(rows: pd.DataFrame) -> str:
    """What the evidence adds about the strategies' answers' inputs, where the rows record it: how many were cut to the
    generator's window (``truncated``, the strategy cut most often) and, when the rows hold Fil or E&F answers, how
    often the CoT filter removed no chunk, so that Fil read R&B's input and E&F Ext's
    (:func:`lcrag.papers.longrag.cot_filter.removed_nothing`, per question); "" when neither happened."""
    from lcrag.papers.longrag.cot_filter import removed_nothing, removed_nothing_text

    parts = []
    if "truncated" in rows and rows["truncated"].fillna(False).astype(bool).any():
        cut = rows["truncated"].fillna(False).astype(bool)
        share = cut.groupby(rows["strategy"]).mean()
        parts.append(f"inputs cut to the generator's window in {int(cut.sum())} of {len(cut)} answers (most in "
                     f"{share.idxmax()}: {share.max():.0%})")
    counts = removed_nothing(rows)
    if counts and counts[1]:
        read = {"Fil": "Fil read R&B's input", "E&F": "E&F read Ext's"}
        parts.append(removed_nothing_text(counts) + ", so on those questions " + " and ".join(
            v for k, v in read.items() if k in set(rows["strategy"])))
    return "".join(f"; {p}" for p in parts)


def run_claims(
    ledger,
    results: pd.DataFrame,
    generator: str | None = None,
    n: int = 2000,
    seed: int = 0,
    settings: pd.DataFrame | None = None,
    transfer: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Check the behavioural claims on our per-question results, each with paired bootstrap 95 % CIs.

    ``results``: columns dataset, strategy, f1 (0-1 per question), question_id, generator; optional
    ``setting`` (e.g. ``200*7``: strategy claims use the default 200*7 rows, C16a compares E&F 200*7 with 500*3)
    and ``tokens`` (generator input tokens per question: C13). C1-ours compares E&F with the Full arm.
    ``settings``: the grid's rows (:func:`lcrag.papers.longrag.answering.settings_grid`), which decide C16a-ours
    instead of ``results``' own ``setting`` rows; ``transfer``: the transfer section's E&F answers with the
    components on another model (empty: the run skipped it), which decide C14-ours
    (:mod:`lcrag.papers.longrag.claims_sections`). Claim ids end in ``-ours``; a dataset decides a
    comparison only when its interval excludes the threshold, so small samples give *inconclusive*; a dataset on
    which a strategy the claim compares has a mean F1 at the floor decides nothing, and a claim with every dataset
    at the floor (:func:`~lcrag.papers.longrag.claims_common.f1_floor`) is *not testable with this model*.
    Returns the differences table the verdicts came from (:func:`strategy_differences`).
    """
    check_results(results)
    gen = _pick_generator(results, generator, ledger)
    rows = results[results["generator"] == gen]
    main = rows[rows["setting"] == DEFAULT_SETTING] if "setting" in rows.columns else rows
    diffs = strategy_differences(main, (*RUN_PAIRS, ("E&F", "Full")), n=n, seed=seed)
    ev = f"our runs ({gen}); per dataset F1 difference in points, paired bootstrap 95% CI over questions"

    def pair(a: str, b: str) -> pd.DataFrame:
        return diffs[(diffs["a"] == a) & (diffs["b"] == b)]

    def tests(a: str, b: str, margin: float = 0.0) -> list[bool | None]:
        """Per dataset: the interval's verdict, None (undecided) where ``a`` or ``b`` is at the floor."""
        floored = floored_datasets(main, (a, b))
        return [
            None if r.dataset in floored else greater(r.diff, 0.0, margin, ci=(r.diff_lo, r.diff_hi))
            for r in pair(a, b).itertuples()
        ]

    def floor(*strategies: str) -> str | None:
        return f1_floor(main, strategies or STRATEGIES)

    def evidence(*strategies: str) -> str:
        compared = strategies or STRATEGIES
        return ev + inputs_note(main[main["strategy"].isin(compared)]) + floor_note(main, compared)

    def unrun(*strategies: str) -> str | None:
        return not_run(main, strategies or STRATEGIES)

    ledger.check(
        "C1-ours",
        our_value=intervals_text(pair("E&F", "Full")) or "not run",
        passed=all_of(tests("E&F", "Full")),
        evidence=f"our runs ({gen}); per dataset E&F − Full F1 difference in points (section 5's Full − E&F, "
        "reversed), paired bootstrap 95% CI over questions; the paper's long-context LLMs are other models, Full is "
        "the same generator given the whole context" + inputs_note(main[main["strategy"].isin(["E&F", "Full"])])
        + floor_note(main, ["E&F", "Full"]),
        floor=floor("E&F", "Full"),
        not_run=unrun("E&F", "Full"),
        anchor="longrag-differences",
    )
    ledger.check(
        "C4-ours",
        our_value=intervals_text(pair("E&F", "R&B")) or "not run",
        passed=all_of(tests("E&F", "R&B")),
        evidence=evidence("E&F", "R&B"),
        floor=floor("E&F", "R&B"),
        not_run=unrun("E&F", "R&B"),
    )
    not_robust = _negate(all_of(tests("R&L", "R&B")))  # robust = significantly above R&B on every dataset
    ledger.check(
        "C8-ours",
        our_value=intervals_text(pair("R&L", "R&B")) or "not run",
        passed=not_robust,
        evidence=evidence("R&L", "R&B"),
        floor=floor("R&L", "R&B"),
        not_run=unrun("R&L", "R&B"),
    )
    pw = strategy_pairwise().set_index(["a", "b"])  # the paper's Table 3, cell by cell

    def cells(a: str, b: str, what: str = "cells") -> str:  # the paper value: a count of the paper's cells
        r = pw.loc[(a, b)]
        return f"{r['a_higher']}/{r['cells']} {what} [derived]"

    for cid, b in (("C9a-ours", "R&L"), ("C9b-ours", "R&B")):
        ledger.check(
            cid,
            f"Ext beats {b} on most datasets",
            paper_value=cells("Ext", b),
            our_value=intervals_text(pair("Ext", b)) or "not run",
            passed=majority(tests("Ext", b)),
            evidence=evidence("Ext", b),
            floor=floor("Ext", b),
            not_run=unrun("Ext", b),
        )
    big = tests("Fil", "R&B", margin=MARGINAL_POINTS / 100)  # True: the filter helps by more than the margin
    ledger.check(
        "C10-ours",
        f"The filter alone helps only marginally: the 95 % CI of Fil − R&B lies at or below "
        f"{MARGINAL_POINTS:g} points on every dataset",
        paper_value=f"mean Fil − R&B small; {cells('Fil', 'R&B', 'cells > 0')}",
        our_value=intervals_text(pair("Fil", "R&B")) or "not run",
        passed=all_of([_negate(v) for v in big]),
        evidence=evidence("Fil", "R&B"),
        floor=floor("Fil", "R&B"),
        not_run=unrun("Fil", "R&B"),
    )
    ledger.check(
        "C11-ours",
        our_value=intervals_text(diffs[(diffs["a"] == "E&F") & diffs["b"].isin(STRATEGIES)]) or "not run",
        passed=majority(_ef_best(diffs, floored_datasets(main, STRATEGIES))),
        evidence=evidence(),
        floor=floor(),
        not_run=unrun(),
    )
    if "tokens" in rows.columns:
        _check_tokens_ours(ledger, main, tests("E&F", "R&B"), gen, floor("E&F", "R&B"),
                           inputs_note(main[main["strategy"].isin(TOKEN_ORDER)]) + floor_note(main, ["E&F", "R&B"]),
                           intervals_text(pair("E&F", "R&B")))
    if settings is not None:
        check_settings(ledger, settings[settings["generator"] == gen], gen, n, seed, main=main)
    elif "setting" in rows.columns:
        check_settings(ledger, rows, gen, n, seed, main=main)
    if transfer is not None:
        check_transfer(ledger, main, transfer, gen, n, seed)
    return diffs


def _ef_best(diffs: pd.DataFrame, floored: Collection[str] = ()) -> list[bool | None]:
    """Per dataset: True if E&F is significantly above every other strategy that ran, False if one is
    significantly above E&F, None otherwise or on a ``floored`` dataset (``diffs`` from
    :func:`strategy_differences`; the CIs decide)."""
    out = []
    for dataset, d in diffs.groupby("dataset", sort=False):
        if dataset in floored:
            out.append(None)
            continue
        above = d[(d["a"] == "E&F") & d["b"].isin(STRATEGIES)]
        cis = [(r.diff_lo, r.diff_hi) for r in above.itertuples()]
        if any(less(0.0, 0.0, ci=ci) for ci in cis):
            out.append(False)
        elif cis and all(greater(0.0, 0.0, ci=ci) for ci in cis):
            out.append(True)
        else:
            out.append(None)
    return out


def _check_tokens_ours(ledger, rows: pd.DataFrame, ef_vs_rb: list[bool | None], gen: str,
                       floor: str | None = None, note: str = "", ef_rb: str = "") -> None:
    """C13 on our runs: mean generator input tokens in C13's order per dataset, and E&F beats R&B (datasets
    where E&F or R&B is at the floor decide neither part: what the extractor and filter feed is the model's).
    ``ef_rb``: the E&F − R&B intervals (:func:`~lcrag.papers.longrag.claims_common.intervals_text`), shown in the
    evidence: with the order holding, they decide."""
    means = rows.groupby(["dataset", "strategy"])["tokens"].mean().unstack()
    order = [s for s in TOKEN_ORDER if s in means.columns]
    floored = floored_datasets(rows, ["E&F", "R&B"])
    ok = {d: all(r[x] < r[y] for x, y in zip(order, order[1:], strict=False)) for d, r in means.iterrows()}
    text = "; ".join(f"{d}: " + " < ".join(f"{s} {means.loc[d, s]:.0f}" for s in order) for d in means.index)
    ledger.check(
        "C13-ours",
        our_value=text,
        passed=False if not all(v for d, v in ok.items() if d not in floored) else all_of(ef_vs_rb),
        evidence=f"our runs ({gen}); token order of mean generator input tokens (our tokenizer), "
        "E&F − R&B paired bootstrap 95% CI" + (f": {ef_rb}" if ef_rb else "") + note,
        floor=floor,
        not_run=not_run(rows, TOKEN_ORDER),
    )
