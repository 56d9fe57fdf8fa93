"""The evaluator study of ``eval_benchmark_data.json``: Table 1 (reproduced exactly) and Table 4 (not reproduced).

:func:`benchmark_labels` puts every coverage label of the 200 annotated summaries (human and the six LLM evaluators)
in long form; :func:`agreement` and :func:`table1` compute Table 1's coverage correlation and linking accuracy;
:func:`summary_deltas`, :func:`table4` and :func:`compare_table4` Table 4's bias, :func:`bias_intervals` its conclusions
with their intervals; :func:`table4_variants` tests explanations for the difference. No LLM call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from lcrag.metrics.summhay import coverage_correlation, coverage_score, linking_accuracy, words_per_bullet
from lcrag.papers.summhay.names import SUMMARIZERS, TABLE4_EVALUATORS, parse_summary_key
from lcrag.papers.summhay.paper_numbers import (
    PAPER_TABLE1,
    PAPER_TABLE4,
    PAPER_TABLE4_TWO_DECIMALS,
    RELEASED_COST_PER_SUMMARY,
)

#: Short names of the three topics of ``eval_benchmark_data.json`` (its ``topic_fn`` or ``topic_id``).
BENCHMARK_TOPICS = {
    "data/topic_doctor_patient.json": "doctor-patient",
    "data/topic_664eac18d68e5dd3b795fd6c.json": "sales call",
    "6419263d9c6c91e5010d4abf": "Foot Locker",
}


def benchmark_labels(bench: pd.DataFrame) -> pd.DataFrame:
    """Every coverage label of ``eval_benchmark_data.json`` in long form: one row per record, insight, evaluator.

    ``evaluator`` is ``human`` (the two annotators' adjudicated label) or the model card of a prediction column
    (``gpt-4o-9fs`` for the 9-shot prompt). ``score`` is 0 / 0.5 / 1. ``link`` is the 0-based index of the
    chosen bullet, or None: for humans ``candidate_id`` (0-based, "no_selection" = none); for evaluators an
    integer ``bullet_id`` minus one -- anything else (``"NA"``, or a list of ids, which Claude 3 Haiku returns
    104 times) is no link, as in the released notebook. Records are from
    :func:`lcrag.data.load_eval_benchmark` (a news record has a ``topic_id``, a conversation one a ``topic_fn``).
    """
    prediction_columns = [c for c in bench.columns if c.startswith("predictions_")]
    rows = []
    for r in bench.to_dict("records"):
        topic = r["topic_id"] if isinstance(r["topic_id"], str) else r["topic_fn"]
        base = {
            "record": r["record"],
            "domain": "news" if isinstance(r["topic_id"], str) else "conversation",
            "topic": BENCHMARK_TOPICS.get(topic, topic),
            "subtopic_id": r["subtopic_id"],
            "summkey": r["summkey"],
            "summarizer": r["summkey"].split("_")[-1],
            "setting": parse_summary_key(r["summkey"])[1],
            "n_bullets": len(r["summary"]),
            "words_per_bullet": words_per_bullet(r["summary"]),
        }
        human = {a["insight_id"]: a for a in r["annotation"]}
        for insight_id, a in human.items():
            link = None if a["candidate_id"] == "no_selection" else int(a["candidate_id"])
            rows.append(
                {
                    **base,
                    "insight_id": insight_id,
                    "evaluator": "human",
                    "label": a["coverage"],
                    "score": coverage_score(a["coverage"]),
                    "link": link,
                }
            )
        for column in prediction_columns:
            prompt, model = column.removeprefix("predictions_").split("_")
            evaluator = model + ("-9fs" if prompt == "9fs" else "")
            predicted = {p["insight_id"]: p for p in r[column]}
            for insight_id in human:
                p = predicted[insight_id]
                link = p["bullet_id"] - 1 if type(p["bullet_id"]) is int else None
                rows.append(
                    {
                        **base,
                        "insight_id": insight_id,
                        "evaluator": evaluator,
                        "label": p["coverage"],
                        "score": coverage_score(p["coverage"]),
                        "link": link,
                    }
                )
    return pd.DataFrame(rows)


def benchmark_composition(bench: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """What the 200 annotated summaries are: records and insights per domain, summarizers, settings."""
    human = labels[labels["evaluator"] == "human"]
    rec = human.drop_duplicates("record")
    rows = [
        {"what": "summaries", "value": len(bench)},
        {"what": "insight judgments", "value": len(human)},
        {"what": "subtopics", "value": rec["subtopic_id"].nunique()},
    ]
    rows += [{"what": f"summaries, {k}", "value": v} for k, v in rec["domain"].value_counts().items()]
    rows += [{"what": f"human label {k}", "value": v} for k, v in human["label"].value_counts().items()]
    rows += [{"what": f"summarizer {k}", "value": v} for k, v in rec["summarizer"].value_counts().items()]
    rows += [{"what": f"setting {k}", "value": v} for k, v in rec["setting"].value_counts().items()]
    return pd.DataFrame(rows)


def benchmark_provenance(bench: pd.DataFrame, haystacks: Mapping) -> pd.DataFrame:
    """Where the 200 annotated summaries come from: per benchmark topic, the released haystack whose insights
    they use (matched by insight id and text), and how many of the summaries are word for word the summary the
    haystack file stores under the same subtopic and key (only the news files store summaries)."""
    rows = []
    for topic_key, g in bench.groupby(bench["topic_id"].fillna(bench["topic_fn"]), sort=False):
        ids = {i["insight_id"] for refs in g["reference_insights"] for i in refs}
        texts = {i["insight"] for refs in g["reference_insights"] for i in refs}
        row = {
            "topic": BENCHMARK_TOPICS.get(topic_key, topic_key),
            "summaries": len(g),
            "insights": len(ids),
            "haystack": None,
            "insight_ids_found": 0,
            "insight_texts_found": 0,
            "summaries_in_file": None,
            "summaries_identical": None,
        }
        for name, h in haystacks.items():
            found = len(ids & set(h.insights["insight_id"]))
            if found > row["insight_ids_found"]:
                row.update(
                    haystack=name,
                    insight_ids_found=found,
                    insight_texts_found=len(texts & set(h.insights["text"])),
                )
                stored = {(s.subtopic_id, s.summary_key): list(s.bullets) for s in h.summaries.itertuples()}
                if stored:
                    keys = list(zip(g["subtopic_id"], g["summkey"], strict=True))
                    row["summaries_in_file"] = sum(k in stored for k in keys)
                    row["summaries_identical"] = sum(
                        stored.get(k) == list(summ) for k, summ in zip(keys, g["summary"], strict=True)
                    )
        rows.append(row)
    return pd.DataFrame(rows)


def agreement(labels: pd.DataFrame, reference: str = "human") -> pd.DataFrame:
    """Per evaluator: coverage correlation and linking accuracy against ``reference`` (Table 1's two columns)."""
    ref = labels[labels["evaluator"] == reference].set_index(["record", "insight_id"])
    rows = []
    for evaluator, g in labels[labels["evaluator"] != reference].groupby("evaluator", sort=False):
        g = g.set_index(["record", "insight_id"]).loc[ref.index]
        acc, n = linking_accuracy(list(ref["link"]), list(g["link"]))
        rows.append(
            {
                "evaluator": evaluator,
                "cov_corr": coverage_correlation(ref["score"], g["score"]),
                "link_acc": 100 * acc,
                "n_linked": n,
                "n_insights": len(g),
            }
        )
    return pd.DataFrame(rows)


def table1(labels: pd.DataFrame, n_summaries: int) -> pd.DataFrame:
    """Table 1 recomputed next to the paper's: coverage correlation and linking accuracy from the labels, cost =
    the released notebook's cost per summary x ``n_summaries``. ``match_*``: equal at the paper's printed
    precision (3 decimals, 1 decimal, 1 decimal). Manual Annot. is paper-only: the 35-summary, 4-annotator data
    is not released."""
    ours = agreement(labels)
    ours["cost_usd"] = ours["evaluator"].map(RELEASED_COST_PER_SUMMARY) * n_summaries
    paper = pd.DataFrame(
        [(k, *v) for k, v in PAPER_TABLE1.items()],
        columns=["evaluator", "paper_cov_corr", "paper_link_acc", "paper_cost_usd"],
    )
    out = paper.merge(ours, on="evaluator", how="left")
    for col, decimals in (("cov_corr", 3), ("link_acc", 1), ("cost_usd", 1)):
        out[f"match_{col}"] = [
            None if pd.isna(o) else bool(np.isclose(round(o, decimals), p))
            for o, p in zip(out[col], out[f"paper_{col}"], strict=True)
        ]
    return out[
        [
            "evaluator",
            "paper_cov_corr",
            "cov_corr",
            "match_cov_corr",
            "paper_link_acc",
            "link_acc",
            "match_link_acc",
            "paper_cost_usd",
            "cost_usd",
            "match_cost_usd",
            "n_linked",
            "n_insights",
        ]
    ]


def summary_deltas(labels: pd.DataFrame, evaluators: Sequence[str] = TABLE4_EVALUATORS) -> pd.DataFrame:
    """Per summary and evaluator: mean automatic coverage, mean human coverage, their difference (delta, 0-1)."""
    key = ["record", "domain", "topic", "summarizer", "setting", "words_per_bullet"]
    human = labels[labels["evaluator"] == "human"].groupby(key)["score"].mean().rename("human")
    rows = []
    for e in evaluators:
        auto = labels[labels["evaluator"] == e].groupby(key)["score"].mean().rename("auto")
        d = pd.concat([auto, human], axis=1).reset_index()
        rows.append(d.assign(evaluator=e, delta=d["auto"] - d["human"]))
    return pd.concat(rows, ignore_index=True)


def table4(deltas: pd.DataFrame) -> pd.DataFrame:
    """Table 4 as the released notebook computes it: mean delta per summarizer (rows sorted by their mean over
    evaluators), the unweighted average of those rows, and the correlations of words per bullet with delta and
    with the automatic score across summaries."""
    by = deltas.pivot_table(index="summarizer", columns="evaluator", values="delta", aggfunc="mean")
    by = by[[e for e in TABLE4_EVALUATORS if e in by.columns]]
    by = by.loc[by.mean(axis=1).sort_values(kind="stable").index]
    avg = by.mean().rename("Average")
    corr = {}
    for what, col in (("Length to Score Corr.", "auto"), ("Length to Delta Corr.", "delta")):
        corr[what] = {
            e: np.corrcoef(g["words_per_bullet"], g[col])[0, 1] for e, g in deltas.groupby("evaluator")
        }
    out = pd.concat([by, avg.to_frame().T, pd.DataFrame(corr).T[by.columns]])
    out.index.name = "row"
    return out.reset_index()


def _average_of_means(x: np.ndarray) -> np.ndarray:
    """Table 4's Average of ``x`` (..., summaries, [summarizer code, delta]): the mean over summarizers of each one's
    mean delta (a summarizer that a draw left out is left out of that draw's average)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        each = [(x[..., 1] * (x[..., 0] == k)).sum(-1) / (x[..., 0] == k).sum(-1)
                for k in range(int(x[..., 0].max()) + 1)]
        return np.nanmean(np.stack(each), axis=0)


def bias_intervals(deltas: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Table 4's conclusions with their 95 % intervals, one row per evaluator: its Average (the mean over summarizers
    of their mean delta, as :func:`table4`) with the BCa interval of that same average over the summaries drawn
    again (each summarizer's mean recomputed on each draw), and the correlations of words per bullet with the score
    (``r_score``) and with delta (``r_delta``) over its ``n`` summaries, each with its Fisher-z interval."""
    from lcrag.stats import pearson_interval, rows_ci

    rows = []
    for e in [e for e in TABLE4_EVALUATORS if e in set(deltas["evaluator"])]:
        g = deltas[deltas["evaluator"] == e]
        values = np.column_stack([pd.factorize(g["summarizer"], sort=True)[0], g["delta"]])
        row = {"evaluator": e, "average": float(_average_of_means(values)), "n": len(g)}
        row["average_lo"], row["average_hi"] = rows_ci(values, _average_of_means, n_boot=n_boot, seed=seed)
        for name, col in (("r_score", "auto"), ("r_delta", "delta")):
            r = float(np.corrcoef(g["words_per_bullet"], g[col])[0, 1])
            row[name], (row[f"{name}_lo"], row[f"{name}_hi"]) = r, pearson_interval(r, len(g))
        rows.append(row)
    return pd.DataFrame(rows)


def compare_table4(ours: pd.DataFrame) -> pd.DataFrame:
    """Our Table 4 rows next to the paper's, in long form (row, evaluator, paper, ours, diff, match)."""
    paper = pd.DataFrame(
        [
            (row, e, v)
            for row, vals in PAPER_TABLE4.items()
            for e, v in zip(TABLE4_EVALUATORS, vals, strict=True)
        ],
        columns=["row", "evaluator", "paper"],
    )
    long = ours.melt(id_vars="row", var_name="evaluator", value_name="ours")
    out = paper.merge(long, on=["row", "evaluator"], how="left")
    out["diff"] = out["ours"] - out["paper"]
    decimals = _printed_decimals(out)
    out["match"] = [
        bool(np.isclose(round(o, d), p)) for o, p, d in zip(out["ours"], out["paper"], decimals, strict=True)
    ]
    return out


def _printed_decimals(table4_cmp: pd.DataFrame) -> list[int]:
    """The decimals the paper prints each Table 4 value with (row, evaluator): 3, or 2 where it prints two."""
    return [
        2 if (r, e) in PAPER_TABLE4_TWO_DECIMALS else 3
        for r, e in zip(table4_cmp["row"], table4_cmp["evaluator"], strict=True)
    ]


def table4_display(table4_cmp: pd.DataFrame) -> pd.DataFrame:
    """Table 4 as the chapter shows it (from :func:`compare_table4`): ours and the paper's value of each cell at the
    precision the paper prints it, as text, so that a reader sees the matches :func:`compare_table4` counts; rows
    in the paper's order, ``(ours | paper, evaluator)`` columns."""
    decimals = _printed_decimals(table4_cmp)

    def printed(values: pd.Series) -> list[str]:
        return [f"{round(v, d) + 0.0:.{d}f}" for v, d in zip(values, decimals, strict=True)]  # + 0.0: no "-0.000"

    shown = table4_cmp.assign(ours=printed(table4_cmp["ours"]), paper=printed(table4_cmp["paper"]))
    return shown.pivot_table(index="row", columns="evaluator", values=["ours", "paper"], aggfunc="first",
                             sort=False)


def table4_variants(deltas: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """Ways Table 4 could have been computed differently, each scored by how many of the paper's 27 summarizer
    cells (9 summarizers x 3 evaluators) it reproduces at three decimals. An explanation of the paper's values
    would reproduce all of them."""
    paper = {
        (s, e): v
        for s, vals in PAPER_TABLE4.items()
        if s in SUMMARIZERS
        for e, v in zip(TABLE4_EVALUATORS, vals, strict=True)
    }

    def score(table: pd.DataFrame) -> tuple[int, float]:
        hits, diffs = 0, []
        for (s, e), v in paper.items():
            if s in table.index and e in table.columns and not pd.isna(table.loc[s, e]):
                hits += bool(np.isclose(round(table.loc[s, e], 3), v))
                diffs.append(table.loc[s, e] - v)
        return hits, float(np.mean(np.abs(diffs))) if diffs else np.nan

    variants: dict[str, pd.DataFrame] = {}
    pivot = dict(index="summarizer", columns="evaluator", values="delta", aggfunc="mean")
    variants["released notebook (mean of per-summary deltas)"] = deltas.pivot_table(**pivot)
    for domain in ("conversation", "news"):
        variants[f"{domain} summaries only"] = deltas[deltas["domain"] == domain].pivot_table(**pivot)
    for topic, g in deltas.groupby("topic"):
        variants[f"one topic only: {topic}"] = g.pivot_table(**pivot)
    auto = labels[labels["evaluator"].isin(TABLE4_EVALUATORS)]
    human = labels[labels["evaluator"] == "human"][["record", "insight_id", "score"]]
    pooled = auto.merge(human, on=["record", "insight_id"], suffixes=("", "_human"))
    pooled = pooled.assign(delta=pooled["score"] - pooled["score_human"])
    variants["pooled over insights (micro)"] = pooled.pivot_table(**pivot)
    variants["without full-context summaries"] = deltas[deltas["setting"] != "full"].pivot_table(**pivot)
    rows = []
    for name, table in variants.items():
        hits, mad = score(table)
        rows.append({"variant": name, "cells_matching": hits, "cells": len(paper), "mean_abs_diff": mad})
    return pd.DataFrame(rows)
