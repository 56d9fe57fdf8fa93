"""The "What we found" section that ends each chapter, written from the run's own tables.

Nothing in it is typed by hand, so it follows any re-run, with any model: the chapter's headline comparison of
long context against retrieval (the comparison its paper package declares for the synthesis, computed on this
run only: :func:`lcrag.synthesis.compare_runs`) and its claims ledger, counted by where the evidence comes from
and by verdict, with the claims that this model cannot test named as such, and those on which nothing was checked (their data
never released, or their values printed only in the paper's figures) counted apart: they are not "checked".

In a chapter's last cells::

    from lcrag.book.findings import findings_markdown
    display(Markdown(findings_markdown()))
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lcrag import chapters, config
from lcrag.book.claims import (
    CHECKED_VERDICTS,
    CLAIMS_FILE,
    FIGURE_ONLY_VERDICT,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    UNRELEASED,
    read_claims,
)
from lcrag.book.verdicts import (
    NO_MODEL,
    NOT_RUN,
    OTHER_REASON,
    OUR_RUN,
    PAPER_TABLES,
    PARTIAL_FLOOR,
    RELEASED_ARTEFACTS,
    untestable_because,
)
from lcrag.models.registry import title_of

_ORDER = CHECKED_VERDICTS  # a claim with nothing checked (UNCHECKED_VERDICTS) is counted apart by claims_sentences


def _counts(df: pd.DataFrame) -> str:
    counts = df["verdict"].value_counts()
    return ", ".join(f"{int(counts[v])} {v}" for v in _ORDER if counts.get(v, 0))


def unreleased_sentence(unreleased: pd.DataFrame, after_checked: bool) -> str:
    """The claims no run can test, their data never released (verdict :data:`~lcrag.book.claims.UNRELEASED`), by id:
    "N more" when it follows a count of the claims checked (``after_checked``), else "N of the paper's claims"."""
    n = len(unreleased)
    head = f"{n} more" if after_checked else f"{n} of the paper's claims"
    need = "they need" if n > 1 else "it needs"
    return f"{head} ({_ids(unreleased)}) cannot be tested by anyone: the data {need} were never released."


def figure_only_sentence(figure_only: pd.DataFrame, after: bool) -> str:
    """The claims whose values the paper prints only in figures (verdict :data:`~lcrag.book.claims.
    FIGURE_ONLY_VERDICT`), by id: not checked, but not untestable either: "N more" when it follows another count
    (``after``), else "N of the paper's claims"."""
    n = len(figure_only)
    head = f"{n} more" if after else f"{n} of the paper's claims"
    verb, them = ("are", "their values") if n > 1 else ("is", "its values")
    return (f"{head} ({_ids(figure_only)}) {verb} not checked: the paper prints {them} only in figures, which this "
            "book has not read off the plots.")


def claims_sentences(claims: pd.DataFrame) -> list[str]:
    """What the claims ledger says: the claims decided on the paper's own numbers (or released files), then those
    whose values the paper prints only in figures and those no run can test because their data were never released
    (neither counted as checked); those on our
    runs, by the model whose outputs decide them (a chapter may decide a claim on another model's outputs, e.g. a
    judge's) and by verdict; the claims that model cannot test, by id; and the checks that need no model, which are
    not about any model's behaviour, each not reproduced with the paper's value and ours (its our value may say
    how the paper's number does read, e.g. SummHay's ceiling as a recall the paper calls F1)."""
    out: list[str] = []
    if claims.empty:
        return ["This chapter checks no claim."]
    unreleased = claims[claims["verdict"] == UNRELEASED]
    figure_only = claims[claims["verdict"] == FIGURE_ONLY_VERDICT]
    claims = claims[~claims["verdict"].isin([UNRELEASED, FIGURE_ONLY_VERDICT])]
    own = claims[claims["source"].isin([PAPER_TABLES, RELEASED_ARTEFACTS])]
    if len(own):
        out.append(f"Of the paper's claims checked on its own published numbers or released files, {len(own)} in "
                   f"all: {_counts(own)}.")
    if len(figure_only):
        out.append(figure_only_sentence(figure_only, after=bool(len(own))))
    if len(unreleased):
        out.append(unreleased_sentence(unreleased, after_checked=bool(len(own) or len(figure_only))))
    ours = claims[claims["source"] == OUR_RUN]
    set_up: set[str] = set()  # the claims already said to be about the paper's own set-up (said once per page)
    for model, part in ours.groupby(ours["model"].astype(str), sort=False):
        by = f" with {title_of(model)}" if model and model != "nan" else ""
        out.append(f"Of the claims about behaviour checked on our run{by}, {len(part)} in all: {_counts(part)}.")
        evidence = part["evidence"] if "evidence" in part.columns else pd.Series("", index=part.index)
        why = evidence.map(untestable_because).where(part["verdict"] == NOT_TESTABLE)
        out += _untestable_sentences(part, why, set_up)
        partial = part[evidence.astype(str).str.contains(PARTIAL_FLOOR, regex=False)]
        if len(partial):
            verb = "were" if len(partial) > 1 else "was"
            out.append(f"{', '.join(map(str, partial['claim_id']))} {verb} decided only where the arms are above the "
                       "floor (the evidence column names the datasets or arms left out).")
    computed = claims[claims["source"] == NO_MODEL]
    if len(computed):
        out.append(f"Of the checks that call no language model (not about a language model's behaviour), "
                   f"{len(computed)} in all: {_counts(computed)}.")
        if {"paper_value", "our_value"} <= set(computed.columns):  # what a check that failed found instead
            out += [f"{r.claim_id} is not reproduced as the paper states it: the paper's {r.paper_value}, ours "
                    f"{r.our_value}." for r in computed[computed["verdict"] == NOT_REPRODUCED].itertuples()]
        unfit = computed[computed["verdict"] == NOT_TESTABLE]
        if len(unfit):
            out.append(f"{', '.join(map(str, unfit['claim_id']))}: not testable here, because the paper's values come "
                       "from a part of its set-up these checks do not have (the evidence column says which).")
    return out


def _ids(claims: pd.DataFrame) -> str:
    return ", ".join(map(str, claims["claim_id"]))


def _untestable_sentences(part: pd.DataFrame, why: pd.Series, set_up: set[str]) -> list[str]:
    """Why a model's *not testable* claims are: at the floor, left out of the run, or another reason its evidence
    gives (:func:`lcrag.book.verdicts.untestable_because`), one sentence each; the last explained once per page
    (``set_up``: the claim sets already explained, updated), then named again in short."""
    out = []
    untestable = part["verdict"] == NOT_TESTABLE
    other, not_run = part[why == OTHER_REASON], part[why == NOT_RUN]
    floor = part[untestable & ~why.isin([OTHER_REASON, NOT_RUN])]  # (a ledger without evidence: the floor)
    if len(floor):
        out.append(f"The arms of {_ids(floor)} are at the floor on this run: those claims measure the run (its model, "
                   "or the few items a section asked: the evidence column says which), not the paper.")
    if len(not_run):
        out.append(f"This run left out what {_ids(not_run)} compare (the evidence column says what).")
    if len(other) and _ids(other) in set_up:
        out.append(f"{_ids(other)}: the paper's own set-up, as above.")
    elif len(other):
        set_up.add(_ids(other))
        out.append(f"{_ids(other)} cannot be tested on this model's run whatever its size: "
                   f"{'they are' if len(other) > 1 else 'it is'} about the paper's own set-up (the evidence column "
                   "says what).")
    return out


def _this_run(chapter: str, run_dir: Path, model: str) -> pd.DataFrame:
    from lcrag.synthesis import RUN_COLUMNS

    return pd.DataFrame([{"chapter": chapter, "model": model, "slug": run_dir.parent.parent.name,
                          "profile": run_dir.parent.name, "finished": "", "book": False, "run_dir": run_dir}],
                        columns=list(RUN_COLUMNS))  # fmt: skip


#: Beyond this many times the items run, :func:`items_needed` says no practical re-run would settle the sign.
FAR = 10


def items_needed(row) -> str:
    """For a headline comparison (a row of :func:`lcrag.synthesis.headline`) whose interval contains 0: how many
    items would let a paired interval exclude 0 if the difference and its spread stayed as observed
    (:func:`lcrag.synthesis.size_axis.n_to_decide`), as a sentence; "" for one decided, at the floor (more
    items do not lift a model off it) or without an interval. It first says where the interval keeps the
    difference: a narrow interval around zero is a finding too (the arms agree within that many points), and past
    :data:`FAR` times the items run it says that no re-run of practical size would settle the sign."""
    from lcrag.synthesis.family import UNCLEAR
    from lcrag.synthesis.size_axis import exact_toward_zero, n_to_decide
    from lcrag.text import count

    k = n_to_decide(row)
    n = int(row["n"])
    head = (f" As it is, the interval keeps the difference between {100 * row['ci_low']:+.1f} and "
            f"{100 * row['ci_high']:+.1f} pp; ")
    if row["reading"] == UNCLEAR and exact_toward_zero(row):
        arm = row["long_arm"] if row["diff"] < 0 else row["other_arm"]
        return (head + f"no {row['units'].removesuffix('s')} favoured {arm}, so the bound toward 0 is the exact share "
                f"of {row['units']} that could (at {n}), not a measured spread: it gives no number of {row['units']} "
                "to plan for.")
    if k is None:
        return ""
    if k > FAR * n:  # a difference this close to 0 is the finding: no re-run of practical size settles its sign
        return (head + f"the difference observed is too small for more {row['units']} to settle which arm is "
                f"better at any practical size (a paired interval would exclude 0 at about {k:,} {row['units']} "
                f"instead of {n}, a planning number, not a result).")
    return (head + f"a paired interval would exclude 0 at about {count(k, row['units'])} instead of {n}, if the "
            "difference and its spread held (a planning number, not a result).")


def comparison_sentences(chapter: str, run_dir: Path, model: str, n_boot: int = 2000, seed: int = 0) -> list[str]:
    """The headline comparison(s) of long context against retrieval on this run, one sentence per model in it
    (the needle chapter runs a second model inside the first), each with :func:`items_needed`, then the family's
    other comparisons where they decide with the headline (:func:`lcrag.synthesis.views.other_comparisons`: Long²RAG's
    cuts); none when the chapter declares no comparison."""
    from lcrag.synthesis import compare_runs, conclusions, headline
    from lcrag.synthesis.views import other_comparisons

    family = chapters.chapter(chapter).family
    if family is None:
        return []
    syn = compare_runs(_this_run(chapter, run_dir, model), [family], n_boot=n_boot, seed=seed)
    heads = headline(syn).set_index("model")

    def after(m: str) -> str:  # what follows the headline: its planning number, then the other comparisons
        if m not in heads.index:
            return ""
        others = other_comparisons(syn, family, m, heads.loc[m]) if family.others_in_answer else ""
        return items_needed(heads.loc[m]) + others

    return [f"{title_of(m)}: {line}{after(m)}" for m in syn.models for line in conclusions(syn, m, others=False)]


def findings_markdown(chapter: str | None = None, run_dir: Path | None = None, model: str | None = None,
                      n_boot: int = 2000, seed: int = 0) -> str:
    """The chapter's "What we found" paragraph, from the tables its run saved so far (``claims.csv`` included).
    Defaults: the chapter, run directory and model of the running chapter (set by the runner)."""
    chapter = chapter or config.chapter()
    run_dir = Path(run_dir) if run_dir is not None else config.run_dir()
    model = model or config.default_model()
    if not chapter or run_dir is None:
        return "*(Written when the chapter runs through `lcrag run`: it reads the run's own tables.)*"
    lines = comparison_sentences(chapter, run_dir, model, n_boot, seed)
    text = ""
    if lines:
        versus = chapters.chapter(chapter).family.versus
        text += f"{versus}, on this run:\n\n" + "\n".join(f"- {x}" for x in lines) + "\n\n"
    path = run_dir / CLAIMS_FILE
    claims = read_claims(path) if path.exists() else pd.DataFrame(columns=["source", "verdict", "model", "claim_id"])
    return text + " ".join(claims_sentences(claims)) + "\n"
