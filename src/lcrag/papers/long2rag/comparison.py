"""The Long²RAG chapter in the synthesis: the five documents whole against cut to their first N characters, by
Key Point Recall (:data:`FAMILY`).

Reads the chapter's ``judgments.csv`` (one row per question x variant x key point x judge) and
``judge_agreement.csv`` (each judge's Cohen's kappa with the SummHay human labels, per half); KPR per question is
:func:`lcrag.metrics.kpr.response_kpr`, and the comparisons use the judge that agrees best with the humans and the
chapter's floor rule (:func:`lcrag.papers.long2rag.claims.truncation_floor`, the one claim C12 uses).
"""

from __future__ import annotations

import pandas as pd

from lcrag.metrics.kpr import question_kpr_wide
from lcrag.papers.long2rag.claims import WHOLE, truncation_floor, variant_floor
from lcrag.papers.long2rag.trend_claims import lexical_pair
from lcrag.stats import bootstrap_diff
from lcrag.synthesis import UNCORROBORATED, Family, bars, comparison, group_means, load_table, window_cut
from lcrag.synthesis.family import UNCORROBORATED_NOTE

NAME = "long2rag"


def questions(runs: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    """Per-question Key Point Recall (Eq. 2, unparseable judgements count 0) per model, judge and variant."""
    from lcrag.metrics.kpr import response_kpr

    cols = ["question_id", "variant", "judge", "value"]
    j = load_table(runs, NAME, "judgments", cols, problems)
    rows = [response_kpr(g).assign(model=model, source=g["source"].iloc[0])
            for model, g in j.groupby("model", sort=False)]
    if not rows:
        return pd.DataFrame(columns=["model", "judge", "variant", "question_id", "recall", "source"])
    return pd.concat(rows, ignore_index=True)[
        ["model", "judge", "variant", "question_id", "recall", "source"]
    ]


def judges(runs: pd.DataFrame, questions: pd.DataFrame, problems: list[str]) -> dict[str, str]:
    """Per model, the judge whose labels agree best with the SummHay human labels (Cohen's kappa on the fit half of
    the judged sample in ``judge_agreement.csv``, :func:`lcrag.papers.long2rag.judges.trusted_judge`) among the
    judges that scored the responses."""
    from lcrag.papers.long2rag.judges import trusted_judge

    agree = load_table(runs, NAME, "judge_agreement", ["judge", "half", "n", "kappa"], problems)
    return {
        model: trusted_judge(agree[agree["model"] == model], sorted(set(g["judge"])))
        for model, g in questions.groupby("model", sort=False)
    }


#: The judge rule, in words, where a run's agreement numbers are not at hand.
RULE = ("best agreement with the human labels (Cohen's kappa) on the half of them used to choose the judge; its "
        "kappa on the other, held-out half reported")


def judge_note(agreement: pd.DataFrame, judge: str, judges: list[str]) -> str:
    """Why ``judge`` decides among ``judges``, in words, as :func:`lcrag.papers.long2rag.judges.trusted_judge`
    chose it: the best kappa with the humans on the judged sample's fit half, its held-out kappa reported, from one
    model's ``judge_agreement`` rows (``judge``, ``half``, ``kappa``, ``n``); or the default when none was measured
    there."""
    from lcrag.book.verdicts import choose_judge
    from lcrag.papers.long2rag.judges import SAMPLE_FIT, SAMPLE_HELD_OUT

    if "n" not in agreement or choose_judge(agreement, judges, half=SAMPLE_FIT) is None:
        return "by default: no judge measured on the judged sample's fit half"
    rows = agreement[agreement["judge"] == judge].set_index("half")
    held = (f", {rows.loc[SAMPLE_HELD_OUT, 'kappa']:.3f} on its held-out half ({int(rows.loc[SAMPLE_HELD_OUT, 'n'])} "
            "pairs)" if SAMPLE_HELD_OUT in rows.index else "")
    return (f"best agreement with the human labels on the judged sample's half used to choose the judge "
            f"({int(rows.loc[SAMPLE_FIT, 'n'])} pairs), Cohen's kappa {rows.loc[SAMPLE_FIT, 'kappa']:.3f}{held}")


def summary(questions: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """KPR (macro over questions) per model, judge and variant, with a bootstrap interval over questions: the
    detail table and the figure's bars, where the untruncated variant (``none`` in the data) reads :data:`WHOLE`."""
    out = group_means(questions, ["model", "judge", "variant"], "recall", "kpr",
                      lambda g: {"questions": int(g["recall"].notna().sum()), "source": g["source"].iloc[0]},
                      n_boot, seed)
    out = out.reindex(columns=["model", "judge", "variant", "questions", "kpr", "ci_low", "ci_high", "source"])
    return out.assign(variant=out["variant"].replace({"none": WHOLE}))


def comparisons(
    questions: pd.DataFrame, judges: dict[str, str], n_boot: int = 2000, seed: int = 0,
    context: dict[str, str] | None = None, notes: dict[str, str] | None = None,
    lengths: pd.DataFrame | None = None, held_out: dict[str, dict[str, float]] | None = None,
) -> list[dict]:
    """Whole documents (``none``) vs each truncated variant (``trunc*``), the least severe cut first (the order
    :func:`headline` reads), paired over questions, by the judge :func:`judges` chose, under the chapter's floor
    rule (:func:`lcrag.papers.long2rag.claims.truncation_floor`, the one claim C12 uses). A cut *to* the floor is
    the effect measured: with the whole documents above the floor, the row is read even where the cut is at it
    (named in the evidence). With the whole documents at the floor, a cut decides only when it is itself above the
    floor and clearly above them (its interval excludes 0: this model does the task from the cut documents and not
    from the whole ones, as the thesis's and the needle's rows read one arm at the floor,
    :func:`lcrag.synthesis.floor_reading`); a cut at the floor too, or not clearly above, leaves the row not
    testable with this model. ``context``: per model, what the whole documents were (:func:`whole_context`);
    ``notes``: per model, why its judge decides (:func:`judge_note`). A difference the lexical judge decides for
    the arm with the longer answers (``lengths``: ``model``, ``question_id``, ``variant``, ``completion_tokens``)
    is read only where a second judge corroborates it, as claim C12 reads it (:func:`lcrag.papers.long2rag.
    trend_claims.lexical_pair`, with ``held_out``: per model, each judge's Cohen's kappa on the judged sample's
    held-out half); otherwise its reading is :data:`~lcrag.synthesis.UNCORROBORATED`."""
    out = []
    for model, judge in judges.items():
        g = questions[(questions["model"] == model) & (questions["judge"] == judge)]
        wide = question_kpr_wide(g, judge)
        if "none" not in wide:
            continue
        whole_floor = truncation_floor(wide)
        trunks = sorted((v for v in wide.columns if str(v).startswith("trunc")), key=_trunc_size, reverse=True)
        for variant in trunks:
            both = wide[["none", variant]].dropna()
            if both.empty:
                continue
            floor = variant_floor(both, ["none", variant]) if whole_floor else None  # a cut alone: the effect
            floored = [a for a, v in ((WHOLE, "none"), (variant, variant)) if floor and variant_floor(both, [v])]
            cut_floor = None if whole_floor else variant_floor(both, [variant])  # read, and named
            named = f"; the cut at the floor ({cut_floor}): a cut down to it is the effect measured" if cut_floor else ""
            diff, lo, hi = bootstrap_diff(both["none"], both[variant], n_boot=n_boot, seed=seed)
            row = comparison(
                NAME, model, f"whole documents vs {variant} (KPR, {judge} judge)", WHOLE, float(both["none"].mean()),
                variant, float(both[variant].mean()), diff, lo, hi, len(both), "questions",
                f"paired bootstrap over {len(both)} questions; judge {judge} ({(notes or {}).get(model, RULE)})"
                + named,
                g["source"].iloc[0], floor=floor, floored=floored,
                long_context=(context or {}).get(model, ""))  # fmt: skip
            out.append(_corroborated(row, questions, lengths, model, judge, variant,
                                     (held_out or {}).get(model, {}), n_boot, seed))
    return out


def _corroborated(row: dict, questions: pd.DataFrame, lengths: pd.DataFrame | None, model: str, judge: str,
                  variant: str, held_out: dict[str, float], n_boot: int, seed: int) -> dict:
    """``row`` (whole documents vs ``variant``) as :func:`comparisons` reads a decided one by the lexical judge:
    its reading :data:`~lcrag.synthesis.UNCORROBORATED` where :func:`lexical_pair` withholds the verdict, the
    reason in its evidence either way; without the answers' lengths (``lengths`` given, none for ``model``), a
    lexical judge's difference cannot be checked, so it is not read either."""
    decided = {f"{WHOLE} better": True, f"{variant} better": False}.get(row["reading"])
    if decided is None or lengths is None or judge != "lexical":
        return row
    mine = questions[questions["model"] == model].merge(
        lengths[lengths["model"] == model].drop(columns="model"), on=["question_id", "variant"])
    if mine.empty:
        verdict, note = None, (f"{UNCORROBORATED_NOTE}the run saved no answer lengths to check the lexical judge, which "
                               "favours longer answers")
    else:
        verdict, note = lexical_pair(mine, "none", variant, decided, judge, held_out, n_boot, seed)
    if not note:
        return row
    return {**row, "reading": row["reading"] if verdict is not None else UNCORROBORATED,
            "evidence": f"{row['evidence']}; {note}"}


def whole_context(runs: pd.DataFrame) -> dict[str, str]:
    """Per model, what its whole-document arm held, from the run's ``context_policy.csv`` (``none`` row):
    ``whole documents``, or ``cut to the window in 3 of 20 responses`` where the five documents did not fit;
    nothing for a run without the table."""
    t = load_table(runs, NAME, "context_policy", ["variant", "responses", "documents_cut"], [])
    return {str(r.model): window_cut(int(r.documents_cut), int(r.responses), "responses", "whole documents")
            for r in t[t["variant"] == "none"].itertuples()}


def _trunc_size(variant: str) -> int:
    digits = "".join(c for c in str(variant) if c.isdigit())
    return int(digits) if digits else 0


def plot_judge(syn, model: str) -> str | None:
    """The judge of the model's comparisons (else the first that scored its responses), or None."""
    c = syn.comparisons
    c = c[(c["family"] == NAME) & (c["model"] == model)]
    if len(c):
        return c["comparison"].iloc[0].rsplit(", ", 1)[1].removesuffix(" judge)")
    k = syn.tables[NAME]
    found = k.loc[k["model"] == model, "judge"]
    return str(found.iloc[0]) if len(found) else None


def plot(axes, syn, model: str) -> None:
    """One panel: KPR per document variant, by the judge of the comparisons."""
    k = syn.tables[NAME]
    judge = plot_judge(syn, model)
    title = f"long2rag: KPR ({judge} judge)" if judge else "long2rag: KPR"
    bars(axes[0], k[(k["model"] == model) & (k["judge"] == judge)], "variant", "kpr", title)


def _tables(runs, problems, n_boot, seed):
    q = questions(runs, problems)
    return {NAME: summary(q, n_boot, seed), f"{NAME}_questions": q}


def _compare(runs, tables, problems, n_boot, seed):
    from lcrag.papers.long2rag.judges import SAMPLE_HELD_OUT

    q = tables[f"{NAME}_questions"]
    chosen = judges(runs, q, problems)
    agree = load_table(runs, NAME, "judge_agreement", ["judge", "half", "n", "kappa"], [])
    notes = {m: judge_note(agree[agree["model"] == m], j, sorted(set(q.loc[q["model"] == m, "judge"])))
             for m, j in chosen.items()}
    held = agree[agree["half"] == SAMPLE_HELD_OUT]
    held_out = {m: dict(zip(g["judge"], g["kappa"], strict=True)) for m, g in held.groupby("model")}
    lengths = load_table(runs, NAME, "responses", ["question_id", "variant", "completion_tokens"], problems)
    return comparisons(q, chosen, n_boot, seed, whole_context(runs), notes,
                       lengths.reindex(columns=["model", "question_id", "variant", "completion_tokens"]), held_out)


def headline(rows: pd.DataFrame) -> pd.Series:
    """A model's headline comparison, read as claim C12 reads its truncations (every one must lower KPR): the
    least favourable to whole documents, the least severe cut first among equals (the rows come longest prefix
    first): one that truncated documents beat, else one with no clear difference, else the least severe cut. So
    the headline says "whole better" only when whole documents beat every cut run, as C12 is reproduced only then."""
    def rank(r) -> int:
        if r.reading == f"{r.other_arm} better":
            return 0
        return 2 if r.reading == f"{r.long_arm} better" else 1
    ranks = [rank(r) for r in rows.itertuples()]
    return rows.iloc[ranks.index(min(ranks))]


#: The headline comparison, in words: the one the synthesis's answer and size axis read (:func:`headline`).
HEADLINE_RULE = ("whole documents against the truncation least favourable to them, as claim C12 reads its cuts: "
                 "one that truncated documents beat, else the least severe cut with no clear difference, else the "
                 "least severe cut; so whole documents count as better only when they beat every cut run. The "
                 "answer names the harsher cuts that decide")

FAMILY = Family(
    name=NAME,
    title="Long²RAG: KPR with whole vs truncated documents",
    tables=_tables,
    compare=_compare,
    headline=lambda arm: True,  # unused: headline_pick decides
    detail_index=("model", "judge", "variant"),
    plot=plot,
    headline_pick=headline,
    headline_rule=HEADLINE_RULE,
    headline_name="truncation (C12's reading)",
    wins=("whole documents beat truncated ones", "truncated documents beat whole ones"),
    versus="Whole documents against truncated ones",
    others_in_answer=True,
)
