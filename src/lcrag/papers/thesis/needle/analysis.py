"""What the answers show: found or not under each scorer and how the two scorers agree, the depth profile and the
heatmap table, full haystack vs RAG (rescued, lost), and the thesis's explanation (how common the needle's words
are in the essays, and how the question ranks the needle sentence among the haystack's).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from lcrag.models.registry import title_of
from lcrag.papers.thesis.needle.needles import Needle
from lcrag.retrieval import BM25Retriever, thesis_tokenize
from lcrag.stats import cohen_kappa
from lcrag.text import join_words
from lcrag.text.chunking import split_sentences
from lcrag.text.stopwords import english_content_words

FOUND_RECALL = 0.5  # an answer "finds" the needle when it holds at least half of the needle's answer words
FOUND_JUDGE = 7  # Kamradt's rubric: 7 = "aligns with the reference but has minor omissions"


def add_found(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    out["found"] = out["recall"] >= FOUND_RECALL
    if "judge_score" in out:
        out["judge_found"] = out["judge_score"].astype("float") >= FOUND_JUDGE
    return out


def scorer_agreement(df: pd.DataFrame, by: Sequence[str] = ("model", "needle")) -> pd.DataFrame:
    """How the judge and the deterministic recall agree, per group: found rates, agreement, kappa, Spearman r of
    the judge's written score, and of its expected rating (``judge_expected``, when the judge gave logprobs) the
    Spearman r and the AUC: how often a found answer (recall) gets a higher expected rating than a missed one."""
    rows = []
    for key, g in df.groupby(list(by), sort=False):
        g = g[g["judge_score"].notna()]
        if g.empty:
            continue
        expected = g["judge_expected"] if "judge_expected" in g else pd.Series(np.nan, index=g.index)
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)), "n": len(g),
                     "found_recall": g["found"].mean(), "found_judge": g["judge_found"].mean(),
                     "agreement": (g["found"] == g["judge_found"]).mean(),
                     "kappa": round(cohen_kappa(g["found"], g["judge_found"]), 12) + 0.0,  # no "-0.0"
                     "spearman": _spearman(g["recall"],
                                                                                               g["judge_score"]),
                     "judge_mean": g["judge_score"].mean(), "recall_mean": g["recall"].mean(),
                     "wordy_correct_low": int((g["found"] & (g["judge_score"] < FOUND_JUDGE)).sum()),
                     "expected_mean": expected.mean(), "spearman_expected": _spearman(g["recall"], expected),
                     "auc_expected": _auc(g["found"], expected)})
    return pd.DataFrame(rows)


def judge_score_sentence(scored: pd.DataFrame, floor_share: float = 0.9) -> str:
    """Whether the judge's written scores vary, overall and per model (``model``), from the scores it gave: its most
    common score, how many answers got it and how many it counts as found; per model, *at the floor* of
    :doc:`verdicts` where every answer got one score, *barely varying* where ``floor_share`` or more did."""
    s = scored.dropna(subset=["judge_score"])
    if s.empty:
        return "The judge gave no score."
    top = s["judge_score"].value_counts()
    score, k, n = top.index[0], int(top.iloc[0]), len(s)
    found = int((s["judge_score"] >= FOUND_JUDGE).sum())
    head = (f"The judge gave {k} of the {n} answers it scored the same score, {score:g}, and counted {found} as "
            f"found (a score of {FOUND_JUDGE} or more)")
    by = s.groupby("model", sort=False)["judge_score"] if "model" in s.columns else [("its answers", s["judge_score"])]
    floor, barely, varied = [], [], []
    for model, g in by:
        c = g.value_counts()
        name, kk, nn = title_of(str(model)), int(c.iloc[0]), len(g)
        if kk == nn:
            floor.append(f"{name} ({nn} a {c.index[0]:g})")
        elif kk / nn >= floor_share:
            barely.append(f"{name} ({kk} of {nn} a {c.index[0]:g})")
        else:
            varied.append(name)
    if not floor and not barely:
        return head + "; its scores vary with the answers, and the agreement table above says how far they follow them."
    parts = [f"{what} for {join_words(names)}" for what, names in (
        ("at the floor (one score for every answer)", floor), ("barely varying (the floor would be all)", barely),
        ("varying", varied)) if names]
    return (head + ". Per model: " + "; ".join(parts) + ". The claims below use the deterministic scorer (the "
            "expected rating is a reading of the judge that Kamradt's harness does not make).")


def _spearman(a: pd.Series, b: pd.Series) -> float:
    """Spearman's rho of the pairs where both are known; NaN (shown "—") when either side barely varies: fewer than
    two items differ from its most common value (one item off a tie of 41 gives a rho of ±1 that says nothing).
    scipy's, whose last digit :func:`lcrag.stats.spearman` (for resamples) does not always match."""
    from scipy.stats import spearmanr

    ok = a.notna() & b.notna()
    if any(len(x) - x.value_counts().iloc[0] < 2 if len(x) else True for x in (a[ok], b[ok])):
        return float("nan")
    return float(spearmanr(a[ok], b[ok]).statistic)


def _auc(found: pd.Series, score: pd.Series) -> float:
    """The probability that a found answer scores higher than a missed one (ties count half); NaN without both."""
    from sklearn.metrics import roc_auc_score

    ok = score.notna()
    if found[ok].nunique() < 2:
        return float("nan")
    return float(roc_auc_score(found[ok].astype(bool), score[ok]))


def answer_cap_note(scored: pd.DataFrame, answer_tokens: int) -> str:
    """What the answer cap (``answer_tokens``) cut, from the full-haystack answers: per model and needle with a
    capped answer below recall 1, how many answers stopped at it, how many of those scored below 1 and, where all
    of them did, their highest recall, as one Markdown paragraph."""
    full = scored[scored["setting"] == "full"]
    capped = full[full["completion_tokens"] >= answer_tokens]
    head = f"**The answer cap.** With the whole haystack, answers stopped at the {answer_tokens}-token cap (`answer_tokens`)"
    if capped.empty:
        return f"**The answer cap.** No answer reached the {answer_tokens}-token cap (`answer_tokens`)."
    n = full.groupby(["model", "needle"], sort=False).size()
    groups = list(capped.groupby(["model", "needle"], sort=False))
    cut = [(m, nd, g) for (m, nd), g in groups if g["recall"].min() < 1]
    if not cut:
        return head + ", but each group's capped answers still reached recall 1: the cap cost no recall."

    def part(m: str, nd: str, g: pd.DataFrame) -> str:
        below = int((g["recall"] < 1).sum())
        most = f" (at most {g['recall'].max():.2f})" if below == len(g) else ""
        return f"{title_of(m)} ({nd}): {len(g)} of {n[(m, nd)]} capped, {below} below recall 1{most}"

    whole = [f"{title_of(m)} ({nd})" for m, nd, g in cut if len(g) == n[(m, nd)] and g["recall"].max() < 1]
    return (head + f" in these groups (model, needle): {'; '.join(part(*c) for c in cut)}" + ("" if len(cut) == len(groups) else
            "; in the other groups every capped answer still reached 1") + ". A capped answer's recall counts only "
            "the words written before the cap" + (f"; where every answer stopped there, {', '.join(whole)}, the mean recall "
                                        "measures the cap as much as the model (a longer cap needs new recordings)"
                                        if whole else "") +
            ". The verdicts read *found* (recall ≥ 0.5), which an answer cut short can still meet.")


def depth_profile(df: pd.DataFrame, value: str = "recall") -> pd.DataFrame:
    """Mean score per model, needle, setting and depth, averaged over lengths (the lost-in-the-middle view)."""
    return (df.groupby(["model", "needle", "setting", "depth"], sort=False)[value].mean()
            .reset_index().sort_values(["model", "needle", "setting", "depth"]))


def heatmap_table(scored: pd.DataFrame) -> pd.DataFrame:
    """The answers with a column ``length`` for the heatmaps' x axis: the context length of full-context answers
    ("1000", ...), then "RAG <length>" for the BM25 answers at that length (a column beside the heatmap); an
    ordered categorical, so the RAG columns come last."""
    df = scored.copy()
    rag = df["setting"] == "rag"
    df["length"] = df["context_tokens"].astype(int).astype(str).where(~rag, "RAG " + df["context_tokens"].astype(str))
    order = [str(n) for n in sorted(df.loc[~rag, "context_tokens"].unique())]
    order += [f"RAG {n}" for n in sorted(df.loc[rag, "context_tokens"].unique())]
    df["length"] = pd.Categorical(df["length"], categories=order, ordered=True)
    return df


def full_vs_rag(scored: pd.DataFrame) -> pd.DataFrame:
    """Per model and needle, over the cells asked both ways: share found with the full haystack, with the BM25
    chunks, share *rescued* by retrieval (missed in full, found with RAG) and *lost* (the reverse), and how often
    BM25 kept the needle."""
    keys = ["model", "needle", "context_tokens", "depth"]
    full = scored[scored["setting"] == "full"][[*keys, "found"]]
    rag = scored[scored["setting"] == "rag"][[*keys, "found", "needle_retrieved"]]
    p = full.merge(rag, on=keys, suffixes=("_full", "_rag"))
    p = p.assign(rescued=~p["found_full"] & p["found_rag"], lost=p["found_full"] & ~p["found_rag"])
    return (p.groupby(["model", "needle"], sort=False)
            .agg(cells=("found_full", "size"), full_found=("found_full", "mean"), rag_found=("found_rag", "mean"),
                 rescued=("rescued", "mean"), lost=("lost", "mean"), needle_retrieved=("needle_retrieved", "mean"))
            .reset_index())


def word_frequencies(haystack: str, needles: Sequence[Needle]) -> pd.DataFrame:
    """How often each word of each needle occurs in the haystack (the thesis's explanation: the simple needle's
    common words recur in the essays, the complex needle's technical terms do not). A needle's words are its
    lowercase word tokens without scikit-learn's English stop words
    (:func:`lcrag.text.stopwords.english_content_words`): function words such as "can", "one", "only" and "up"
    are frequent in any English text and say nothing about a needle's topic; "best" and "thing", which the thesis
    names among the simple needle's common words, are counted (the recall scorer leaves them out, as the question
    asks them)."""
    counts: dict[str, int] = {}
    words = thesis_tokenize(haystack)
    n = len(words)
    for w in words:
        for part in w.replace("-", " ").split():
            counts[part] = counts.get(part, 0) + 1
    rows = []
    for nd in needles:
        for w in english_content_words(nd.text):
            rows.append({"needle": nd.name, "word": w, "count": counts.get(w, 0),
                         "per_10k_words": round(1e4 * counts.get(w, 0) / n, 2)})
    return pd.DataFrame(rows)


def word_frequency_summary(freq: pd.DataFrame) -> pd.DataFrame:
    """Per needle (rows of :func:`word_frequencies`): its number of words, how many occur in the haystack at all,
    and the mean, median and largest frequency per 10,000 words (the median beside the mean: a few common words
    can carry a mean)."""
    return (freq.groupby("needle", sort=False)
            .agg(words=("word", "size"), in_haystack=("count", lambda c: int((c > 0).sum())),
                 mean_per_10k=("per_10k_words", "mean"), median_per_10k=("per_10k_words", "median"),
                 max_per_10k=("per_10k_words", "max")))


def needle_bm25_rank(haystack: str, needle: Needle) -> dict:
    """BM25-rank the needle sentence(s) among the haystack's sentences, the question as the query: rank 1 means
    the question points straight at the needle; ``competitors`` counts sentences scoring at least half the
    needle's score (distractors a reader, or a model, might latch on to)."""
    sentences = [s for s in split_sentences(haystack) if s.strip()]
    target = needle.sentences[0].strip()
    idx = next((i for i, s in enumerate(sentences) if target in s or s in target), None)
    if idx is None:
        raise ValueError(f"needle {needle.name!r} not found among the haystack's sentences")
    scores = BM25Retriever(sentences).scores(needle.question)
    rank = int((scores > scores[idx]).sum()) + 1
    return {"needle": needle.name, "sentences": len(sentences), "rank": rank,
            "rank_percentile": round(100 * (rank - 1) / len(sentences), 2),
            "competitors": int((scores >= scores[idx] / 2).sum()) - 1, "needle_score": float(scores[idx]),
            "best_other": float(np.delete(scores, idx).max()) if len(sentences) > 1 else 0.0}


def explanation_table(answers: pd.DataFrame, needles: Sequence[Needle], haystacks: dict) -> pd.DataFrame:
    """Per model, needle and length: the needle's BM25 rank among the haystack's sentences (depth 50) and the
    failure rate of the full-context answers, to relate the thesis's explanation to the failure cells."""
    full = answers[answers["setting"] == "full"]
    rows = []
    for (model, needle_name, length), g in full.groupby(["model", "needle", "context_tokens"], sort=False):
        nd = next(n for n in needles if n.name == needle_name)
        hay = haystacks.get((model, needle_name, length))
        if hay is None:
            continue
        rows.append({"model": model, "needle": needle_name, "context_tokens": length,
                     **{k: v for k, v in needle_bm25_rank(hay, nd).items() if k != "needle"},
                     "cells": len(g), "fails": int((~g["found"]).sum()), "fail_rate": 1 - g["found"].mean(),
                     "recall_mean": g["recall"].mean()})
    return pd.DataFrame(rows)


def explanation_relation(explain: pd.DataFrame) -> pd.DataFrame:
    """Per model and needle: the needle's mean BM25 rank, its mean number of competing sentences, its cells and
    misses over all lengths and their fail rate, and the Spearman correlation of fail rate with competitors over
    the lengths (None where either is constant)."""
    from scipy.stats import spearmanr

    rows = []
    for (model, needle), g in explain.groupby(["model", "needle"]):
        ok = g["fail_rate"].nunique() > 1 and g["competitors"].nunique() > 1
        rows.append({"model": model, "needle": needle, "mean_rank": g["rank"].mean(),
                     "mean_competitors": g["competitors"].mean(), "cells": int(g["cells"].sum()),
                     "fails": int(g["fails"].sum()), "fail_rate": g["fails"].sum() / g["cells"].sum(),
                     "spearman_fail_vs_competitors": spearmanr(g["competitors"], g["fail_rate"]).statistic
                     if ok else None})
    return pd.DataFrame(rows)


def explanation_reading(freq: pd.DataFrame, relation: pd.DataFrame) -> str:
    """What the data of section 7 say about the thesis's explanation (the simple needle is missed because its
    common words recur in the essays), as one Markdown paragraph generated from :func:`word_frequencies` and
    :func:`explanation_relation`: the explanation holds only if the simple needle's words are significantly the
    more frequent (one-sided Mann-Whitney over the words, p < 0.05), it has more BM25 competitors than the complex
    needle, and it fails significantly more often for most models (Fisher's exact test on each model's misses,
    one-sided, p < 0.05): a difference of point values is never read as a finding (book/verdicts.md). The words
    compare one pair of needles, and the paragraph says so."""
    if not {"simple", "complex"} <= set(freq["needle"]) & set(relation["needle"]):
        return "The explanation compares the two needles: run both (`needles`) to test it."
    words = word_frequency_summary(freq)
    by_needle = relation.groupby("needle")[["mean_rank", "mean_competitors"]].mean()
    fails = fail_tests(relation)
    more_fail = list(fails.loc[fails["p"] < ALPHA, "model"])
    reverse = list(fails.loc[fails["p_reverse"] < ALPHA, "model"])
    s, c = words.loc["simple"], words.loc["complex"]
    p_words = _words_more_frequent_p(freq)
    frequent = bool(p_words < ALPHA)  # NaN: False
    conditions = [  # (holds, what the data say when it holds, when it does not)
        (frequent, f"its words are significantly the more frequent ones (p = {p_words:.3f})",
         f"its words are not significantly more frequent than the complex needle's (p = {p_words:.3f})"),
        (by_needle.loc["simple", "mean_competitors"] > by_needle.loc["complex", "mean_competitors"],
         "it has more competitors than the complex needle", "it has no more competitors than the complex needle"),
        (len(more_fail) > len(fails) / 2, "it fails significantly more often for most models",
         "it fails significantly more often for no model" if not more_fail
         else f"it fails significantly more often for only {len(more_fail)} of {len(fails)} models")]

    def described(row: pd.Series) -> str:
        return (f"{row['mean_per_10k']:.2f} times per 10,000 essay words on average (median "
                f"{row['median_per_10k']:.2f}; {int(row['in_haystack'])} of {int(row['words'])} occur at all)")

    def misses(r: pd.Series) -> str:
        return (f"{title_of(r['model'])}: {int(r['simple_fails'])} of {int(r['simple_cells'])} cells missed against "
                f"{int(r['complex_fails'])} of {int(r['complex_cells'])}, p = {r['p']:.3f}")

    text = (f"Without English stop words (scikit-learn's list, which differs from the scorer's, and with the "
            f"question's words kept), the simple needle's {int(s['words'])} words occur {described(s)}; the "
            f"complex needle's {int(c['words'])} occur {described(c)}. A one-sided rank test "
            f"over the words (Mann-Whitney) gives p = {p_words:.3f} for the simple needle's being the more "
            f"frequent: {'significant' if frequent else 'not significant'} at 5 %"
            + ("" if frequent else ", so these words are not shown to be the more frequent, whatever their means "
               "and medians") + ". These are the words of one pair of needles, which differ in more than their "
            "words (length, topic, question): whichever way the words compare, one pair cannot show that word "
            "frequency is what makes a needle hard to find. BM25 ranks the needle sentence at a mean rank of "
            f"{by_needle.loc['simple', 'mean_rank']:.1f} (simple) and {by_needle.loc['complex', 'mean_rank']:.1f}"
            f" (complex), with {by_needle.loc['simple', 'mean_competitors']:.2f} and "
            f"{by_needle.loc['complex', 'mean_competitors']:.2f} competing sentences (each the mean of the models' "
            "means). Fisher's exact "
            "test (one-sided, on each model's full-haystack cells, all lengths and depths) finds the simple needle "
            f"failing significantly more often than the complex one (p < 0.05) for {len(more_fail)} of "
            f"{len(fails)} models ({'; '.join(misses(r) for _, r in fails.iterrows())})"
            + (f"; the reverse, the complex needle failing significantly more often (one-sided p < 0.05), holds "
               f"for {len(reverse)} ({', '.join(map(title_of, reverse))}), against what the explanation predicts" if reverse
               else "") + ".")
    held = [yes for holds, yes, _ in conditions if holds]
    failed = [no for holds, _, no in conditions if not holds]
    if not failed:
        return (text + " **Reading:** these data are consistent with the thesis's explanation, as far as one pair "
                "of needles can be.")
    return (text + " **Reading:** these data do not support the thesis's explanation, which needs the simple "
            "needle's words to be the frequent ones, to give it competitors and to make it fail more. "
            + (f"As it needs, {'; '.join(held)}; but " if held else "Here ") + "; ".join(failed) + ".")


#: The level of section 7's tests (one-sided).
ALPHA = 0.05


def fail_tests(relation: pd.DataFrame) -> pd.DataFrame:
    """Per model with both needles (rows of :func:`explanation_relation`): each needle's misses and cells, and the
    one-sided p-value of Fisher's exact test that the simple needle fails more often than the complex one
    (``p``), and that of the reverse, the complex needle failing more often (``p_reverse``)."""
    from scipy.stats import fisher_exact

    rows = []
    for model, g in relation.groupby("model", sort=False):
        by = g.set_index("needle")
        if not {"simple", "complex"} <= set(by.index):
            continue
        sf, sn, cf, cn = (int(by.loc[n, k]) for n in ("simple", "complex") for k in ("fails", "cells"))
        table = [[sf, sn - sf], [cf, cn - cf]]
        rows.append({"model": model, "simple_fails": sf, "simple_cells": sn, "complex_fails": cf,
                     "complex_cells": cn, "p": float(fisher_exact(table, alternative="greater").pvalue),
                     "p_reverse": float(fisher_exact(table, alternative="less").pvalue)})
    return pd.DataFrame(rows, columns=["model", "simple_fails", "simple_cells", "complex_fails", "complex_cells",
                                       "p", "p_reverse"])


def _words_more_frequent_p(freq: pd.DataFrame) -> float:
    """One-sided Mann-Whitney p-value that the simple needle's words are more frequent than the complex needle's
    (the words as the items; NaN when a needle has no words or all frequencies are equal)."""
    from scipy.stats import mannwhitneyu

    simple, complex_ = (freq.loc[freq["needle"] == n, "per_10k_words"] for n in ("simple", "complex"))
    if simple.empty or complex_.empty or pd.concat([simple, complex_]).nunique() < 2:
        return float("nan")
    return float(mannwhitneyu(simple, complex_, alternative="greater").pvalue)
