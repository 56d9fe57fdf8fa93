"""The released coverage prompt as our LLM judge, on the annotated insights of ``eval_benchmark_data.json``.

The judge itself (the released prompt, filled as ``populate_eval.py`` does, and its answer read: JSON first, then a
lenient label search, else *unparseable*, counted and scored as no coverage) is :mod:`lcrag.judges.insight`.
:func:`llm_judge_benchmark` runs it over the annotated insights and returns labels in the form of
:func:`lcrag.papers.summhay.evaluator_study.benchmark_labels`, so Table 1's functions score it; the rest are the
chapter's tables and sentences on how the judges' answers were read.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from lcrag.judges.default import judge_label
from lcrag.judges.insight import PARSE_STATUSES, judge_prompt, parse_judgment, run_judge
from lcrag.metrics.summhay import coverage_score, normalize_label
from lcrag.papers.summhay.our_judges import HALVES, benchmark_half

#: The annotated summaries a judge reads: all of them, or one half (:data:`HALVES`).
JUDGE_HALVES = ("all", *HALVES)


def judge_requests(bench: pd.DataFrame, records: Sequence[int] | None = None) -> pd.DataFrame:
    """One row per annotated insight of the chosen ``records`` (all when None): record, insight_id, prompt.

    Insights are those of the human ``annotation`` (the 1,419 of Table 1), in the file's order."""
    rows = []
    chosen = None if records is None else set(int(r) for r in records)
    for r in bench.to_dict("records"):
        if chosen is not None and int(r["record"]) not in chosen:
            continue
        text = {i["insight_id"]: i["insight"] for i in r["reference_insights"]}
        for a in r["annotation"]:
            rows.append(
                {
                    "record": r["record"],
                    "insight_id": a["insight_id"],
                    "prompt": judge_prompt(text[a["insight_id"]], r["summary"]),
                }
            )
    return pd.DataFrame(rows, columns=["record", "insight_id", "prompt"])


def judge_records(bench: pd.DataFrame, half: str = "held-out", n: int = 0) -> list[int]:
    """Records to judge: those of ``half`` (:data:`JUDGE_HALVES`), the first ``n`` if ``n`` > 0."""
    if half not in JUDGE_HALVES:
        raise ValueError(f"half must be one of {', '.join(JUDGE_HALVES)}, not {half!r}")
    recs = [int(r) for r in bench["record"] if half == "all" or benchmark_half(r) == half]
    return recs[:n] if n > 0 else recs


def llm_judge_benchmark(
    bench: pd.DataFrame,
    labels: pd.DataFrame,
    model,
    records: Sequence[int] | None = None,
    max_tokens: int = 48,
) -> pd.DataFrame:
    """Our LLM judge on the annotated insights of ``records``: rows in the form of
    :func:`lcrag.papers.summhay.evaluator_study.benchmark_labels` (evaluator ``llm:<model>``), plus ``answer``
    (the raw text), ``parse`` (:data:`PARSE_STATUSES`) and ``link_outside`` (a bullet id outside the summary: no
    link)."""
    req = judge_requests(bench, records)
    answers = run_judge(model, list(req["prompt"]), max_tokens)
    human = labels[labels["evaluator"] == "human"].set_index(["record", "insight_id"])
    rows = []
    for (record, insight_id), c in zip(
        zip(req["record"], req["insight_id"], strict=True), answers, strict=True
    ):
        p = parse_judgment(c.text)
        base = human.loc[(record, insight_id)]
        link = p["bullet_id"] - 1 if isinstance(p["bullet_id"], int) else None
        outside = link is not None and not 0 <= link < int(base["n_bullets"])
        if outside:
            link = None
        rows.append(
            {
                **{
                    k: base[k]
                    for k in (
                        "domain",
                        "topic",
                        "subtopic_id",
                        "summkey",
                        "summarizer",
                        "setting",
                        "n_bullets",
                        "words_per_bullet",
                    )
                },
                "record": record,
                "insight_id": insight_id,
                "evaluator": judge_label(model.spec, style="evaluator"),
                "label": p["coverage"],
                "score": coverage_score(p["coverage"]),
                "link": link,
                "answer": c.text,
                "parse": p["parse"],
                "link_outside": outside,
            }
        )
    return pd.DataFrame(rows)[[*labels.columns, "answer", "parse", "link_outside"]]


def llm_judges_benchmark(bench: pd.DataFrame, labels: pd.DataFrame, models: Sequence, records: Sequence[int] | None = None,
                         max_tokens: int = 48) -> pd.DataFrame:
    """:func:`llm_judge_benchmark` for each judge model in turn, on the same records: one table."""
    return pd.concat([llm_judge_benchmark(bench, labels, m, records, max_tokens) for m in models], ignore_index=True)


def parse_report(judged: pd.DataFrame) -> pd.DataFrame:
    """How each judge's answers were read: count and share per judge, parse status and label (unparseable shown),
    and the bullet ids it gave outside the summary."""
    t = judged.groupby(["evaluator", "parse", "label"], sort=False).size().rename("answers").reset_index()
    t["share"] = t["answers"] / t["evaluator"].map(judged.groupby("evaluator").size())
    outside = judged.groupby(["evaluator", "parse", "label"], sort=False)["link_outside"].sum()
    t["links_outside"] = outside.to_numpy().astype(int)
    t["parse"] = pd.Categorical(t["parse"], PARSE_STATUSES, ordered=True)
    order = {e: i for i, e in enumerate(judged["evaluator"].unique())}
    return t.sort_values(["evaluator", "parse", "label"], key=lambda c: c.map(order) if c.name == "evaluator" else c
                         ).reset_index(drop=True)


def label_shares(judged: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """Share of each coverage label (:func:`lcrag.metrics.summhay.normalize_label`) per LLM judge in ``judged``
    and, on the same insights, for the humans (from ``labels``,
    :func:`lcrag.papers.summhay.evaluator_study.benchmark_labels`): one row per evaluator and label."""
    keys = judged[["record", "insight_id"]].drop_duplicates()
    human = labels[labels["evaluator"] == "human"].merge(keys, on=["record", "insight_id"])
    both = pd.concat([judged[["evaluator", "label"]], human[["evaluator", "label"]]], ignore_index=True)
    both["label"] = both["label"].map(normalize_label)  # the annotation file spells them "fully_covered", ...
    t = both.groupby(["evaluator", "label"], sort=False).size().rename("n").reset_index()
    t["share"] = t["n"] / t["evaluator"].map(both.groupby("evaluator").size())
    return t


def label_sentence(shares: pd.DataFrame) -> str:
    """One sentence from :func:`label_shares`: the label each LLM judge gives most often, with its share, next to
    the humans' share of that label (a judge that gives one label to nearly everything carries little signal)."""
    human = shares[shares["evaluator"] == "human"].set_index("label")["share"]
    parts = []
    for evaluator, t in shares[shares["evaluator"] != "human"].groupby("evaluator", sort=False):
        top = t.loc[t["share"].idxmax()]
        parts.append(f"{evaluator} labels {100 * top['share']:.1f} % of them *{top['label']}* (the humans: "
                     f"{100 * human.get(top['label'], 0.0):.1f} %)")
    if not parts:
        return ""
    return "On these insights " + "; ".join(parts) + "."


def off_json_answers(judged: pd.DataFrame, n: int = 5) -> pd.DataFrame:
    """The first ``n`` answers of each judge that were not the JSON object the prompt asks for (read leniently, or
    unparseable): evaluator, record, insight_id, parse, label and the raw answer. Empty when every answer was."""
    cols = ["evaluator", "record", "insight_id", "parse", "label", "answer"]
    off = judged.loc[judged["parse"] != "json", cols]
    return off.groupby("evaluator", sort=False).head(n).reset_index(drop=True)


def parse_sentence(judged: pd.DataFrame, shown: int = 5) -> str:
    """How each judge's answers were read, in words (:func:`parse_report`'s counts): that every answer was the JSON
    object the prompt asks for, or per judge how many were not (read leniently, unparseable), announcing the first
    ``shown`` of them (:func:`off_json_answers`), which a reader can then find below."""
    from lcrag.text import join_words

    if not len(judged):
        return ""
    counts = pd.crosstab(judged["evaluator"], judged["parse"]).reindex(
        index=judged["evaluator"].unique(), columns=list(PARSE_STATUSES), fill_value=0)
    judges = join_words(list(counts.index))
    if not counts[["lenient", "unparseable"]].to_numpy().any():
        return (f"Every answer of {judges} ({int(counts.to_numpy().sum())} in all) held the JSON object the prompt "
                "asks for, with a known coverage label: none had to be read leniently and none is unparseable, so "
                "there is no such answer to show.")
    parts = []
    for e, c in counts.iterrows():
        off = int(c["lenient"] + c["unparseable"])
        parts.append(f"{e}, none of its {int(c.sum())}" if not off else
                     f"{e}, {off} of its {int(c.sum())} ({int(c['lenient'])} read leniently, "
                     f"{int(c['unparseable'])} unparseable and scored as no coverage)")
    return (f"Answers that are not the JSON object the prompt asks for: {'; '.join(parts)}. Up to {shown} of each "
            "judge's such answers are folded below: they show how a judge answers when it does not return that object.")
