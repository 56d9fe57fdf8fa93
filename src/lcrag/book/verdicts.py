"""The verdict rules, written once: what a claim's verdict may say given its evidence (the book's page
``book/verdicts.md`` states them for readers; :mod:`lcrag.book.claims` applies them to every ledger).

1. **Source.** Every claim names where its evidence comes from (:data:`SOURCES`): the paper's own tables, the
   paper's released artefacts, our run of a model (named), computation that needs no model, or none
   (:data:`NOTHING_CHECKED`: a claim whose values no one released or this book did not digitise, so no value was checked).
2. **Decided only when the evidence excludes the alternative.** A claim about model behaviour is *reproduced* or
   *not reproduced* only when its interval or test excludes the other answer (``claims.greater`` / ``less`` with
   a confidence interval); an interval that contains both answers is *inconclusive*.
3. **Not testable with this model.** When an arm the claim compares is at the floor, the claim measures the
   model, not the paper: the verdict is *not testable with this model*, never *not reproduced*. An arm is at
   the floor (:func:`floor_reason`) when its accuracy's 95 % interval reaches down to chance (contains it or lies
   below it), its score (F1, KPR, recall on a 0-1 scale) is below :data:`FLOOR_SCORE`, more than
   :data:`FLOOR_UNPARSEABLE` of its answers are unparseable, or its judge gives one value to everything. A claim that a change *lowers* a score needs only
   the arm before the change above the floor (the change taking the score to the floor is the effect measured);
   a claim over every answer pooled is at the floor when the pooled score is. A claim over several datasets is
   decided per dataset: one where an arm is at the floor decides nothing, and the claim is not testable only when
   every dataset is (e.g. :func:`lcrag.papers.longrag.claims_common.f1_floor`). A run that left out an arm the claim
   compares (a profile without it: ``companion``) cannot test it either (:func:`not_run`); the evidence says
   which reason applies (:data:`REASON_LABELS`, read back by :func:`untestable_because`).
4. **Not testable (data not released).** A claim whose data were never released (the paper's data set, its human
   labels, its intermediate outputs) cannot be tested by any run: it gets a verdict of its own, never
   *inconclusive* (which is an interval that contains both answers), and its evidence says what is missing after
   :data:`NOT_RELEASED` (``ClaimsLedger.check``'s ``unreleased``). A claim whose values the paper prints only in a
   figure (a plot without numbers, which the text of the paper this book reads does not hold) is *not checked
   (values only in a figure)*: the values exist, anyone may read them off the plot, but this book has not; its
   evidence names the figure after :data:`FIGURE_ONLY` (``ClaimsLedger.check``'s ``figure_only``). Neither has a
   test, and neither is credited to a source of evidence (:data:`NOTHING_CHECKED`).
5. **Judges measured before they are trusted.** A judge is chosen to decide claims only with at least
   :data:`MIN_JUDGE_PAIRS` human-labelled pairs (:func:`choose_judge`); with fewer, it is not eligible.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

PAPER_TABLES = "paper tables"
RELEASED_ARTEFACTS = "released artefacts"
OUR_RUN = "our run"
NO_MODEL = "no model"
#: The source of a claim on which no value was checked: its data never released, or its values printed only in a
#: figure that this book has not digitised (rule 4).
NOTHING_CHECKED = "none (nothing released or digitised to check)"
SOURCES: tuple[str, ...] = (PAPER_TABLES, RELEASED_ARTEFACTS, OUR_RUN, NO_MODEL, NOTHING_CHECKED)

FLOOR_SCORE = 0.05  # an F1 / KPR / recall below this (0-1 scale) is at the floor
FLOOR_UNPARSEABLE = 0.5  # more than half the answers unparseable
MIN_JUDGE_PAIRS = 30  # human-labelled pairs a judge needs before it may decide claims
#: Cohen's kappa with the human labels ("moderate" agreement, Landis and Koch) a second judge needs before its
#: agreement may corroborate a verdict the deciding judge cannot give alone (Long²RAG's C10 and C14: the lexical
#: judge favours long answers by construction).
MIN_CHECK_KAPPA = 0.4
CONFIDENCE = 0.95
#: How a claim's evidence names the datasets (or other units) that decided nothing because an arm is at the floor
#: there, when other units decided the claim (rule 3).
PARTIAL_FLOOR = "not deciding (at the floor)"
#: The labels a claim's evidence gives the reason it is not testable: an arm at the floor, an arm this run left out,
#: another reason (``ClaimsLedger.check``'s ``floor``, ``not_run`` and ``untestable``).
AT_FLOOR, NOT_RUN, OTHER_REASON = REASON_LABELS = ("at the floor", "not run", "not testable")
#: How a *not testable (data not released)* claim's evidence says that no run can decide it: the data it needs (the
#: paper's data set, its human labels, its intermediate outputs) were never released.
NOT_RELEASED = "not released"
#: How a *not checked (values only in a figure)* claim's evidence names the figure whose values it needs: the paper
#: prints them only as a plot, which this book has not digitised (its text of the paper holds no numbers for it).
FIGURE_ONLY = "values only in a figure"


def accuracy_at_floor(n_correct: int, n: int, chance: float, confidence: float = CONFIDENCE) -> bool:
    """True when the accuracy's exact (Clopper-Pearson) interval reaches down to chance: the arm cannot be
    told apart from guessing (below chance counts too). No cases is the floor."""
    if n <= 0:
        return True
    from lcrag.stats import exact_interval

    return bool(exact_interval(n_correct, n, confidence)[0] <= chance)


def accuracy_floor_text(n_correct: int, n: int, chance: float, confidence: float = CONFIDENCE) -> str:
    """Why an accuracy is at the floor, saying which of the two it is: ``"28 of 158 right (0.18), exact interval
    [12.1, 24.6] % lies below chance 25 %"`` or ``"40 of 158 right (0.25), exact interval [18.7, 32.8] % reaches chance
    25 %"`` (it contains chance). No cases: ``"0 of 0 right"``."""
    if n <= 0:
        return f"{n_correct} of {n} right"
    from lcrag.stats import exact_interval

    lo, hi = exact_interval(n_correct, n, confidence)
    where = "lies below" if hi < chance else "reaches"
    return (f"{n_correct} of {n} right ({n_correct / n:.2f}), exact interval [{100 * lo:.1f}, {100 * hi:.1f}] % "
            f"{where} chance {100 * chance:g} %")


def score_at_floor(score: float, threshold: float = FLOOR_SCORE) -> bool:
    """True when a 0-1 score (F1, KPR, recall) is below ``threshold`` (or missing)."""
    return bool(score is None or not np.isfinite(score) or score < threshold)


def unparseable_at_floor(n_unparseable: int, n: int, share: float = FLOOR_UNPARSEABLE) -> bool:
    """True when more than ``share`` of ``n`` answers could not be parsed (no answers is the floor)."""
    return bool(n <= 0 or n_unparseable / n > share)


def constant(values: Iterable) -> bool:
    """True when a judge (or model) gave the same value to every one of at least two items."""
    vals = [v for v in values if not (isinstance(v, float) and np.isnan(v))]
    return len(vals) >= 2 and len(set(vals)) == 1


def floor_reason(arms: dict[str, dict]) -> str | None:
    """Why a comparison is not testable, or None. ``arms`` maps an arm's name to what is known of it:
    ``{"correct": k, "n": n, "chance": p}`` (accuracy), ``{"score": x}`` (0-1 score), ``{"unparseable": u,
    "n": n}``, ``{"values": [...]}`` (a judge's values); several keys may be given. The reason names every arm
    at the floor and why, e.g. ``"RAG: 42 of 158 right (0.27), exact interval [19.9, 34.2] % reaches chance 25 %"``
    (:func:`accuracy_floor_text`)."""
    reasons = []
    for name, a in arms.items():
        if {"correct", "n", "chance"} <= set(a) and accuracy_at_floor(a["correct"], a["n"], a["chance"]):
            reasons.append(f"{name}: {accuracy_floor_text(a['correct'], a['n'], a['chance'])}")
        if "score" in a and score_at_floor(a["score"], a.get("threshold", FLOOR_SCORE)):
            reasons.append(f"{name}: {100 * a['score']:.1f} points, below {100 * a.get('threshold', FLOOR_SCORE):g}")
        if "unparseable" in a and unparseable_at_floor(a["unparseable"], a["n"]):
            reasons.append(f"{name}: {a['unparseable']} of {a['n']} answers unparseable")
        if "values" in a and constant(a["values"]):
            reasons.append(f"{name}: constant ({next(iter(a['values']))!r} for every item)")
    return "; ".join(reasons) or None


def per_unit_floor(floored: dict[str, str], units: Iterable[str]) -> tuple[str | None, str]:
    """Rule 3 for a claim decided unit by unit (datasets, tasks): ``floored`` maps each unit where an arm is at the
    floor to its reason. Returns (the claim's floor reason, when every unit that ran is floored, else None; the
    evidence note naming the floored units that decided nothing, when others decided, else "")."""
    ran = set(units)
    if not floored:
        return None, ""
    if ran and set(floored) >= ran:
        return "; ".join(floored.values()), ""
    return None, f"; {PARTIAL_FLOOR}: " + "; ".join(floored.values())


def not_run(wanted: Iterable[str], ran: Iterable[str]) -> str | None:
    """Why a claim comparing the arms ``wanted`` cannot be tested on a run whose arms are ``ran`` (a profile left
    some out), e.g. ``"E&F (the run has R&B)"`` (the evidence reads ``not run: E&F (the run has R&B)``); None
    when every one ran."""
    ran = list(dict.fromkeys(ran))
    missing = [w for w in dict.fromkeys(wanted) if w not in ran]
    if not missing:
        return None
    return f"{', '.join(missing)} (the run has {', '.join(ran) or 'none'})"


def untestable_because(evidence: str) -> str | None:
    """The label (:data:`REASON_LABELS`) of the reason a *not testable* claim's ``evidence`` gives, a run that left
    an arm out first (then the floor is beside the point), or None when it gives none."""
    return next((label for label in (NOT_RUN, AT_FLOOR, OTHER_REASON) if f"{label}: " in str(evidence)), None)


def choose_judge(agreement: pd.DataFrame, judges: Sequence[str], min_pairs: int = MIN_JUDGE_PAIRS,
                 half: str = "held-out", metric: str = "kappa") -> str | None:
    """The judge among ``judges`` with the highest agreement ``metric`` (Cohen's kappa; SummHay: Pearson r with the
    human coverage scores) on ``half``, among those measured on at least ``min_pairs`` labelled pairs (columns
    ``judge``, ``half``, ``n`` and ``metric``). None when no judge is eligible."""
    a = agreement[(agreement["half"] == half) & agreement["judge"].isin(list(judges))].dropna(subset=[metric])
    a = a[a["n"] >= min_pairs]
    if a.empty:
        return None
    return str(a.sort_values([metric, "n"], ascending=False, kind="stable")["judge"].iloc[0])


def source_of(model: str) -> str:
    """The evidence source a ledger's ``model`` field implies: the papers' tables and released artefacts are
    named as such by the chapters (``PAPER_TABLES_MODEL``, ``ARTEFACT_MODEL``), a computation without a model as
    ``"no model"`` (or ``"no model (...)"``, saying what it used instead: a tokenizer); anything else is a model
    run. (A claim with nothing to check gets :data:`NOTHING_CHECKED` from ``ClaimsLedger.check``, whatever its
    model.)"""
    text = str(model).lower()
    if "published tables" in text or "paper tables" in text:
        return PAPER_TABLES
    if "released artefacts" in text:
        return RELEASED_ARTEFACTS
    if text in ("", "none") or text.startswith(NO_MODEL):
        return NO_MODEL
    return OUR_RUN
