"""Live runs of a summarizer: its summaries of the live contexts, judged (lexical or LLM judge) and scored with the
released metrics (:func:`lcrag.metrics.summhay.score_insights`), pooled per setting, the position sensitivity, and
:func:`oracle_citation_ceilings` (claim C18's bound)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from lcrag.judges.default import judge_label
from lcrag.judges.insight import judge_prompt, parse_judgment, run_judge
from lcrag.metrics.summhay import (
    NONE,
    citation_prf,
    extract_citations,
    micro_average,
    score_insights,
    split_bullets,
    words_per_bullet,
)
from lcrag.papers.summhay.dataset_shape import gold_documents
from lcrag.papers.summhay.live_contexts import token_limited
from lcrag.papers.summhay.retrievers import oracle_scores, ranked
from lcrag.stats import bootstrap_diff


def summarize(model, contexts: pd.DataFrame, max_tokens: int = 400) -> pd.DataFrame:
    """The model's summary for every context (``model.map``; temperature 0, ``context_policy="error"``: a prompt
    that does not fit raises rather than being cut silently). Adds summary, bullets, prompt_tokens,
    completion_tokens, finish_reason, latency_s, source."""
    answers = model.map(
        "ask", [{"prompt": p, "max_tokens": max_tokens, "temperature": 0.0} for p in contexts["prompt"]]
    )
    out = contexts.copy()
    out["summary"] = [a.text for a in answers]
    out["bullets"] = [split_bullets(a.text) for a in answers]
    for col in ("prompt_tokens", "completion_tokens", "finish_reason", "latency_s", "source"):
        out[col] = [getattr(a, col) for a in answers]
    return out


def lexical_judgments(insights: Sequence[tuple[str, str]], bullets: Sequence[str], thresholds) -> list[dict]:
    """Judgments of the deterministic lexical judge (:mod:`lcrag.judges.similarity`) for ``(insight_id, text)``
    pairs against one summary: dicts with insight_id, coverage, bullet_id (1-based or "NA")."""
    from lcrag.judges.similarity import judge, lexical_similarity

    if not bullets:
        return [{"insight_id": i, "coverage": NONE, "bullet_id": "NA"} for i, _ in insights]
    verdicts = judge(lexical_similarity([t for _, t in insights], bullets), thresholds)
    return [
        {"insight_id": i, "coverage": lab, "bullet_id": "NA" if k is None else k + 1}
        for (i, _), (lab, k) in zip(insights, verdicts, strict=True)
    ]


def llm_judgments(
    model, insights: Sequence[tuple[str, str]], bullets: Sequence[str], max_tokens: int = 48
) -> list[dict]:
    """Judgments of our LLM judge (the released prompt on ``model``), parsed by
    :func:`~lcrag.judges.insight.parse_judgment`."""
    if not bullets:
        return [
            {"insight_id": i, "coverage": NONE, "bullet_id": "NA", "parse": "empty summary"}
            for i, _ in insights
        ]
    answers = run_judge(model, [judge_prompt(t, bullets) for _, t in insights], max_tokens)
    return [{"insight_id": i, **parse_judgment(a.text)} for (i, _), a in zip(insights, answers, strict=True)]


def score_live(
    summaries: pd.DataFrame, haystacks: Mapping, thresholds=None, judge_model=None
) -> pd.DataFrame:
    """Judge every live summary and score it with the released metrics: one row per (summary, insight).

    The judge is the lexical one with ``thresholds`` (the default evaluator) or, given ``judge_model``, our LLM
    judge. Columns: haystack, subtopic_id, setting, kind, judge, then
    :func:`~lcrag.metrics.summhay.score_insights`'s columns."""
    if (thresholds is None) == (judge_model is None):
        raise ValueError("give exactly one judge: lexical thresholds or a judge model")
    frames = []
    for s in summaries.itertuples():
        h = haystacks[s.haystack]
        ins = h.insights[h.insights["subtopic_id"] == s.subtopic_id]
        pairs = list(zip(ins["insight_id"], ins["text"], strict=True))
        js = (
            lexical_judgments(pairs, s.bullets, thresholds)
            if judge_model is None
            else llm_judgments(judge_model, pairs, s.bullets)
        )
        sc = score_insights(s.bullets, js, gold_documents(h.documents), link_policy="zero")
        frames.append(
            sc.assign(
                haystack=s.haystack,
                subtopic_id=s.subtopic_id,
                setting=s.setting,
                kind=s.kind,
                judge="lexical" if judge_model is None else judge_label(judge_model.spec, style="evaluator"),
            )
        )
    front = ["haystack", "subtopic_id", "setting", "kind", "judge"]
    out = pd.concat(frames, ignore_index=True)
    return out[front + [c for c in out.columns if c not in front]]


def live_judge_name(evaluator: str) -> str:
    """The live table's name of a judge of the evaluator study: ``lexical`` for ``lexical-recall``, an LLM judge's
    ``llm:<model>`` as it is."""
    return "lexical" if evaluator == "lexical-recall" else evaluator


def live_table(scores: pd.DataFrame, summaries: pd.DataFrame, decides: str = "lexical") -> pd.DataFrame:
    """Coverage, citation, joint, precision, recall (0-100, micro-averaged over insights) per judge and setting,
    with summaries, words per bullet, bullets and context documents (means over summaries); ``decides`` marks the
    rows of the judge whose scores the claims and the synthesis read."""
    t = micro_average(scores, ["judge", "kind", "setting"])
    t.insert(1, "decides", t["judge"] == decides)
    for c in ("coverage", "citation", "joint", "precision", "recall"):
        t[c] = 100 * t[c]
    per = summaries.assign(
        words_per_bullet=summaries["bullets"].map(words_per_bullet), n_bullets=summaries["bullets"].map(len)
    )
    agg = (
        per.groupby("setting")
        .agg(
            summaries=("summary", "size"),
            n_bullets=("n_bullets", "mean"),
            words_per_bullet=("words_per_bullet", "mean"),
            n_documents=("n_documents", "mean"),
            relevant_in_context=("relevant_in_context", "mean"),
        )
        .reset_index()
    )
    return t.merge(agg, on="setting", how="left")


def lexical_thresholds(thresholds: pd.DataFrame):
    """The lexical judge's fitted thresholds (the ``lexical-recall`` row of the judges' threshold table)."""
    from lcrag.judges.similarity import Thresholds

    row = thresholds.set_index("evaluator").loc["lexical-recall"]
    return Thresholds(row["partial"], row["full"])


def score_decided(summaries: pd.DataFrame, haystacks: Mapping, lexical, decider: str,
                  judge_models: Mapping) -> pd.DataFrame:
    """:func:`score_live` by the lexical judge (``lexical``: its :func:`lexical_thresholds`) and, when the judge
    that decides (``decider``) is one of our LLM judges (``judge_models``: evaluator name to model), by that
    judge too: the rows of both, the deciding judge's named by :func:`live_judge_name`."""
    scores = score_live(summaries, haystacks, thresholds=lexical)
    if decider != "lexical-recall":
        scores = pd.concat([scores, score_live(summaries, haystacks, judge_model=judge_models[decider])])
    return scores


def per_summary(scores: pd.DataFrame, decides: str = "lexical") -> pd.DataFrame:
    """One row per judge and live summary (haystack, subtopic, setting): its coverage, citation and joint (0-100,
    means over the subtopic's insights, as :func:`live_table` pools them), ``n_insights``, and ``decides`` as in
    :func:`live_table`. The settings of one subtopic are paired: the synthesis's intervals resample subtopics."""
    keys = ["judge", "kind", "setting", "haystack", "subtopic_id"]
    t = micro_average(scores, keys)[[*keys, "coverage", "citation", "joint", "n_insights"]]
    for c in ("coverage", "citation", "joint"):
        t[c] = 100 * t[c]
    t.insert(1, "decides", t["judge"] == decides)
    return t


def live_reading(summaries: pd.DataFrame, table: pd.DataFrame, decides: str = "lexical") -> str:
    """The live table in words, from the run: how many summaries cite any document, Coverage's range over the
    retrieval settings, and, where every setting's Citation is at the floor (below 5 points), why Joint cannot
    compare them."""
    from lcrag.book.verdicts import FLOOR_SCORE

    citing = sum(any(extract_citations(b) for b in bullets) for bullets in summaries["bullets"])
    t = table[(table["judge"] == decides) & (table["kind"] == "retrieval")].set_index("setting")
    if t.empty:
        return f"{citing} of {len(summaries)} summaries cite at least one document (a `[k]` reference)."
    low, high = t["coverage"].idxmin(), t["coverage"].idxmax()
    text = (f"{citing} of {len(summaries)} summaries cite at least one document (a `[k]` reference). Over the "
            f"retrieval settings, Coverage runs from {t.loc[low, 'coverage']:.1f} ({low}) to "
            f"{t.loc[high, 'coverage']:.1f} ({high}) and Joint reaches {t['joint'].max():.1f} at most.")
    if t["citation"].max() < 100 * FLOOR_SCORE:
        text += (f" Citation stays below {100 * FLOOR_SCORE:.0f} points in every setting (a covered insight scores "
                 "Citation only when its bullet cites the insight's own documents), so Joint is at the floor whatever "
                 "the context let the model cover: the claims on Joint and Citation are not testable with this "
                 "model, and the synthesis compares the settings on Coverage alone beside Joint.")
    return text


def paired_over_subtopics(per: pd.DataFrame, metric: str, a: str, b: str, n_boot: int = 2000,
                          seed: int = 0) -> tuple[float, float, float, float, float, int] | None:
    """``(mean a, mean b, mean a − b, lo, hi, subtopics)`` of ``metric`` (scores on the 0-1 scale) over the
    subtopics both settings summarized, one summary per subtopic and setting in ``per`` (rows of
    :func:`per_summary`'s shape, one model and judge), with the paired bootstrap interval; None under 2."""
    wide = per.pivot_table(index=["haystack", "subtopic_id"], columns="setting", values=metric)
    if a not in wide or b not in wide:
        return None
    both = wide[[a, b]].dropna()
    if len(both) < 2:
        return None
    diff, lo, hi = bootstrap_diff(both[a], both[b], n_boot=n_boot, seed=seed)
    return float(both[a].mean()), float(both[b].mean()), diff, lo, hi, len(both)


def position_sensitivity(table: pd.DataFrame, judge: str = "lexical") -> pd.DataFrame:
    """Table 3 for our runs: Joint per order and, as :func:`~lcrag.papers.summhay.rescoring.position_table` has
    them, the ``sensitivity`` (the paper's: max |Joint(top or bottom) - Joint(random)|, random the stored order)
    and the ``sensitivity_with_middle`` (the Middle order too)."""
    pos = table[(table["kind"] == "position") & (table["judge"] == judge)].set_index("setting")["joint"]
    row = {k.removeprefix("pos-"): v for k, v in pos.items()}
    if "random" in row:
        gap = {k: abs(v - row["random"]) for k, v in row.items() if k != "random"}
        paper = [x for k, x in gap.items() if k in ("top", "bottom")]
        row["sensitivity"] = max(paper) if paper else float("nan")
        row["sensitivity_with_middle"] = max(gap.values()) if gap else float("nan")
    return pd.DataFrame([row])


def oracle_citation_ceiling(haystacks: Mapping, tokenizer, budget: int) -> pd.DataFrame:
    """Claim C18's bound: the best citation F1 a summary can reach from the Oracle context of ``budget`` tokens.

    For each subtopic, the Oracle context (:func:`~lcrag.papers.summhay.live_contexts.token_limited` over the
    oracle ranking); an ideal summary cites, for each insight, exactly its gold documents present in the context
    (precision 1, recall = present / all gold). One row per haystack and the pooled mean over insights
    (``haystack = "all"``), on the 0-1 scale; an insight with no gold document in context scores 0."""
    rows = []
    for name, h in haystacks.items():
        gold = gold_documents(h.documents)
        texts = list(h.documents["text"])
        for sid in h.subtopics["subtopic_id"]:
            ctx = {i + 1 for _, i in token_limited(texts, ranked(oracle_scores(h, sid)), budget, tokenizer)}
            for iid in h.insights.loc[h.insights["subtopic_id"] == sid, "insight_id"]:
                g = gold.get(iid, set())
                _, r, f1 = citation_prf(g & ctx, g)  # precision 1 (0 when none of g is in context)
                rows.append({"haystack": name, "subtopic_id": sid, "insight_id": iid, "recall": r, "f1": f1})
    per = pd.DataFrame(rows)
    out = per.groupby("haystack", sort=False).agg(
        subtopics=("subtopic_id", "nunique"),
        insights=("f1", "size"),
        ceiling_f1=("f1", "mean"),
        full_recall_share=("recall", lambda x: float((x == 1).mean())),
    )
    out.loc["all"] = [out["subtopics"].sum(), len(per), per["f1"].mean(), float((per["recall"] == 1).mean())]
    recall = per.groupby("haystack", sort=False)["recall"].mean()
    out["ceiling_recall"] = [*recall, per["recall"].mean()]  # the mean citation recall (precision is 1)
    out = out.reset_index().assign(budget_tokens=budget, tokenizer=getattr(tokenizer, "name", ""))
    return out.astype({"subtopics": int, "insights": int})


def oracle_citation_ceilings(haystacks: Mapping, tokenizer, budgets: Sequence[int],
                             paper_tokenizer=None) -> pd.DataFrame:
    """:func:`oracle_citation_ceiling` at each budget, in order: the paper's (the first) counted in
    ``paper_tokenizer`` when given (:func:`lcrag.papers.summhay.dataset_shape.paper_tokenizer`), the run's own in the
    model's ``tokenizer``; one set of rows per distinct (budget, tokenizer), so that claim C18 reads one value."""
    tokenizers = [paper_tokenizer or tokenizer, *[tokenizer] * (len(budgets) - 1)]
    runs = {(b, getattr(t, "name", "")): (b, t) for b, t in zip(budgets, tokenizers, strict=True)}
    return pd.concat([oracle_citation_ceiling(haystacks, t, b) for b, t in runs.values()])


def ceiling_reading(ceilings: pd.DataFrame, file: str = "oracle_citation_ceiling.csv") -> str:
    """What :func:`oracle_citation_ceilings` computed, in words: over how many subtopics and insights, the pooled
    ceiling (F1 and mean recall) at the paper's budget and tokenizer (the first pooled row) and, when the run's own
    budget or tokenizer differs, at that one too (the second), and where the rows per haystack are (``file``, linked
    under Downloads)."""
    from lcrag.papers.summhay.dataset_shape import PAPER_TOKENIZER
    from lcrag.text import count

    pooled = ceilings[ceilings["haystack"] == "all"]
    paper = pooled.iloc[0]

    def said(row) -> str:
        return (f"{row['ceiling_f1']:.3f} as citation F1 (precision 1), {row['ceiling_recall']:.3f} as mean citation "
                f"recall, with {100 * row['full_recall_share']:.1f} % of the insights complete")

    whose = "the released code's" if paper["tokenizer"] == PAPER_TOKENIZER else "not the released code's but"
    text = (f"The ceiling is computed on all {int(paper['subtopics'])} subtopics of the "
            f"{count(ceilings['haystack'].nunique() - 1, 'haystacks')} ({int(paper['insights'])} insights). At the paper's "
            f"{int(paper['budget_tokens'])} tokens, counted in {whose} `{paper['tokenizer']}`: {said(paper)}")
    if len(pooled) > 1:
        row = pooled.iloc[1]
        text += (f"; in our live contexts, {int(row['budget_tokens'])} tokens of `{row['tokenizer']}` (the second "
                 f"row): {said(row)}")
    else:
        text += ". Our live contexts have the same budget and tokenizer, so there is no second row"
    return text + f". The rows per haystack are in `{file}` (under Downloads, at the end of the page)."


def pick_subtopics(haystacks: Mapping, names: Sequence[str], per_haystack: int) -> list[tuple[str, str]]:
    """``(haystack, subtopic_id)`` pairs: the first ``per_haystack`` subtopics of each named haystack."""
    return [(n, s) for n in names for s in list(haystacks[n].subtopics["subtopic_id"])[:per_haystack]]


def synthetic_run(model, haystack, n_subtopics: int, budget: int, max_tokens: int, thresholds,
                  seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Our synthetic haystack (:mod:`lcrag.papers.summhay.synthetic`) through the live pipeline: the random and
    oracle retrievers on its first ``n_subtopics`` subtopics, summaries, scores; returns summaries, scores and the
    :func:`live_table`."""
    from lcrag.papers.summhay.live_contexts import live_contexts

    hs = {"synthetic": haystack}
    contexts = live_contexts(hs, pick_subtopics(hs, ["synthetic"], n_subtopics), model.tokenizer, budget,
                             retrievers=["random", "oracle"], orders=[], seed=seed)
    summaries = summarize(model, contexts, max_tokens)
    scores = score_live(summaries, hs, thresholds=thresholds)
    return summaries, scores, live_table(scores, summaries)
