"""An experiment family of the synthesis, and the tools a paper uses to write its own.

A :class:`Family` is what one chapter gives the synthesis: how to read its tables from the chapter's runs, how
to compare its long-context arm with its other arm(s), which comparison is its headline, how its detail table
is indexed and (optionally) its panels of a model's figure. The paper packages declare theirs in
``lcrag.papers.<paper>.comparison`` and carry them in their :class:`lcrag.chapters.Chapter`.

Each comparison is a row of :data:`COMPARISON_COLUMNS` made by :func:`comparison`: the long-context arm minus the
other arm on a 0-1 scale, with a 95 % interval where the tables keep per-question values, and its
:func:`reading`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from lcrag import chapters
from lcrag.book.claims import NOT_TESTABLE
from lcrag.stats import mean_ci, signed, signed_interval
from lcrag.text import count

NOT_RUN = "not run yet"
UNCLEAR = "no clear difference"  # a comparison's reading when its interval contains 0
#: A comparison's reading when its interval excludes 0 but the chapter's judge cannot decide it alone and no qualified
#: second judge corroborates it (Long²RAG's lexical judge favours the arm with the longer answers by construction:
#: :func:`lcrag.papers.long2rag.trend_claims.lexical_pair`); not a verdict, like :data:`UNCLEAR`.
UNCORROBORATED = "not corroborated (length-biased judge)"
#: How such a comparison's evidence begins the reason (``lexical_pair``'s note: its ``UNCORROBORATED`` and ": ").
UNCORROBORATED_NOTE = "not corroborated: "
COMPARISON_COLUMNS = (
    "family",
    "model",
    "comparison",
    "long_arm",
    "long_value",
    "other_arm",
    "other_value",
    "diff",
    "ci_low",
    "ci_high",
    "n",
    "units",
    "reading",
    "evidence",
    "source",
    "long_context",
    "scope",
    "values",
)
#: How :func:`window_cut` begins: a long-context arm cut to the model's window on some items.
WINDOW_CUT = "cut to the window"

#: ``tables(runs, problems, n_boot, seed)``: the family's tables, read from the runs (:func:`lcrag.synthesis.
#: load_table` appends what it cannot read to ``problems``).
ReadTables = Callable[[pd.DataFrame, list[str], int, int], dict[str, pd.DataFrame]]
#: ``compare(runs, tables, problems, n_boot, seed)``: the family's comparison rows (:func:`comparison`).
Compare = Callable[[pd.DataFrame, dict[str, pd.DataFrame], list[str], int, int], list[dict]]
#: ``plot(axes, syn, model)``: draw the family's panels of one model's figure on ``axes``.
Plot = Callable[[Sequence[Any], Any, str], None]


@dataclass(frozen=True)
class Family:
    """One experiment family: a chapter's long-context arm against its other arm(s), per model.

    ``tables`` returns the family's tables: the one named ``name`` is its detail table (indexed by
    ``detail_index``), others are named ``<name>_<what>``; ``rows_table`` is the one whose rows show that a model
    ran (default: the detail table). ``headline`` picks the headline comparison: the first whose other arm passes
    it, else the first, or where the rule needs more than the arm's name, ``headline_pick`` of the model's
    comparison rows (it overrides ``headline``); ``headline_rule`` says which that is, in words (the synthesis page states it), and
    ``headline_name`` names it where the picked arm differs between models (``"best retriever"``). ``wins`` is
    what the prose says when the long-context arm wins and when the other one does (``"long context beats
    retrieval"``: a family whose other arm is not retrieval says what it is), ``versus`` the comparison as a
    heading. ``others_in_answer``: the other
    comparisons are the headline's contrast at other strengths (Long²RAG's truncations), and the written answer
    names those that decide. ``at_floor``: where the headline is at the floor, the family's comparison to report
    instead when it is above the floor (a predicate on comparison rows: SummHay's Coverage alone, when the
    summaries cite nothing and Joint is 0), named ``at_floor_name``; the headline stays "not testable". ``plot``
    draws ``panels`` panels of a model's figure (none without it). ``detail_note`` says, from the family's tables,
    what a reader of its detail table must know that holds only of some runs ("" when nothing: the needle's RAG
    run at only some lengths). ``long_label`` names the long-context arm of a comparison row in prose where its
    name alone would mislead, from the row (SummHay's "Full" is the haystack's first documents up to the
    retrievers' budget, not the whole haystack): the headline lines and the written answer use it
    (:meth:`arm_label`).
    """

    name: str  # the chapter whose runs it reads
    title: str  # what it compares, one line
    tables: ReadTables
    compare: Compare
    headline: Callable[[str], bool]
    detail_index: tuple[str, ...]
    rows_table: str = ""
    plot: Plot | None = None
    panels: int = 1
    headline_pick: Callable[[pd.DataFrame], pd.Series] | None = None
    headline_rule: str = ""
    headline_name: str = ""
    wins: tuple[str, str] = ("long context beats retrieval", "retrieval beats long context")
    versus: str = "Long context against retrieval"  # what the chapter's "What we found" compares, as a heading
    others_in_answer: bool = False
    at_floor: Callable[[pd.Series], bool] | None = None
    at_floor_name: str = ""
    prose_name: str = ""  # how a sentence names it ("the needle-in-a-haystack test"); "": its short title
    detail_note: Callable[[dict[str, pd.DataFrame]], str] | None = None
    long_label: Callable[[Mapping], str] | None = None

    def arm_label(self, row: Mapping) -> str:
        """The long-context arm of comparison ``row`` as prose names it: :attr:`long_label` of the row, else its
        ``long_arm``."""
        return self.long_label(row) if self.long_label is not None else str(row["long_arm"])

    @property
    def in_prose(self) -> str:
        """The family's name inside a sentence: :attr:`prose_name`, else the title's name part
        (:func:`short_title`: ``LongRAG``, ``Summary of a Haystack``)."""
        return self.prose_name or short_title(self.title)

    @property
    def model_rows(self) -> str:
        """The table whose rows show that a model ran."""
        return self.rows_table or self.name


def families() -> list[Family]:
    """The registered chapters' families, in the chapters' order (:func:`lcrag.chapters.chapters`)."""
    return [c.family for c in chapters.chapters() if c.family is not None]


def short_title(title: str) -> str:
    """A family's name without what it compares: ``"LongRAG: the full-context arm vs ..."`` -> ``"LongRAG"``."""
    return title.split(":")[0]


def reading(diff: float, lo: float, hi: float, long_arm: str, other_arm: str) -> str:
    """What a difference ``long_arm - other_arm`` says: the better arm when its 95 % interval excludes 0,
    "no clear difference" when it contains 0, and without an interval only which arm is higher ("(point
    estimates)"): a difference without uncertainty never makes an arm "better"."""
    if _nan(diff):
        return NOT_RUN
    if _nan(lo) or _nan(hi):
        if diff == 0:
            return "equal (point estimates)"
        return f"{long_arm if diff > 0 else other_arm} higher (point estimates)"
    if lo > 0:
        return f"{long_arm} better"
    if hi < 0:
        return f"{other_arm} better"
    return UNCLEAR


#: What a comparison's evidence says when one arm is at the floor and the other clearly above it (:func:`floor_reading`)
ABOVE_FLOOR = "is clearly above the arm at the floor"


def floor_reading(diff: float, lo: float, hi: float, long_arm: str, other_arm: str, floor: str | None,
                  floored: Sequence[str] = ()) -> str:
    """The :func:`reading` of a comparison whose arms the chapter's rule may put at the floor (``floor``: why;
    ``floored``: which arms, where it says): *not testable with this model* when both arms are, or the arms are
    not named, or the arm above the floor is not clearly better; else the reading of the difference. An arm at the
    floor cannot be shown equal or better, but an arm clearly above it shows which way this model can do the
    task (book/verdicts.md)."""
    read = reading(diff, lo, hi, long_arm, other_arm)
    if not floor:
        return read
    above = [a for a in (long_arm, other_arm) if a not in floored]
    if len(floored) == 1 and len(above) == 1 and read == f"{above[0]} better":
        return read
    return NOT_TESTABLE


def _text(x) -> str:
    """A text column's value: "" for a missing one (NaN, None)."""
    return x if isinstance(x, str) else ""


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def window_cut(cut: int, n: int, units: str, whole: str) -> str:
    """A ``long_context`` value: ``cut to the window in 3 of 158 cases``, or ``whole`` when no item was cut."""
    return f"{WINDOW_CUT} in {cut} of {n} {units}" if cut else whole


def items(n: int, units: str, scope: str = "", long_arm: str = "", long_context: str = "") -> str:
    """The items a difference rests on, with what a reader of the headline must know about them: ``30 questions of
    2wikimqa only, musique left out at the floor; Full cut to the window in 10 of 30 questions`` (the comparison's
    ``scope``, and its ``long_context`` where the long-context arm was cut: :func:`window_cut`)."""
    text = count(n, units) + (f" of {scope}" if _text(scope) else "")
    if _text(long_context).startswith(WINDOW_CUT):
        text += f"; {long_arm} {long_context}"
    return text


def format_diff(diff: float, lo: float, hi: float) -> str:
    """``+9.5 pp [+1.3, +17.7]`` (percentage points of a 0-1 difference), or ``(no interval)``."""
    if _nan(diff):
        return NOT_RUN
    if _nan(lo) or _nan(hi):
        return f"{signed(100 * diff)} pp (no interval)"
    return signed_interval(diff, lo, hi, " pp")


def comparison(
    family,
    model,
    comparison,
    long_arm,
    long_value,
    other_arm,
    other_value,
    diff,
    lo,
    hi,
    n,
    units,
    evidence,
    source,
    floor: str | None = None,
    long_context: str = "",
    scope: str = "",
    values: str = "",
    floored: Sequence[str] = (),
) -> dict:
    """One comparison row (:data:`COMPARISON_COLUMNS`), with its :func:`reading`; when an arm is at the floor
    (``floor``: why, from the chapter's own floor rule, the one its claims use: e.g.
    :func:`lcrag.papers.thesis.accuracy.accuracy_floor`), the reading is "not testable with this model", as for the
    chapter's claims (book/verdicts.md), and the evidence says why. The synthesis has no floor rule of its own.
    ``floored`` names the arms at the floor where the chapter says which: when one arm alone is, and the other is
    clearly better (its interval excludes 0), the difference is read (:func:`floor_reading`): this model does the
    task one way and not the other.

    ``long_context``: how long the long-context arm was for this model, where the chapter's tables say (``8000
    tokens``, ``cut to the window in 40 of 60 questions``); the arms of one experiment need not be the same length
    for every model, and the size axis says where they differ (:func:`lcrag.synthesis.length_note`).

    ``scope``: which of the run's items the ``n`` are, where the chapter's rule left some out (``2wikimqa only,
    musique left out at the floor``): the headline says it after the count (:func:`items`). ``values``: what
    ``long_value`` and ``other_value`` are where they are not the means over the ``n`` items compared
    (``micro-averages over 72 insights``)."""
    read = floor_reading(diff, lo, hi, long_arm, other_arm, floor, floored)
    if floor:
        evidence = f"{evidence}; at the floor: {floor}"
        if read != NOT_TESTABLE:
            evidence += f"; decided: {long_arm if diff > 0 else other_arm} {ABOVE_FLOOR}"
    return {
        "family": family, "model": model, "comparison": comparison, "long_arm": long_arm,
        "long_value": long_value, "other_arm": other_arm, "other_value": other_value, "diff": diff,
        "ci_low": lo, "ci_high": hi, "n": int(n), "units": units, "reading": read,
        "evidence": evidence, "source": source,
        "long_context": long_context, "scope": scope, "values": values,
    }  # fmt: skip


def group_means(df: pd.DataFrame, keys: list[str], value: str, name: str, extra, n_boot: int,
                seed: int) -> pd.DataFrame:
    """One row per group of ``keys``: ``extra(g)`` columns, then the mean of ``value`` as ``name`` with its
    bootstrap interval (``ci_low``, ``ci_high``), then any columns ``extra`` marks as trailing (``source``)."""
    rows = []
    for k, g in df.groupby(keys, sort=False):
        mean, lo, hi = mean_ci(g[value], n_boot, seed)
        ext = extra(g)
        tail = {c: ext.pop(c) for c in ("source",) if c in ext}
        rows.append({**dict(zip(keys, k, strict=True)), **ext, name: mean, "ci_low": lo, "ci_high": hi, **tail})
    return pd.DataFrame(rows)
