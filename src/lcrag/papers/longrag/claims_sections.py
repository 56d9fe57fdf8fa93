"""LongRAG's claims on the chapter's two small sections, decided on our runs: the chunk size × top-k grid
(C16a-ours, the paper's Tables 6-8) and the component transfer (C14-ours, Tables 9-11).

Both follow the rules of the chapter's other claims on our runs (:mod:`lcrag.papers.longrag.claims_runs`; the
helpers both use are in :mod:`lcrag.papers.longrag.claims_common`): per dataset, a paired bootstrap 95 % interval
over the section's questions decides (one that contains 0 leaves the dataset undecided: *inconclusive*); a dataset
on which an arm the claim compares has a mean F1 at the floor decides nothing, and with every dataset there the
claim is *not testable with this model*; a run that left the section out cannot test it (*not testable*, ``not
run``). Each claim's value names the number of questions per dataset.
:func:`lcrag.papers.longrag.claims_runs.run_claims` calls them.
"""

from __future__ import annotations

import pandas as pd

from lcrag.book.claims import all_of, greater
from lcrag.book.verdicts import FLOOR_SCORE, PARTIAL_FLOOR
from lcrag.papers.longrag.claims_common import (
    f1_floor,
    floor_note,
    floored_datasets,
    intervals_text,
    majority,
    not_run,
)
from lcrag.papers.longrag.differences import RESULT_COLUMNS, strategy_differences

#: The settings C16a compares (the paper: smaller chunks with a larger top-k at a similar context length).
SMALL, LARGE = "200*7", "500*3"


def _per_dataset(diffs: pd.DataFrame, floored) -> list[bool | None]:
    """Each dataset's verdict on ``a`` > ``b``: the interval decides; None on a ``floored`` dataset."""
    return [None if r.dataset in floored else greater(r.diff, 0.0, ci=(r.diff_lo, r.diff_hi))
            for r in diffs.itertuples()]


def _questions(diffs: pd.DataFrame) -> str:
    """``6 questions per dataset`` (or ``3 to 6 questions a dataset``) from the intervals' question counts."""
    sizes = sorted(diffs["n_questions"].unique())
    return (f"{sizes[0]} questions per dataset" if len(sizes) == 1
            else f"{sizes[0]} to {sizes[-1]} questions a dataset")


def _few_questions(floor: str | None, note: str, questions: str, few: pd.DataFrame, main: pd.DataFrame | None,
                   section: str) -> tuple[str | None, str]:
    """The floor reason and the partial-floor note of a claim decided on a section's few questions, said to be
    *on those questions* (``questions``: :func:`_questions`' text, ``section``: "grid", "transfer"). ``few``: the
    section's rows of E&F at 200×7, the arm section 3 also ran; where it is at the floor on a dataset and section 3's
    E&F on every question (``main``) is not, they say so: the floor there is the few questions', which more of them
    (a larger ``grid_questions`` or ``transfer_questions``) could lift, not the model's."""
    on = f"on the {section}'s {questions}"
    lift = ""
    if main is not None and not few.empty:
        low = few.groupby("dataset", sort=False)["f1"].mean()
        ef = main[(main["strategy"] == "E&F") & main["dataset"].isin(list(low.index[low < FLOOR_SCORE]))]
        by = ef.groupby("dataset", sort=False)["f1"]
        above = [f"{100 * m:.1f} points on all {k} {d} questions" for (d, m), k in zip(by.mean().items(), by.size(),
                                                                                      strict=True) if m >= FLOOR_SCORE]
        if above:
            lift = (f" (E&F at 200×7 scores {'; '.join(above)} in section 3: the floor there is the {section}'s few "
                    "questions', which more of them could lift)")
    if floor:
        floor = f"{on}, {floor}{lift}"
    if note:
        note = note.replace(f"{PARTIAL_FLOOR}: ", f"{PARTIAL_FLOOR} {on}: ", 1) + lift
    return floor, note


def check_settings(ledger, rows: pd.DataFrame, gen: str, n: int = 2000, seed: int = 0,
                   main: pd.DataFrame | None = None) -> pd.DataFrame:
    """C16a-ours: E&F at 200*7 beats E&F at 500*3 on most datasets, on the grid's rows (``rows``: a ``setting``
    column, e.g. :func:`lcrag.papers.longrag.answering.settings_grid`); a dataset where either is at the floor
    decides nothing. ``main``: section 3's rows, whose E&F on every question says whether a floor is the grid's
    few questions' (:func:`_few_questions`). Returns the intervals.

    The claim compares two settings at a similar context length, neither a cut of the other, so both must be above
    the floor (the verdicts' rule that a claim that a change *lowers* a score needs only the arm before the change
    above it is for a change that removes what the model reads: truncation, snippets)."""
    ef = rows[rows["strategy"] == "E&F"].assign(strategy=lambda x: x["setting"])
    ef = ef[ef["strategy"].isin([SMALL, LARGE])]
    diffs = strategy_differences(ef, [(SMALL, LARGE)], n=n, seed=seed)
    unrun = not_run(rows, ["E&F"]) or not_run(ef, [SMALL, LARGE], column="setting")
    ev = f"our runs ({gen}); the chunk size × top-k grid (section 6)"
    floored = floored_datasets(ef, [SMALL, LARGE])
    floor, note = (None, "") if unrun else _few_questions(
        f1_floor(ef, [SMALL, LARGE]), floor_note(ef, [SMALL, LARGE]), _questions(diffs), ef[ef["strategy"] == SMALL],
        main, "grid")
    ledger.check(
        "C16a-ours",
        our_value=intervals_text(diffs) or "not run",
        passed=majority(_per_dataset(diffs, floored)),
        evidence=ev if unrun else f"{ev}, {_questions(diffs)}: E&F at 200×7 − E&F at 500×3, F1 difference in points, "
        "paired bootstrap 95% CI over questions" + note,
        floor=floor,
        not_run=unrun,
        anchor="longrag-grid",
    )
    return diffs


def check_transfer(ledger, main: pd.DataFrame, transfer: pd.DataFrame, gen: str, n: int = 2000,
                   seed: int = 0) -> pd.DataFrame:
    """C14-ours: E&F with its extractor and filter on another model (``transfer``: its answers, one ``component``)
    beats E&F with the generator's own (``main``'s E&F rows on the same questions) on every dataset; a dataset where
    either is at the floor decides nothing. An empty ``transfer`` (the run skipped the section) cannot test it.
    Returns the intervals."""
    transfer = transfer[transfer["generator"] == gen] if "generator" in transfer else transfer
    if transfer.empty or "E&F" not in set(main["strategy"]):
        ledger.check("C14-ours", our_value="not run", evidence=f"our runs ({gen})", anchor="longrag-transfer",
                     not_run=not_run(main, ["E&F"]) or "E&F with the extractor and filter on another model (the run "
                     "has no transfer section: transfer_questions is 0)")
        return pd.DataFrame()
    components = list(transfer["component"].unique())
    if len(components) != 1:
        raise ValueError(f"the transfer answers hold several component models {components}: pass one")
    moved = f"E&F (E and F on {components[0]})"
    asked = set(zip(transfer["dataset"], transfer["question_id"], strict=True))
    own = main[(main["strategy"] == "E&F") & pd.Series([k in asked for k in zip(main["dataset"], main["question_id"],
                                                                                 strict=True)], index=main.index)]
    rows = pd.concat([own[list(RESULT_COLUMNS)], transfer.assign(strategy=moved)[list(RESULT_COLUMNS)]],
                     ignore_index=True)
    diffs = strategy_differences(rows, [(moved, "E&F")], n=n, seed=seed)
    floored = floored_datasets(rows, [moved, "E&F"])
    floor, note = _few_questions(f1_floor(rows, [moved, "E&F"]), floor_note(rows, [moved, "E&F"]),
                                 _questions(diffs), rows[rows["strategy"] == "E&F"], main, "transfer")
    ledger.check(
        "C14-ours",
        our_value=intervals_text(diffs) or "not run",
        passed=all_of(_per_dataset(diffs, floored)),
        evidence=f"our runs ({gen}, the generator in both arms); the transfer (section 7), {_questions(diffs)}: E&F "
        f"with the extractor and filter on {components[0]} (not fine-tuned, unlike the paper's ChatGLM3-6B) − E&F "
        "with the generator's own, F1 difference in points, paired bootstrap 95% CI over questions" + note,
        floor=floor,
        anchor="longrag-transfer",
    )
    return diffs
