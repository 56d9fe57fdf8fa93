"""The SummHay chapter in the synthesis: Full (the haystack, as far as the context budget holds it: the paper's 15k
tokens, or the window when smaller) against the Oracle
and the best real retriever (:data:`FAMILY`).

Our "Full" is not the paper's (the whole haystack, §5.1): it is the haystack's first documents in stored order up
to the same budget as every retriever. Every comparison says what it read (:func:`full_context`, from the run's
``live_summaries.csv`` and ``shape.csv``), and prose names the arm by :func:`full_label`.

Reads the chapter's ``live_results.csv`` (the live retrieval settings of our summarizer, micro-averaged over
insights) and, where the run saved it, ``live_per_summary.csv`` (one row per summary): each comparison is then
the mean over subtopics of the paired Joint difference, with a paired bootstrap interval over subtopics. Both are
read for the judge that decides in that run (the lexical judge in runs that do not say). Older runs without the
per-summary table give the micro-averaged difference without an interval.
"""

from __future__ import annotations

import pandas as pd

from lcrag.papers.summhay.live_claims import setting_floor
from lcrag.papers.summhay.live_runs import paired_over_subtopics
from lcrag.synthesis import Family, bar_panel, comparison, load_table
from lcrag.text import count

NAME = "summhay"
SCORES = ("coverage", "citation", "joint")
#: The scores compared, in order: the paper's Joint (the headline), then Coverage alone, which a summarizer that
#: never cites (Joint 0 whatever it covers) can still be compared on.
PAIRED = ("joint", "coverage")


def _deciding(df: pd.DataFrame) -> pd.Series:
    """The rows of the judge that decides in its run (``decides``; the lexical judge where a run does not say)."""
    said = df["decides"] if "decides" in df else pd.Series(pd.NA, index=df.index, dtype="object")
    return said.where(said.notna(), df["judge"] == "lexical").astype(bool)


def _floor_tie(real: pd.DataFrame, metric: str) -> str:
    """When every real retriever's pooled ``metric`` is at the chapter's floor (:func:`setting_floor`), why no
    retriever is named best: the one compared is the highest of a floor tie (its pooled scores, in points as the
    floor rule's reasons); else ""."""
    if not all(setting_floor({r: 100 * x}) for r, x in real[metric].items()):
        return ""
    scores = ", ".join(f"{r} {100 * x:.1f}" for r, x in real[metric].items())
    return (f"every retriever's pooled {metric} is at the floor ({scores} points): none can be called best, and the one "
            "compared is merely the highest of scores that all sit at the floor")


def settings(runs: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    """Live retrieval settings of our summarizer (the deciding judge): coverage, citation, joint on a 0-1 scale."""
    cols = ["judge", "kind", "setting", "coverage", "citation", "joint", "n_insights", "summaries"]
    df = load_table(runs, NAME, "live_results", cols, problems)
    df = df[(df["kind"] == "retrieval") & _deciding(df)].copy()
    for c in SCORES:
        df[c] = df[c] / 100
    if "n_documents" not in df:  # older runs: how many documents a setting held is not known
        df["n_documents"] = float("nan")
    return df[["model", "setting", "summaries", "n_insights", "coverage", "citation", "joint", "n_documents",
               "source"]]


def per_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per-summary scores of the live retrieval settings (0-1), deciding judge; empty for runs without the table
    (not a problem: the comparison then has no interval)."""
    cols = ["judge", "kind", "setting", "haystack", "subtopic_id", *PAIRED]
    df = load_table(runs, NAME, "live_per_summary", cols, [])
    if df.empty:
        return pd.DataFrame(columns=["model", "setting", "haystack", "subtopic_id", *PAIRED])
    df = df[(df["kind"] == "retrieval") & _deciding(df)].copy()
    for c in PAIRED:
        df[c] = df[c] / 100
    return df[["model", "setting", "haystack", "subtopic_id", *PAIRED]]


def full_reads(runs: pd.DataFrame) -> pd.DataFrame:
    """What the live Full arm read, per model: its context tokens and documents (means over its summaries), the
    documents of the haystacks it was cut from (``shape.csv``) and whether every summary read its whole haystack
    (no document cut, every document in). Empty for runs without these tables (their comparisons then say less)."""
    cols = ["model", "context_tokens", "n_documents", "haystack_documents", "whole"]
    summ = load_table(runs, NAME, "live_summaries", ["setting", "haystack", "n_documents", "context_tokens",
                                                     "last_truncated"], [])
    shape = load_table(runs, NAME, "shape", ["haystack", "documents"], [])
    summ = summ[summ["setting"] == "full"]
    if summ.empty:
        return pd.DataFrame(columns=cols)
    docs = shape[["model", "haystack", "documents"]].drop_duplicates(["model", "haystack"])
    full = summ.drop(columns="documents", errors="ignore").merge(  # (the summaries' own: the documents read)
        docs.rename(columns={"documents": "haystack_documents"}), on=["model", "haystack"], how="left")
    full["whole"] = (full["n_documents"] >= full["haystack_documents"]) & ~full["last_truncated"].astype(bool)
    out = full.groupby("model", sort=False).agg(context_tokens=("context_tokens", "mean"),
                                                n_documents=("n_documents", "mean"),
                                                haystack_documents=("haystack_documents", "mean"),
                                                whole=("whole", "all"))
    return out.reset_index()[cols]


#: How :func:`full_context` ends for a Full arm that read every haystack whole.
WHOLE = "(the whole haystack)"


def full_context(tokens: float = float("nan"), documents: float = float("nan"),
                 haystack_documents: float = float("nan"), whole: bool = False) -> str:
    """A comparison's ``long_context`` for Full: ``15,000 tokens, 15.7 of 100 documents (the first in stored order,
    as many as fit the context budget)`` (means over its summaries; what is unknown left out), or ``100 of 100
    documents (the whole haystack)``; "" when nothing is known."""
    if pd.isna(documents):
        return ""
    of = "" if pd.isna(haystack_documents) else f" of {haystack_documents:.0f}"
    counted = f"{documents:.1f}".removesuffix(".0") + of + " documents"
    if whole:
        return f"{counted} {WHOLE}"
    size = "" if pd.isna(tokens) else f"{tokens:,.0f} tokens, "
    return f"{size}{counted} (the first in stored order, as many as fit the context budget)"


def full_label(row) -> str:
    """Full as prose names it in a comparison (:attr:`lcrag.synthesis.Family.long_label`): what it read, from the
    row's ``long_context`` (:func:`full_context`): ``Full (15,000 tokens, 15.7 of 100 documents, the first in stored
    order: this run has no whole-haystack arm)``; ``Full (the whole haystack, 100 documents)``; for a run whose
    tables do not say, the documents that fit the context budget."""
    context = row.get("long_context", "")
    context = context if isinstance(context, str) else ""
    if not context:
        return f"{row['long_arm']} (the haystack's first documents in stored order, as many as fit the context budget)"
    if context.endswith(WHOLE):
        return f"{row['long_arm']} (the whole haystack, {context.split(' of ')[0]} documents)"
    return f"{row['long_arm']} ({context.split(' (')[0]}, the first in stored order: this run has no whole-haystack arm)"


def comparisons(settings: pd.DataFrame, per: pd.DataFrame | None = None, n_boot: int = 2000,
                seed: int = 0, reads: pd.DataFrame | None = None) -> list[dict]:
    """Full vs Oracle (the retrieval ceiling) and Full vs the best real retriever, on the Joint score (the
    headline) and then on Coverage alone (:data:`PAIRED`; the best retriever by the score compared): paired over
    subtopics with an interval where ``per`` (:func:`per_summary`) has them, else the pooled micro-averages
    without one. ``reads`` (:func:`full_reads`) says what Full read (``long_context``: :func:`full_context`); without
    it, only its documents."""
    per = per if per is not None else pd.DataFrame(columns=["model", "setting", "haystack", "subtopic_id", *PAIRED])
    reads = (reads if reads is not None else pd.DataFrame(columns=["model"])).set_index("model")
    out = []
    for model, g in settings.groupby("model", sort=False):
        s = g.set_index("setting")
        if "full" not in s.index:
            continue
        real = s.drop(index=[x for x in ("full", "oracle") if x in s.index])
        read = reads.loc[model] if model in reads.index else {}
        context = full_context(read.get("context_tokens", float("nan")),
                               read.get("n_documents", s.loc["full"].get("n_documents", float("nan"))),
                               read.get("haystack_documents", float("nan")), bool(read.get("whole", False)))
        for metric in PAIRED:
            name = metric.capitalize()
            others = [("oracle", "Oracle")] if "oracle" in s.index else []
            tie = ""
            if len(real):
                best = real[metric].idxmax()
                tie = _floor_tie(real, metric)
                others.append((best, f"{best} ({'every retriever at the floor' if tie else 'best retriever'})"))
            for setting, label in others:
                paired = (paired_over_subtopics(per[per["model"] == model], metric, "full", setting, n_boot, seed)
                          if metric in per else None)
                insights = int(s.loc["full", "n_insights"])
                if paired is not None:
                    full_v, other_v, diff, lo, hi, n = paired
                    units, values = "subtopics", ""  # the means over the subtopics paired, as the interval
                    evidence = (f"{n} subtopics, {name} per summary, paired bootstrap over subtopics; values: means "
                                f"over subtopics, not the live settings' table's micro-averages over {insights} insights")
                else:
                    full_v, other_v = float(s.loc["full", metric]), float(s.loc[setting, metric])
                    diff, lo, hi, n = full_v - other_v, float("nan"), float("nan"), int(s.loc["full", "summaries"])
                    units, values = "summaries", f"micro-averages over {insights} insights"
                    evidence = f"{count(n, 'summaries')}, {insights} insights; micro-averages only, no interval"
                if tie and setting != "oracle":
                    evidence = f"{tie}; {evidence}"
                out.append(comparison(
                    NAME, model, f"Full vs {label} ({name})", "Full", full_v, setting, other_v, diff, lo, hi, n,
                    units, evidence, s.loc["full", "source"], values=values,
                    long_context=context,
                    floor=setting_floor({  # the chapter's rule, on the pooled scores (0-100) as for its claims
                        f"Full (pooled {metric})": 100 * s.loc["full", metric],
                        f"{setting} (pooled {metric})": 100 * s.loc[setting, metric]})))  # fmt: skip
    return out


FAMILY = Family(
    name=NAME,
    title="Summary of a Haystack: Full cut to the retrievers' budget vs Oracle vs retrievers",
    tables=lambda runs, problems, n_boot, seed: {NAME: settings(runs, problems),
                                                 f"{NAME}_per_summary": per_summary(runs),
                                                 f"{NAME}_full": full_reads(runs)},
    compare=lambda runs, tables, problems, n_boot, seed: comparisons(tables[NAME], tables[f"{NAME}_per_summary"],
                                                                     n_boot, seed, tables.get(f"{NAME}_full")),
    versus="Full, cut to the retrievers' budget, against retrieval",
    long_label=full_label,
    headline=lambda arm: arm != "oracle",  # the best real retriever (by Joint, the first), not the Oracle ceiling
    headline_rule="Full against the best real retriever of each model, on Joint (by pooled Joint; not the Oracle "
                  "ceiling): the retriever may differ between models; the same on Coverage alone is in each "
                  "model's table, and where Joint is at the floor (a summarizer that cites no document), the "
                  "answer gives Coverage alone beside it when Coverage is above the floor",
    headline_name="best retriever",
    at_floor=lambda r: r["comparison"].endswith("(Coverage)") and r["other_arm"] != "oracle",
    at_floor_name="on Coverage alone",
    detail_index=("model", "setting"),
    plot=bar_panel(NAME, "setting", ("coverage", "joint"), "summhay: Coverage, Joint (micro-averages, no interval)"),
)
