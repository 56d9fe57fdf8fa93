"""Our judges that need no LLM on the annotated summaries: thresholds fitted on half, scored as Table 1.

:func:`judge_similarities` (MiniLM embeddings and lexical recall, :mod:`lcrag.judges.similarity`),
:func:`deterministic_labels` (thresholds fitted on the ``fit`` half, :data:`HALVES`) and :func:`judges_table`
(Table 1's two columns for every evaluator, the paper's LLMs, ours, and our LLM judge of
:mod:`lcrag.papers.summhay.llm_judge`, on all summaries and per half).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lcrag.metrics.summhay import coverage_correlation, coverage_score, linking_accuracy
from lcrag.papers.summhay.evaluator_study import agreement
from lcrag.papers.summhay.paper_numbers import PAPER_TABLE1
from lcrag.stats import signed

#: Our judges that need no LLM (:mod:`lcrag.judges.similarity`), as evaluator names of
#: :func:`~lcrag.papers.summhay.evaluator_study.benchmark_labels`.
DETERMINISTIC_JUDGES: dict[str, str] = {
    "minilm-cosine": "cosine of all-MiniLM-L6-v2 embeddings of the insight and each bullet",
    "lexical-recall": "share of the insight's content words found in the bullet",
}

#: How the 200 annotated summaries are split to fit and test the judges' thresholds: by the parity of the
#: record's position in the file (the file interleaves topics, summarizers and settings).
HALVES = {"fit": "even records (0, 2, ...)", "held-out": "odd records (1, 3, ...)"}
#: The live judge's choices by word (:func:`live_judge`); an LLM judge's evaluator name is the other.
LIVE_CHOICES = ("best", "lexical")


def benchmark_half(record: int) -> str:
    """``"fit"`` for an even record position of ``eval_benchmark_data.json``, ``"held-out"`` for an odd one."""
    return "fit" if int(record) % 2 == 0 else "held-out"


def judge_similarities(bench: pd.DataFrame, embedder=None) -> pd.DataFrame:
    """Per record, human-annotated insight and deterministic judge: the best bullet similarity and its bullet.

    Bullets are the record's ``summary`` list, indexed from 0 as the human ``candidate_id``. ``embedder``
    (default: :func:`lcrag.models.embeddings.get_embedder`, MiniLM) embeds every distinct text once, in batches;
    later look-ups hit its cache.
    """
    from lcrag.judges.similarity import (
        best_bullets,
        embedding_similarity,
        lexical_similarity,
        strip_citations,
    )

    if embedder is None:
        from lcrag.models.embeddings import get_embedder

        embedder = get_embedder()
    records = bench.to_dict("records")
    texts = {i["insight"] for r in records for i in r["reference_insights"]}
    texts |= {strip_citations(b) for r in records for b in r["summary"]}
    embedder.embed(sorted(texts))
    similarity = {
        "minilm-cosine": lambda ins, bul: embedding_similarity(ins, bul, embedder),
        "lexical-recall": lexical_similarity,
    }
    rows = []
    for r in records:
        text = {i["insight_id"]: i["insight"] for i in r["reference_insights"]}
        ids = [a["insight_id"] for a in r["annotation"]]
        missing = [i for i in ids if i not in text]
        if missing:
            raise ValueError(
                f"eval_benchmark_data.json record {r['record']}: annotated insights {missing} "
                "are not among its reference_insights"
            )
        for name, fn in similarity.items():
            best, link = best_bullets(fn([text[i] for i in ids], r["summary"]))
            rows += [
                {
                    "record": r["record"],
                    "insight_id": i,
                    "evaluator": name,
                    "similarity": float(s),
                    "argmax": int(k),
                }
                for i, s, k in zip(ids, best, link, strict=True)
            ]
    return pd.DataFrame(rows)


def deterministic_labels(
    labels: pd.DataFrame, similarities: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Our judges' labels in the form of :func:`~lcrag.papers.summhay.evaluator_study.benchmark_labels`, and the
    thresholds they use.

    For each judge the thresholds are fitted (:func:`lcrag.judges.similarity.fit_thresholds`, maximal Pearson
    correlation with the human scores) on the ``fit`` half only (:data:`HALVES`) and applied to all 200 summaries.
    Extra columns: ``similarity`` (best bullet's), ``argmax`` (the most similar bullet, linked or not), ``half``.
    """
    from lcrag.judges.similarity import apply_thresholds, fit_thresholds

    human = labels[labels["evaluator"] == "human"].drop(columns=["evaluator", "label", "score", "link"])
    human_score = labels[labels["evaluator"] == "human"].set_index(["record", "insight_id"])["score"]
    out, fitted = [], []
    for name, g in similarities.groupby("evaluator", sort=False):
        g = g.set_index(["record", "insight_id"]).loc[human_score.index].reset_index()
        fit = g["record"].map(benchmark_half) == "fit"
        t = fit_thresholds(g.loc[fit, "similarity"], human_score.to_numpy()[fit.to_numpy()])
        g["label"] = apply_thresholds(g["similarity"], t)
        g["score"] = g["label"].map(coverage_score)
        g["link"] = [
            None if lab == "NO_COVERAGE" else k for lab, k in zip(g["label"], g["argmax"], strict=True)
        ]
        out.append(g)
        fitted.append(
            {
                "evaluator": name,
                "what": DETERMINISTIC_JUDGES.get(name, name),
                "partial": t.partial,
                "full": t.full,
                "fitted_on": f"fit half: {HALVES['fit']}",
                "n_fit": int(fit.sum()),
            }
        )
    judged = human.merge(pd.concat(out), on=["record", "insight_id"], validate="one_to_many")
    judged["half"] = judged["record"].map(benchmark_half)
    return judged[[*labels.columns, "similarity", "argmax", "half"]], pd.DataFrame(fitted)


def judges_table(labels: pd.DataFrame) -> pd.DataFrame:
    """Table 1's two columns for every evaluator of ``labels`` (the six LLMs and ours), on all 200 summaries and
    on each half (:data:`HALVES`), with the paper's Table 1 values (all 200 summaries) for the LLMs.

    Computed by :func:`~lcrag.papers.summhay.evaluator_study.agreement`, as Table 1. Our judges also get
    ``raw_corr`` (Pearson r of the best similarity itself, before thresholds) and ``link_acc_argmax`` (the most
    similar bullet against every human-linked insight, covered or not, with ``n_argmax`` such insights).
    """
    halves = labels["record"].map(benchmark_half)
    parts = {"all": labels, **{h: labels[halves == h] for h in HALVES}}
    rows = []
    for part, lab in parts.items():
        if not (lab["evaluator"] == "human").any():
            continue  # a subset with no record in this half
        t = agreement(lab.drop(columns=["similarity", "argmax", "half"], errors="ignore"))
        t.insert(1, "half", part)
        ref = lab[lab["evaluator"] == "human"].set_index(["record", "insight_id"])
        extra = []
        for e in t["evaluator"]:
            g = lab[lab["evaluator"] == e].set_index(["record", "insight_id"]).loc[ref.index]
            if "similarity" in g and g["similarity"].notna().all():
                acc, n = linking_accuracy(list(ref["link"]), list(g["argmax"]))
                extra.append(
                    {
                        "raw_corr": coverage_correlation(ref["score"], g["similarity"]),
                        "link_acc_argmax": 100 * acc,
                        "n_argmax": n,
                    }
                )
            else:
                extra.append({"raw_corr": np.nan, "link_acc_argmax": np.nan, "n_argmax": np.nan})
        rows.append(pd.concat([t, pd.DataFrame(extra)], axis=1))
    out = pd.concat(rows, ignore_index=True)
    out["judge"] = np.where(
        out["evaluator"].isin(list(DETERMINISTIC_JUDGES)),
        "ours (no LLM)",
        np.where(out["evaluator"].str.startswith("llm:"), "ours (LLM)", "paper's LLM"),
    )
    paper = {k: v for k, v in PAPER_TABLE1.items() if k != "Manual Annot."}
    out["paper_cov_corr"] = [
        paper[e][0] if e in paper and h == "all" else np.nan
        for e, h in zip(out["evaluator"], out["half"], strict=True)
    ]
    out["paper_link_acc"] = [
        paper[e][1] if e in paper and h == "all" else np.nan
        for e, h in zip(out["evaluator"], out["half"], strict=True)
    ]
    cols = [
        "evaluator",
        "judge",
        "half",
        "paper_cov_corr",
        "cov_corr",
        "raw_corr",
        "paper_link_acc",
        "link_acc",
        "n_linked",
        "link_acc_argmax",
        "n_argmax",
        "n_insights",
    ]
    return out[cols]


#: The judges that can judge a live summary: the lexical one (thresholds fitted on the fit half) and LLM judges.
LEXICAL, MINILM = "lexical-recall", "minilm-cosine"
LIVE_CAPABLE = (LEXICAL,)


def live_judge(choice: str, table: pd.DataFrame, llm_evaluators: list[str]) -> str:
    """The evaluator that judges the live summaries: ``choice`` ``"lexical"`` (the lexical judge), an LLM judge's
    evaluator name (``llm:<model>``), or ``"best"``: of the lexical judge and ``llm_evaluators``, the one whose
    coverage scores correlate best with the humans' on the **fit** half (measured on enough insights:
    :func:`lcrag.book.verdicts.choose_judge`), so that the held-out half still tests the choice. The lexical judge
    when no LLM judge was measured there."""
    from lcrag.book.verdicts import choose_judge

    if choice == LIVE_CHOICES[1]:
        return "lexical-recall"
    if choice != LIVE_CHOICES[0]:
        if choice not in llm_evaluators:
            raise ValueError(f"live_evaluator {choice!r} is none of 'best', 'lexical' or this run's LLM judges "
                             f"{llm_evaluators}")
        return choice
    return (choose_judge(as_agreement(table), [*LIVE_CAPABLE, *llm_evaluators], half="fit", metric="cov_corr")
            or "lexical-recall")


def as_agreement(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`judges_table` in the columns :func:`lcrag.book.verdicts.choose_judge` reads (``judge``: the
    evaluator, ``n``: its insights)."""
    return table.drop(columns=["judge"], errors="ignore").rename(columns={"evaluator": "judge", "n_insights": "n"})


def judge_choice_sentence(table: pd.DataFrame, chosen: str, reference: str = "gpt-4o", chosen_by: str = "best") -> str:
    """One sentence, from ``table`` (:func:`judges_table`), on the chosen judge: its agreement with the humans on
    the fit half, where it was chosen (``chosen_by`` ``"best"``; otherwise it was named by the ``live_evaluator``
    parameter), and on the held-out half, next to ``reference``'s on the same half."""
    t = table.set_index(["evaluator", "half"])

    def r(evaluator: str, half: str) -> str:
        if (evaluator, half) not in t.index:
            return "not measured"
        row = t.loc[(evaluator, half)]
        return f"r = {row['cov_corr']:.3f} on {int(row['n_insights'])} insights"

    if chosen_by == "best":
        first = f"The judge of ours that agrees best with the humans on the fit half is **{chosen}** ({r(chosen, 'fit')})"
    else:
        first = f"The live summaries are judged by **{chosen}**, as `live_evaluator` asks (fit half: {r(chosen, 'fit')})"
    return f"{first}; on the held-out half it reaches {r(chosen, 'held-out')}, against {reference}'s {r(reference, 'held-out')}."


def subset_reading(full: pd.DataFrame, subset: pd.DataFrame, n_read: int, n_total: int,
                   reference: str = "gpt-4o") -> str:
    """Whether the judges table of the summaries our LLM judges read (``subset``, :func:`judges_table` of ``n_read``
    of the ``n_total`` annotated summaries) is the table of all summaries (``full``) or a subset of it, in words,
    with ``reference``'s agreement on both: a subset's numbers differ from the full halves'."""
    def r(table: pd.DataFrame) -> pd.Series:
        return table[(table["evaluator"] == reference) & (table["half"] == "all")].iloc[0]

    sub, whole = r(subset), r(full)
    if n_read == n_total:
        return (f"Our LLM judges read all {n_total} annotated summaries ({int(sub['n_insights'])} insights), so the "
                "other judges' rows here are those of the table of every judge above "
                f"({reference}: r = {sub['cov_corr']:.3f} on all of them).")
    return (f"Our LLM judges read {n_read} of the {n_total} annotated summaries ({int(sub['n_insights'])} insights; "
            "parameters `judge_half` and `judge_summaries`), and every judge here is scored on those only: "
            f"{reference} reaches r = {sub['cov_corr']:.3f} on them, against {whole['cov_corr']:.3f} on all "
            f"{n_total} summaries. A subset gives other numbers than the table of every judge above; with few "
            "summaries, very different ones.")


def _names(rows: pd.DataFrame) -> str:
    from lcrag.text import join_words

    return join_words([f"{e} ({r:.2f})" for e, r in rows["cov_corr"].items()])


def agreement_reading(table: pd.DataFrame, half: str = "held-out") -> str:
    """How far our judges without an LLM go, in words, from :func:`judges_table` (the figure of the held-out
    half): the lexical and MiniLM judges' correlation with the humans among the paper's LLM judges', what they
    lose from the fit half, and their linking accuracy on the insights they link and over all human-linked ones."""
    h = table[table["half"] == half].set_index("evaluator")
    fit = table[table["half"] == "fit"].set_index("evaluator")
    lex, mini = h.loc[LEXICAL], h.loc[MINILM]
    llms = h[(h["judge"] == "paper's LLM") & ~h.index.str.endswith("-9fs")].sort_values("cov_corr")
    below, above = llms[llms["cov_corr"] < lex["cov_corr"]], llms[llms["cov_corr"] >= lex["cov_corr"]]
    place = (f"above {_names(below)}" if len(below) else "") + (" and " if len(below) and len(above) else "") + (
        f"below {_names(above)}" if len(above) else "")
    near = llms.iloc[(llms["cov_corr"] - mini["cov_corr"]).abs().argsort()[:2]]
    drop = [fit.loc[e, "cov_corr"] - h.loc[e, "cov_corr"] for e in (LEXICAL, MINILM) if e in fit.index]
    return (
        f"On the {half} half, the **lexical judge** correlates with the humans at r = {lex['cov_corr']:.2f}, "
        f"{place}. The **MiniLM judge** reaches {mini['cov_corr']:.2f}, near {_names(near)}. From the fit half to "
        f"this one they change by {', '.join(signed(-d, 2) for d in drop)}, and thresholding changes little against "
        f"the raw similarity (r = {lex['raw_corr']:.2f} and {mini['raw_corr']:.2f} before thresholds), so the fit is "
        f"not what makes them work. Linking accuracy is where they fall behind: the lexical judge's "
        f"{lex['link_acc']:.0f} % is computed on the {int(lex['n_linked'])} insights it calls covered, of the "
        f"{int(lex['n_argmax'])} the humans linked (the LLMs link about {llms['n_linked'].mean():.0f}), and its most "
        f"similar bullet matches the annotators' choice {lex['link_acc_argmax']:.0f} % of the time over all of them; "
        f"MiniLM's are {mini['link_acc']:.0f} % and {mini['link_acc_argmax']:.0f} %. The SummHay insights are "
        "specific facts (names, numbers, dates), and a bullet that repeats their words is usually a bullet that "
        "covers them: a plausible reason (not tested here) why word overlap beats a small sentence embedding; it "
        "says nothing of a judge's value on paraphrased summaries. These two judges are the floor for every judge "
        f"this book uses: an LLM judge that does not beat r = {lex['cov_corr']:.2f} on these labels does no better "
        "than counting words."
    )


def subset_table(judges: pd.DataFrame, evaluators) -> pd.DataFrame:
    """Section 5's table of the judges on the summaries our LLM judges read: ``evaluators``' correlation, linking
    accuracy (3 decimals) and number of insights (a whole number) per half, one row per evaluator."""
    wide = judges[judges["evaluator"].isin(evaluators)].pivot_table(
        index="evaluator", columns="half", values=["cov_corr", "link_acc", "n_insights"], sort=False).round(3)
    return wide.astype({c: "Int64" for c in wide.columns if c[0] == "n_insights"})

