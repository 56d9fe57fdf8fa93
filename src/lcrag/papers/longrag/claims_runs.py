"""LongRAG's behavioural claims decided on our per-question results (paired bootstrap intervals).

:func:`run_claims` decides the claims the paper makes about behaviour (E&F beats R&B, R&L is not robust, the
extractor is the main contributor, the filter alone is marginal, E&F is best; the token order of C13 and the
retrieval setting of C16a when the results carry them) on our runs, with the paired bootstrap intervals of
:func:`lcrag.papers.longrag.differences.strategy_differences`, and the paper's central claim C1 (LongRAG beats
long-context LLMs) as E&F against our long-context arm, Full. Claim ids end in ``-ours``. The claims on the grid
and the transfer sections (C16a, C14) are in :mod:`lcrag.papers.longrag.claims_sections`; the same claims on the
paper's own tables are in :mod:`lcrag.papers.longrag.claims_paper`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import pandas as pd

from lcrag.book import verdicts
from lcrag.book.claims import all_of, greater, less
from lcrag.book.verdicts import per_unit_floor
from lcrag.papers.longrag.claims_paper import MARGINAL_POINTS
from lcrag.papers.longrag.differences import RUN_PAIRS, check_results, strategy_differences
from lcrag.papers.longrag.names import DEFAULT_SETTING, STRATEGIES
from lcrag.papers.longrag.recomputed import TOKEN_ORDER, strategy_pairwise
from lcrag.stats import signed_interval


def _majority(verdicts: Sequence[bool | None]) -> bool | None:
    """True if more than half passed, False once a majority can no longer pass, None otherwise."""
    n = len(verdicts)
    if n == 0:
        return None
    if sum(v is True for v in verdicts) > n / 2:
        return True
    if sum(v is False for v in verdicts) >= n - n // 2:
        return False
    return None


def _negate(v: bool | None) -> bool | None:
    return None if v is None else not v


def _fmt(rows: pd.DataFrame) -> str:
    """``dataset +3.1 [-1.0, +7.2] (n=30)`` per row, in F1 points; when the rows hold more than one pair of
    strategies (C11: E&F against each other one), each names its pair: ``dataset E&F − R&B +3.1 [...]``."""
    several = len(rows[["a", "b"]].drop_duplicates()) > 1

    def pair(r) -> str:
        return f" {r.a} − {r.b}" if several else ""

    return "; ".join(
        f"{r.dataset}{pair(r)} {signed_interval(r.diff, r.diff_lo, r.diff_hi)} (n={r.n_questions})"
        for r in rows.itertuples()
    )


def floored_datasets(rows: pd.DataFrame, strategies) -> dict[str, str]:
    """The datasets on which a claim about ``strategies`` cannot be decided, each with its reason: one of the
    strategies has a mean F1 (0-1) below the floor there (:func:`lcrag.book.verdicts.floor_reason`).

    The chapter's floor rule, in one place: its claims (:func:`run_claims`) and its comparison in the synthesis
    (:mod:`lcrag.papers.longrag.comparison`) both ask it (:func:`dataset_floor`), so they always agree."""
    from lcrag.book.verdicts import floor_reason

    means = rows[rows["strategy"].isin(list(strategies))].groupby(["dataset", "strategy"], sort=False)["f1"].mean()
    out = {}
    for d, by_s in means.groupby(level="dataset", sort=False):
        reason = floor_reason({f"{s} on {d} (mean F1)": {"score": float(f)} for (_, s), f in by_s.items()})
        if reason:
            out[d] = reason
    return out


def _floors(rows: pd.DataFrame, strategies) -> tuple[str | None, str]:
    """(floor reason, evidence note) of a claim on ``strategies`` (:func:`lcrag.book.verdicts.per_unit_floor`
    over datasets): not testable only when every dataset is floored; floored datasets decide nothing."""
    return dataset_floor(rows, strategies)[1:]


def dataset_floor(rows: pd.DataFrame, strategies) -> tuple[list[str], str | None, str]:
    """The chapter's floor rule for a comparison of ``strategies`` over datasets (:func:`floored_datasets`,
    :func:`lcrag.book.verdicts.per_unit_floor`): (the datasets that decide it, the reason it is *not testable with
    this model* when every dataset is floored else None, the evidence note naming the floored datasets)."""
    ran = list(dict.fromkeys(rows.loc[rows["strategy"].isin(list(strategies)), "dataset"]))
    floored = floored_datasets(rows, strategies)
    reason, note = per_unit_floor(floored, ran)
    return [d for d in ran if d not in floored], reason, note


def f1_floor(rows: pd.DataFrame, strategies) -> str | None:
    """Why a claim on ``strategies`` is *not testable with this model*: on every dataset one of them is at the
    floor (:func:`floored_datasets`); None when some dataset can decide it."""
    return _floors(rows, strategies)[0]


def _floor_note(rows: pd.DataFrame, strategies) -> str:
    """``; not deciding (at the floor): ...`` for the floored datasets when others decide the claim."""
    return _floors(rows, strategies)[1]


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
    at the floor (:func:`f1_floor`) is *not testable with this model*.
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
        return ev + inputs_note(main[main["strategy"].isin(compared)]) + _floor_note(main, compared)

    def unrun(*strategies: str) -> str | None:
        return not_run(main, strategies or STRATEGIES)

    ledger.check(
        "C1-ours",
        our_value=_fmt(pair("E&F", "Full")) or "not run",
        passed=all_of(tests("E&F", "Full")),
        evidence=f"our runs ({gen}); per dataset E&F − Full F1 difference in points (section 5's Full − E&F, "
        "reversed), paired bootstrap 95% CI over questions; the paper's long-context LLMs are other models, Full is "
        "the same generator given the whole context" + inputs_note(main[main["strategy"].isin(["E&F", "Full"])])
        + _floor_note(main, ["E&F", "Full"]),
        floor=floor("E&F", "Full"),
        not_run=unrun("E&F", "Full"),
        anchor="longrag-differences",
    )
    ledger.check(
        "C4-ours",
        our_value=_fmt(pair("E&F", "R&B")) or "not run",
        passed=all_of(tests("E&F", "R&B")),
        evidence=evidence("E&F", "R&B"),
        floor=floor("E&F", "R&B"),
        not_run=unrun("E&F", "R&B"),
    )
    not_robust = _negate(all_of(tests("R&L", "R&B")))  # robust = significantly above R&B on every dataset
    ledger.check(
        "C8-ours",
        our_value=_fmt(pair("R&L", "R&B")) or "not run",
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
            our_value=_fmt(pair("Ext", b)) or "not run",
            passed=_majority(tests("Ext", b)),
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
        our_value=_fmt(pair("Fil", "R&B")) or "not run",
        passed=all_of([_negate(v) for v in big]),
        evidence=evidence("Fil", "R&B"),
        floor=floor("Fil", "R&B"),
        not_run=unrun("Fil", "R&B"),
    )
    ledger.check(
        "C11-ours",
        our_value=_fmt(diffs[(diffs["a"] == "E&F") & diffs["b"].isin(STRATEGIES)]) or "not run",
        passed=_majority(_ef_best(diffs, floored_datasets(main, STRATEGIES))),
        evidence=evidence(),
        floor=floor(),
        not_run=unrun(),
    )
    if "tokens" in rows.columns:
        _check_tokens_ours(ledger, main, tests("E&F", "R&B"), gen, floor("E&F", "R&B"),
                           inputs_note(main[main["strategy"].isin(TOKEN_ORDER)]) + _floor_note(main, ["E&F", "R&B"]),
                           _fmt(pair("E&F", "R&B")))
    from lcrag.papers.longrag.claims_sections import check_settings, check_transfer

    if settings is not None:
        check_settings(ledger, settings[settings["generator"] == gen], gen, n, seed, main=main)
    elif "setting" in rows.columns:
        check_settings(ledger, rows, gen, n, seed, main=main)
    if transfer is not None:
        check_transfer(ledger, main, transfer, gen, n, seed)
    return diffs


def not_run(rows: pd.DataFrame, strategies: Collection[str], column: str = "strategy") -> str | None:
    """Why a claim comparing ``strategies`` cannot be tested on ``rows`` (the run left some out: a profile's
    ``strategies``, ``grid``), or None when every one of them ran (:func:`lcrag.book.verdicts.not_run`)."""
    return verdicts.not_run(strategies, rows[column])


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
    ``ef_rb``: the E&F − R&B intervals (:func:`_fmt`), shown in the evidence: with the order holding, they decide."""
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
