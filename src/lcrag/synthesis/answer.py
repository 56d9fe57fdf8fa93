"""The synthesis's written answer to "when does long context beat RAG?": one paragraph per model, the largest
known size first (then models of unknown size), and one sentence across sizes, all generated from the headline
comparisons (:func:`lcrag.synthesis.headline`), so that the prose follows any re-run.

    written_answer(syn)    # markdown
"""

from __future__ import annotations

import pandas as pd

from lcrag.models.registry import parameters, size_of, title_of
from lcrag.synthesis.family import (
    ABOVE_FLOOR,
    NOT_RUN,
    NOT_TESTABLE,
    UNCLEAR,
    UNCORROBORATED,
    WINDOW_CUT,
    Family,
    format_diff,
)
from lcrag.synthesis.views import (
    NO_COMPARISON,
    Synthesis,
    at_floor_instead,
    headline,
    headline_items,
    headline_of,
    instead_words,
)
from lcrag.text import join_words

#: What a headline comparison says, in the order the paragraph gives them; "long" and "other" are the default
#: words, a family's :attr:`~lcrag.synthesis.Family.wins` replaces them (Long²RAG's other arm is not retrieval).
OUTCOMES = {
    "long": "long context beats retrieval in",
    "other": "retrieval beats long context in",
    "unclear": "no clear difference in",
    "uncorroborated": "a difference only a judge biased towards longer answers shows, not corroborated, in",
    "points": "only point estimates (no interval) in",
    "floor": "not testable (an arm at the floor) in",
    "not run": "not run yet:",
}


def outcome_words(key: str, family: Family) -> str:
    """What the paragraph says before the experiments of outcome ``key``: ``family.wins`` for a decided one."""
    if key in ("long", "other"):
        return f"{family.wins[0 if key == 'long' else 1]} in"
    return OUTCOMES[key]


def outcome(reading: str, long_arm: str, other_arm: str) -> str:
    """A key of :data:`OUTCOMES` for a comparison's :func:`~lcrag.synthesis.family.reading`."""
    if reading == f"{long_arm} better":
        return "long"
    if reading == f"{other_arm} better":
        return "other"
    if reading == NOT_TESTABLE:
        return "floor"
    if reading == UNCLEAR:
        return "unclear"
    if reading == UNCORROBORATED:
        return "uncorroborated"
    return "points"


def model_outcomes(syn: Synthesis) -> pd.DataFrame:
    """One row per model x family: its headline's outcome (:data:`OUTCOMES`), the words the paragraph gives it
    (:func:`outcome_words`) and a short evidence string (``Full − RAG +8.9 pp [+1.9, +15.8], 158 cases``, with
    the other comparisons that decide for a family with :attr:`~lcrag.synthesis.Family.others_in_answer`; for a
    headline at the floor, only what its family reports instead (:attr:`~lcrag.synthesis.Family.at_floor`) or
    nothing; empty for a family not run)."""
    h = headline(syn)
    rows = []
    for model in syn.models:
        for family in syn.families:
            r, status = headline_of(h, syn, family, model)
            name = family.in_prose
            if r is None:
                rows.append({"model": model, "family": name, "outcome": "not run", "words": OUTCOMES["not run"],
                             "evidence": status if status == NO_COMPARISON else "", "floored": "", "cut": ""})
                continue
            key = outcome(r["reading"], r["long_arm"], r["other_arm"])
            evidence = f"{family.arm_label(r)} − {r['other_arm']} {format_diff(r['diff'], r['ci_low'], r['ci_high'])}"
            evidence += f", {headline_items(r)}"
            floored = ""
            if ABOVE_FLOOR in str(r["evidence"]):  # one arm at the floor, the other clearly above it
                floored = r["other_arm"] if key == "long" else r["long_arm"]
                evidence += f"; {floored} at the floor"
            if family.others_in_answer:
                evidence += _others_decided(syn, family, model, r, key)
            if key == "floor":  # an arm at the floor: its difference is no evidence; what the family reports instead is
                instead = at_floor_instead(syn, family, model, r)
                evidence = "" if instead is None else instead_words(family, instead)
            cut = str(r.get("long_context", ""))  # the long-context arm cut to the window on some items: said
            cut = f"{family.arm_label(r)} {cut}" if cut.startswith(WINDOW_CUT) else ""
            rows.append({"model": model, "family": name, "outcome": key, "words": outcome_words(key, family),
                         "evidence": evidence, "floored": floored, "cut": cut})
    return pd.DataFrame(rows, columns=["model", "family", "outcome", "words", "evidence", "floored", "cut"])


def _others_decided(syn: Synthesis, family: Family, model: str, head: pd.Series, key: str) -> str:
    """``; a clear difference only against trunc512: whole − trunc512 +15.9 pp [+9.6, +23.7]`` (``also a clear
    difference`` when the headline is decided too): the family's other comparisons of ``model`` whose interval
    excludes zero (none at the floor), or "" when none does."""
    c = syn.comparisons
    c = c[(c["family"] == family.name) & (c["model"] == model) & (c["other_arm"] != head["other_arm"])]
    decided = [r for r in c.itertuples() if outcome(r.reading, r.long_arm, r.other_arm) in ("long", "other")]
    if not decided:
        return ""
    arms = join_words([r.other_arm for r in decided])
    items = ", ".join(f"{r.long_arm} − {r.other_arm} {format_diff(r.diff, r.ci_low, r.ci_high)}" for r in decided)
    which = "also a clear difference" if key in ("long", "other") else "a clear difference only"
    return f"; {which} against {arms}: {items}"


def model_paragraph(model: str, outcomes: pd.DataFrame) -> str:
    """One model's answer: each outcome with its experiments (and their evidence, where decided or unclear),
    decided ones in their family's words."""
    o = outcomes[outcomes["model"] == model]
    size = size_of(model)
    parts = []
    for key in OUTCOMES:
        with_evidence = key in ("long", "other", "unclear", "uncorroborated", "points")
        for words, fams in o[o["outcome"] == key].groupby("words", sort=False):
            items = [f"{f.family} ({f.evidence})" if with_evidence or f.evidence else f.family
                     for f in fams.itertuples()]  # at the floor or not run: only what model_outcomes kept
            parts.append(f"{words} {join_words(items)}")
    head = f"**{title_of(model)}**" + (f" ({size} parameters)" if size else "")
    return f"{head}: {'; '.join(parts)}." if parts else f"{head}: {NOT_RUN}."


def across_sizes(outcomes: pd.DataFrame) -> str:
    """Which experiments have a decided difference, and on which model sizes (known sizes only), each in its
    family's words."""
    sized = outcomes[outcomes["model"].map(size_of).notna()]
    order = {f: i for i, f in enumerate(dict.fromkeys(outcomes["family"]))}
    sentences = []
    for key in ("long", "other"):
        for words, hits in sized[sized["outcome"] == key].groupby("words", sort=False):
            hits = hits.sort_values("family", key=lambda f: f.map(order), kind="stable")  # the families' order
            per_family = [f"{family} ({_sizes(g)})" for family, g in hits.groupby("family", sort=False)]
            what = words.removesuffix(" in")
            sentences.append(f"{what[0].upper()}{what[1:]} with an interval that excludes zero in {join_words(per_family)}")
    if not sentences:
        return "On the models of known size, no experiment has a difference whose interval excludes zero yet."
    counts = sized.loc[sized["outcome"] != "not run", "outcome"].value_counts()
    decided = counts.get("long", 0) + counts.get("other", 0)
    rest = [f"in {counts[key]} {what}" for key, what in (("unclear", "the interval contains zero"),
                                                          ("uncorroborated", "only a length-biased judge shows one"),
                                                          ("points", "only point estimates"),
                                                          ("floor", "it is not testable (an arm at the floor)")) if counts.get(key)]
    tail = f". That is {decided} of the {counts.sum()} model × experiment pairs run" + (
        f"; {', '.join(rest)}" if rest else "")
    return ". ".join(sentences) + tail + "."


def _sizes(hits: pd.DataFrame) -> str:
    """``135M, its RAG CQT at the floor; 1.5B``: the sizes of ``hits`` (rows of :func:`model_outcomes`), smallest
    first, each with the arm at the floor its decision rests on, where one is, and its long-context arm's cut to the
    window, where it was cut (``135M, Full cut to the window in 16 of 48 questions``)."""
    hits = hits.assign(size=hits["model"].map(size_of)).sort_values("size", key=lambda s: s.map(parameters))
    labels = [", ".join([r.size] + [f"its {r.floored} at the floor"] * bool(r.floored) + [r.cut] * bool(r.cut))
              for r in hits.itertuples()]
    return ("; " if (hits["floored"].astype(bool) | hits["cut"].astype(bool)).any() else ", ").join(labels)


def written_answer(syn: Synthesis) -> str:
    """The answer, model by model (largest first), then across sizes: markdown."""
    outcomes = model_outcomes(syn)
    lines = [f"- {model_paragraph(m, outcomes)}" for m in syn.models]
    return "\n".join(lines) + "\n\n" + across_sizes(outcomes)
