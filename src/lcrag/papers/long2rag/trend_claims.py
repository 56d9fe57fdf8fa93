"""Long²RAG's length-trend claims on our runs: C10 (KPR decreases as the input grows, the paper's Fig. 6) and C14
(KPR grows with generation length, its Fig. 7; their words are long2rag/claims.csv's), each decided by the rank trend of KPR with the length within each
document variant and each kind of item, news or conversations (:func:`lcrag.papers.long2rag.lengths.
within_variant_rank`), with the lexical judge only where a second judge corroborates it (:func:`trend_claim`).
The same corroboration decides a pair of variants that the lexical judge tells apart in favour of the one with the
longer answers (:func:`lexical_pair`: C12's and C13's pairs, and the synthesis's whole-vs-truncated rows).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from lcrag.book.verdicts import MIN_CHECK_KAPPA
from lcrag.papers.long2rag.lengths import RankTrend, within_variant_rank
from lcrag.stats import bootstrap_diff, signed_interval

#: Why the lexical judge's KPR rises with answer length by construction (C14's evidence says so)
LEXICAL_LENGTH_NOTE = ("the lexical judge scores a key point by its best-matching sentence of the answer, so a "
                       "longer answer has more chances to match: part of a rising trend is the judge's")
#: Why the lexical judge cannot decide C10 alone either (C10's evidence says so)
LEXICAL_INPUT_NOTE = ("the lexical judge's KPR grows with the answer's length by construction, and the answers' "
                      "length may move with their input: part of an input trend may be the judge's")
#: Each claim (its text and paper value: long2rag/claims.csv): its column, what is measured, the side of 0 it claims
#: and its lexical judge's note.
TRENDS = {
    "C10": ("input_tokens", "input", -1, LEXICAL_INPUT_NOTE),
    "C14": ("completion_tokens", "answer", 1, LEXICAL_LENGTH_NOTE),
}


def _verdict(lo: float, hi: float, sign: int = 1) -> bool | None:
    """A claim that ``sign * difference > 0``: True when the 95 % interval lies on that side of 0, False when it
    lies on the other side, None (inconclusive) when it contains 0 or cannot be computed."""
    if np.isnan(lo) or np.isnan(hi):
        return None
    lo, hi = sorted((sign * lo, sign * hi))
    return True if lo > 0 else False if hi < 0 else None


def kinds_contrast(t: RankTrend, what: str) -> str:
    """Why the trend is read within each kind of item, from the data: each kind's questions, mean length and mean
    KPR over all its responses, and which way they go together across the kinds (``; the kinds of item differ
    (conversations: 20 questions, mean input 1,606 tokens, KPR 0.077; news: ...): the kind with the longer inputs
    has the lower KPR, a trend across them that is the kind's, not the length's``); "" with fewer than two kinds."""
    if len(t.kinds) < 2:
        return ""
    parts = [f"{k}: {n} questions, mean {what} {length:,.0f} tokens, KPR {kpr:.3f}"
             for k, (n, length, kpr) in t.kinds.items()]
    by_length = sorted(t.kinds.values(), key=lambda v: v[1])
    short, long = by_length[0][2], by_length[-1][2]  # the mean KPR of the kinds with the shortest, longest lengths
    way = "lower" if long < short else "higher" if long > short else "same"
    return (f"; the kinds of item differ ({'; '.join(parts)}): the kind with the longer {what}s has the {way} "
            "KPR, a trend across them that is the kind's, not the length's")


def length_claim(ledger, cid: str, mine: pd.DataFrame, ev: str, pooled: str | None, cap: int | None = None,
                 n_boot: int = 2000, seed: int = 0, check: tuple[str, pd.DataFrame] | None = None,
                 undecided: str = "") -> None:
    """C10 (KPR falls as the input grows, ``input_tokens``) or C14 (KPR grows with generation length,
    ``completion_tokens``, :data:`TRENDS`) on one judge's responses ``mine``: the rank trend within each variant
    and kind of item (:func:`lcrag.papers.long2rag.lengths.within_variant_rank`), reproduced when its interval lies
    on the claim's side of 0 (below for C10, above for C14), not reproduced when on the other, else inconclusive.
    Not on length bins: the bins hold different variants (the truncated documents fill the short input bins; the
    truncated documents' short answers and the answers that hit the ``cap``, the ends of the generation axis), so
    comparing them measures the variants; nor across the kinds of item (the conversation items have longer inputs
    and lower KPR than the news items), which would measure the kind. ``pooled``: the floor reason of all the
    responses, if any. ``check``: (name, responses) of a second judge whose trend must agree for a verdict (a judge
    that favours long answers by construction cannot decide a length claim alone): the claim is inconclusive when
    the two disagree. ``undecided``: why no verdict may be given whatever the trends (the evidence says it; the
    trend is shown)."""
    column, what, sign, _ = TRENDS[cid]
    if column not in mine:
        ledger.check(cid, our_value=None, passed=None,
                     evidence=f"no {what} lengths given; {ev}")
        return
    t = within_variant_rank(mine, column, cap, n_boot, seed)
    if np.isnan(t.rho):
        ledger.check(cid, our_value=None, passed=None, floor=pooled,
                     evidence=f"no document variant and kind of item in which both the {what}'s length and KPR "
                     f"vary over three or more questions; {ev}")
        return
    at_cap = f"; {t.capped} of {t.responses} answers hit the {cap}-token cap (tied at the top rank)" if cap else ""
    passed, checked = _verdict(t.lo, t.hi, sign), ""
    if check is not None:
        name, theirs = check
        c = within_variant_rank(theirs, column, cap, n_boot, seed)
        other = _verdict(c.lo, c.hi, sign)
        checked = f"; judged by {name}: {signed_interval(c.rho, c.lo, c.hi, scale=1, digits=3)}"
        if passed is None:  # the deciding judge's own interval contains 0: that is why, whatever the other judge
            ev += (f"; inconclusive: the interval contains 0 ({_lean(t.rho, sign)}); the {name} judge's "
                   f"{_lean(c.rho, sign)}" + (f"; {undecided}" if undecided else ""))
            undecided = ""
        elif not undecided:  # the second judge may corroborate: its trend decides
            agrees, passed = other == passed, (passed if other == passed else None)
            ev += (f"; decided only where the {name} judge's trend agrees ("
                   + ("it does" if agrees else "it does not: inconclusive") + ")")
        else:  # it may not: why first, then its trend, which is shown and decides nothing
            undecided += (f"; its trend {'agrees' if other == passed else 'does not agree'} with this one, but "
                          "decides nothing")
    if undecided:
        passed, ev = None, f"{ev}; inconclusive: {undecided}"
    kinds = sorted({c.split("/", 1)[1] for c in t.cells if "/" in c})
    ledger.check(cid, our_value=f"Spearman rho({what} length, KPR) within {_cells(t, bool(kinds))}: "
                 f"{signed_interval(t.rho, t.lo, t.hi, scale=1, digits=3)}{at_cap}{checked}",
                 passed=passed, floor=pooled,
                 evidence=f"{ev}; within each variant ({', '.join(map(_name, t.variants))})"
                 + (f" and kind of item ({', '.join(kinds)})" if kinds else "")
                 + ", so that the variants' own differences in length and KPR are not read as a trend"
                 + kinds_contrast(t, what) + "; 95 % percentile bootstrap interval over questions"
                 + (", resampled within each kind" if kinds else ""))


def _lean(rho: float, sign: int) -> str:
    """Which way a trend's point estimate leans: ``point estimate +0.021 leans against the claimed fall of KPR``
    (``sign``: the side of 0 the claim is on, -1 a fall)."""
    way = "leans towards" if sign * rho > 0 else "leans against" if sign * rho < 0 else "is 0, on neither side of"
    return f"point estimate {rho:+.3f} {way} the claimed {'rise' if sign > 0 else 'fall'} of KPR"


def _cells(t: RankTrend, kinds: bool) -> str:
    """Where the trend is read and over how many answers: ``a variant and kind of item, mean over 12 cells of 20
    questions each (240 answers)``."""
    where, unit = ("a variant and kind of item", "cells") if kinds else ("a variant", "variants")
    sizes = sorted(set(t.cell_questions))
    each = (f"{sizes[0]} questions each" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]} questions"
            ) if sizes else f"{t.questions} questions in all"
    return f"{where}, mean over {len(t.cells)} {unit} of {each} ({t.responses} answers)"


def trend_claim(ledger, cid: str, mine: pd.DataFrame, ev: str, pooled: str | None, cap: int | None = None,
                n_boot: int = 2000, seed: int = 0, judge: str = "", others: pd.DataFrame | None = None,
                held_out: Mapping[str, float] | None = None) -> None:
    """C10 or C14 (:data:`TRENDS`): :func:`length_claim`. With the lexical ``judge``, whose KPR grows with the
    answer's length by construction (:data:`LEXICAL_LENGTH_NOTE`; the answers' length may move with the input,
    :data:`LEXICAL_INPUT_NOTE`), the evidence says so and the first other judge of ``others`` (the LLM judge's
    responses) must show the same trend for a verdict, and must agree with the humans at least moderately
    (``held_out``: each judge's Cohen's kappa on the judged sample's held-out half, at least
    :data:`~lcrag.book.verdicts.MIN_CHECK_KAPPA`): a weak judge's agreement corroborates nothing."""
    cap = cap if cid == "C14" else None
    if judge != "lexical":
        return length_claim(ledger, cid, mine, ev, pooled, cap, n_boot, seed)
    names = [] if others is None else [j for j in dict.fromkeys(others["judge"]) if j != judge]
    check = (names[0], others[others["judge"] == names[0]]) if names else None
    length_claim(ledger, cid, mine, f"{ev}; {TRENDS[cid][3]}", pooled, cap, n_boot, seed, check=check,
                 undecided=_weak_check(names[0] if names else None, held_out or {}))


def _weak_check(name: str | None, held_out: Mapping[str, float]) -> str:
    """Why the second judge ``name`` cannot corroborate the lexical judge's trend (none, unmeasured, or its kappa
    with the humans below :data:`~lcrag.book.verdicts.MIN_CHECK_KAPPA`), or "" when it can."""
    if name is None:
        return "no second judge scored the answers to corroborate the lexical judge"
    kappa = held_out.get(name, float("nan"))
    if np.isnan(kappa):
        return f"the {name} judge's agreement with the humans was not measured, so it cannot corroborate"
    if kappa < MIN_CHECK_KAPPA:
        return (f"the {name} judge agrees with the humans too weakly to corroborate (Cohen's kappa {kappa:.3f} on "
                f"the judged sample's held-out half, below {MIN_CHECK_KAPPA})")
    return ""


#: What the lexical judge's "better" becomes when the arm it favours wrote the longer answers and no qualified
#: second judge agrees (:func:`lexical_pair`): not a verdict.
UNCORROBORATED = "not corroborated"


def lexical_pair(responses: pd.DataFrame, a: str, b: str, verdict: bool | None, judge: str = "lexical",
                 held_out: Mapping[str, float] | None = None, n_boot: int = 2000,
                 seed: int = 0) -> tuple[bool | None, str]:
    """The lexical judge's verdict on "variant ``a`` scores a higher KPR than ``b``" (``verdict``: True, False, or
    None when its interval contains 0), checked for its length bias (:data:`LEXICAL_LENGTH_NOTE`) as C10 and C14
    are (:func:`trend_claim`): when the arm it finds better wrote the longer answers on average (mean
    ``completion_tokens`` over the questions both arms answered), the verdict stands only where the first other
    judge of ``responses`` (one row per judge, variant and question: ``judge``, ``variant``, ``question_id``,
    ``recall``, ``completion_tokens``) finds the same side of 0 on the same questions and agrees with the humans at
    least moderately (``held_out``: Cohen's kappa on the judged sample's held-out half, at least
    :data:`~lcrag.book.verdicts.MIN_CHECK_KAPPA`); otherwise it is None. Returns (verdict, the note that says
    why: "" where nothing was checked: another judge, no verdict, or the better arm's answers not longer)."""
    if judge != "lexical" or verdict is None or "completion_tokens" not in responses:
        return verdict, ""
    wide = responses.pivot_table(index=["judge", "question_id"], columns="variant", values="recall")
    mine = wide.loc[judge][[a, b]].dropna()
    length = (responses[responses["judge"] == judge].pivot_table(index="question_id", columns="variant",
                                                                  values="completion_tokens").loc[mine.index])
    better, worse = (a, b) if verdict else (b, a)
    if not length[better].mean() > length[worse].mean():
        return verdict, ""
    side = (f"{_name(better)}'s answers are longer (mean {length[better].mean():.1f} vs {length[worse].mean():.1f} "
            "tokens), which the lexical judge favours")
    names = [j for j in dict.fromkeys(responses["judge"]) if j != judge]
    why = _weak_check(names[0] if names else None, held_out or {})
    if not names:
        return None, f"{UNCORROBORATED}: {side}; {why}"
    theirs = wide.loc[names[0]].reindex(mine.index)[[a, b]].dropna()
    d, lo, hi = bootstrap_diff(theirs[a], theirs[b], n_boot=n_boot, seed=seed)
    shown = f"{_name(a)} - {_name(b)} {signed_interval(d, lo, hi, ' pp')}"
    if why:
        return None, f"{UNCORROBORATED}: {side}; {why}; it finds {shown}"
    if _verdict(lo, hi) != verdict:
        return None, f"{UNCORROBORATED}: {side}; the {names[0]} judge does not find {_name(better)} better ({shown})"
    return verdict, f"corroborated: {side}; the {names[0]} judge agrees ({shown})"


def _name(variant: str) -> str:
    """A variant as readers see it: ``none`` (no processing, the data's key) is the whole documents."""
    return "whole" if variant == "none" else variant
