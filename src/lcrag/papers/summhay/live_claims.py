"""The claims our own runs can speak to (our model's verdicts, not checks of the paper's numbers)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from lcrag.book.verdicts import NO_MODEL
from lcrag.papers.summhay.paper_numbers import PAPER_ORACLE_CEILING


def live_ledger(model: str, *, live: pd.DataFrame, position: pd.DataFrame, ceilings: pd.DataFrame,
                judges: pd.DataFrame | None, n_subtopics: int, haystacks, budget: int, judge: str = "lexical",
                judge_specs: Mapping[str, str] | None = None):
    """A claims ledger of our own runs (model: ``model``, the summarizer, spelled as every chapter spells a model)
    with the claims they speak to (:func:`check_live_claims`; ``ceilings`` at every budget, the claims read the
    15k-token one; ``judge_specs``: each LLM judge's evaluator name to its model spec)."""
    from lcrag.book import ClaimsLedger

    ledger = ClaimsLedger(None, paper="summhay", model=model)
    scope = f"{n_subtopics} subtopics of {', '.join(haystacks)}, {budget}-token contexts"
    check_live_claims(ledger, live=live, position=position, ceiling=ceilings[ceilings["budget_tokens"] == 15000],
                      judges=judges, scope=scope, judge=judge, judge_specs=judge_specs)
    return ledger


def setting_floor(scores: Mapping[str, float]) -> str | None:
    """The chapter's floor rule for its live settings, in one place (its claims and its comparison in the synthesis,
    :mod:`lcrag.papers.summhay.comparison`, both ask it): why a comparison of these settings' pooled scores (0-100;
    NaN: not run) is *not testable with this model*, i.e. the settings below 5 points
    (:func:`lcrag.book.verdicts.floor_reason`), else None."""
    from lcrag.book.verdicts import floor_reason

    return floor_reason({label: {"score": x / 100} for label, x in scores.items() if not np.isnan(x)})


def _judge_for_c15(judges: pd.DataFrame) -> tuple[str, str] | None:
    """The LLM judge of ours that C15 tests and the half it is tested on: the one that agrees best with the humans
    on the fit half, tested on the held-out half; with no fit-half measurement (a subset of one half), the first
    LLM judge on the summaries it read (``all``). None without an LLM judge or GPT-4o's row."""
    from lcrag.book.verdicts import choose_judge
    from lcrag.papers.summhay.our_judges import as_agreement

    ours = [e for e in judges["evaluator"].unique() if str(e).startswith("llm:")]
    if not ours or "gpt-4o" not in set(judges["evaluator"]):
        return None
    best = choose_judge(as_agreement(judges), ours, half="fit", metric="cov_corr")
    if best is not None and ((judges["evaluator"] == best) & (judges["half"] == "held-out")).any():
        return best, "held-out"
    return ours[0], "all"


def check_live_claims(
    ledger,
    *,
    live: pd.DataFrame,
    position: pd.DataFrame,
    ceiling: pd.DataFrame,
    judges: pd.DataFrame | None,
    scope: str,
    judge: str = "lexical",
    judge_specs: Mapping[str, str] | None = None,
) -> None:
    """The claims our own runs can speak to, recorded in ``ledger`` (whose ``model`` names our model: these are
    our model's verdicts, not checks of the paper's numbers). ``live``:
    :func:`~lcrag.papers.summhay.live_runs.live_table`; ``position``:
    :func:`~lcrag.papers.summhay.live_runs.position_sensitivity`; ``ceiling``:
    :func:`~lcrag.papers.summhay.live_runs.oracle_citation_ceiling` at 15k tokens; ``judges``: the judges table
    (:func:`~lcrag.papers.summhay.our_judges.judges_table`, per half) on the records our LLM judges read (or None);
    ``judge``: the live table's judge whose scores decide. A claim on a setting whose score is at the floor
    (below 5 points: :func:`lcrag.book.verdicts.floor_reason`) is *not testable with this model*.

    Each claim names the model whose outputs decide it: the summarizer (the ledger's model) for the live claims,
    the LLM judge for C15 (its labels of the released summaries; ``judge_specs`` maps its evaluator name to its
    spec), and no model for C18 (a tokenizer's count)."""
    lex = live[(live["judge"] == judge) & (live["kind"] == "retrieval")].set_index("setting")
    ev = f"our live runs, {judge} judge; {scope}"

    def v(setting: str, metric: str) -> float:
        return float(lex.loc[setting, metric]) if setting in lex.index else float("nan")

    def floor(metric: str, *settings: str) -> str | None:  # a setting whose score is at the floor (0-100 scale)
        return setting_floor({f"{s} ({metric})": v(s, metric) for s in settings})

    if len(lex):
        best = lex["joint"].idxmax()
        ledger.check(
            "C1",
            our_value=f"{lex['joint'].max():.1f} ({best})",
            passed=bool(lex["joint"].max() <= 46.1),
            evidence=ev,
            floor=floor("joint", best),
        )
        if "oracle" in lex.index:
            ledger.check(
                "C4",
                "Oracle gives the highest Joint of all settings",
                paper_value="10 of 10",
                our_value=f"best: {best} ({lex['joint'].max():.1f}); oracle {v('oracle', 'joint'):.1f}",
                passed=None
                if lex["joint"].nunique() == 1
                else bool(v("oracle", "joint") >= lex["joint"].max()),
                evidence=ev,
                floor=floor("joint", "oracle", best),
            )
        if "random" in lex.index and len(lex) > 1:
            worst = lex["coverage"].idxmin()
            rc, others = lex.loc["random", "coverage"], lex["coverage"].drop("random")
            ledger.check(
                "C6",
                "Random retrieval gives the lowest Coverage",
                paper_value="10 of 10",
                our_value=f"lowest: {worst} ({lex['coverage'].min():.1f}); random {rc:.1f}",
                passed=None if rc == others.min() else bool(rc < others.min()),  # a tie decides nothing
                evidence=ev,
                floor=floor("coverage", "random", others.idxmin()),
            )
        if {"random", "oracle"} <= set(lex.index):
            r, o = v("random", "citation"), v("oracle", "citation")
            ledger.check(
                "C7",
                "Citation is higher with Oracle than with Random retrieval (RR3 not run)",
                paper_value="10 of 10",
                our_value=f"random {r:.1f}, oracle {o:.1f}",
                passed=None if np.isnan(r) or np.isnan(o) else bool(r < o),
                evidence=ev,
                floor=floor("citation", "random", "oracle"),
            )
    if len(position) and "sensitivity" in position:
        s = float(position["sensitivity"].iloc[0])
        ledger.check(
            "C14",
            our_value=f"{s:.1f}",
            passed=bool(s >= 9),
            evidence=f"window-sized haystack, orders {', '.join(c for c in position.columns)}; {ev}",
            floor=setting_floor({f"order {c} (joint)": float(position[c].iloc[0])
                                 for c in position.columns if c != "sensitivity"}),
        )
    else:
        ledger.check("C14", our_value="not run", evidence=ev,
                     not_run="a position run (its position_orders are empty)")
    tested = _judge_for_c15(judges) if judges is not None and len(judges) else None
    if tested is not None:
        e, half = tested
        spec = (judge_specs or {}).get(e, e)
        j = judges[judges["half"] == half].set_index("evaluator")
        where = ("chosen on the fit half, tested on the held-out half" if half == "held-out"
                 else "on the summaries it read")
        ledger.check(
            "C15",
            "An LLM judge with the released prompt agrees with humans at about GPT-4o's level "
            "(coverage correlation 0.716)",
            paper_value=0.716,
            our_value=f"{e}: {j.loc[e, 'cov_corr']:.3f} (GPT-4o on the same summaries "
            f"{j.loc['gpt-4o', 'cov_corr']:.3f})",
            passed=bool(j.loc[e, "cov_corr"] >= j.loc["gpt-4o", "cov_corr"] - 0.05),
            evidence=f"{spec} judging the released summaries (eval_benchmark_data.json), "
            f"{int(j.loc[e, 'n_insights'])} insights ({where}); pass = within 0.05 of GPT-4o on them",
            model=spec,
        )  # fmt: skip
    row = ceiling.set_index("haystack").loc["all"]
    ledger.check(
        "C18",
        "The best achievable citation F1 within a 15k-token Oracle context is 0.84",
        paper_value=PAPER_ORACLE_CEILING,
        our_value=f"{row['ceiling_f1']:.3f}",
        passed=bool(abs(row["ceiling_f1"] - PAPER_ORACLE_CEILING) <= 0.02),
        evidence=f"no model call: {int(row['insights'])} insights, Oracle contexts of {int(row['budget_tokens'])} "
        f"tokens (tokenizer of {row['tokenizer']}; the paper: cl100k_base, not loadable offline); pass = within 0.02",
        model=NO_MODEL,
    )
