"""lcrag.synthesis.answer: the written answer follows the headlines, largest model first, and names what each
experiment compares, in its family's words."""

from __future__ import annotations

import pandas as pd
from synthesis_runs import GEMMA, TITLES, longrag_answers, thesis_tables, write_run

from lcrag import synthesis as S
from lcrag.papers.long2rag.comparison import FAMILY as LONG2RAG
from lcrag.papers.thesis.needle.comparison import FAMILY as NEEDLE
from lcrag.synthesis.answer import across_sizes, model_outcomes, written_answer

QWEN = "local/qwen2.5-coder-1.5b-instruct"


def _syn(rows: list[dict], families) -> S.Synthesis:
    """A synthesis of these comparison rows alone (no runs on disk)."""
    models = sorted({r["model"] for r in rows})
    tables = {f.model_rows: pd.DataFrame({"model": models, "source": "run"}) for f in families}
    return S.Synthesis(runs=pd.DataFrame(columns=list(S.RUN_COLUMNS)), tables=tables,
                       comparisons=pd.DataFrame(rows, columns=list(S.COMPARISON_COLUMNS)), families=list(families))


def _whole_vs(variant: str, diff: float, lo: float, hi: float) -> dict:
    return S.comparison("long2rag", QWEN, f"whole documents vs {variant} (KPR, lexical judge)", "whole", 0.2,
                        variant, 0.2 - diff, diff, lo, hi, 20, "questions", "paired bootstrap", "run")


def _needle(diff: float, lo: float, hi: float) -> dict:
    return S.comparison("needle", QWEN, "full haystack vs BM25 RAG (recall)", "Full", 0.9, "RAG", 0.9 - diff,
                        diff, lo, hi, 12, "cells", "paired bootstrap", "run")


def test_long2rag_is_worded_as_whole_against_truncated_documents_not_as_retrieval():
    """Long²RAG's other arm is the same documents truncated: its win is said in its family's words, in the
    model's paragraph and across sizes; the needle's, whose other arm is retrieval, keeps "retrieval"."""
    rows = [_needle(0.2, 0.1, 0.3), _whole_vs("trunc2048", 0.05, 0.01, 0.09), _whole_vs("trunc1024", 0.07, 0.02, 0.12),
            _whole_vs("trunc512", 0.159, 0.096, 0.237)]
    syn = _syn(rows, [NEEDLE, LONG2RAG])
    text = written_answer(syn)
    assert "long context beats retrieval in the needle-in-a-haystack test (Full − RAG +20.0 pp [+10.0, +30.0], 12 cells)" in text
    assert ("whole documents beat truncated ones in Long²RAG (whole − trunc2048 +5.0 pp [+1.0, +9.0], 20 questions; "
            "also a clear difference against trunc1024 and trunc512: whole − trunc1024 +7.0 pp [+2.0, +12.0], whole − trunc512 "
            "+15.9 pp [+9.6, +23.7])") in text
    assert "retrieval in Long²RAG" not in text and "retrieval in the needle-in-a-haystack test and Long²RAG" not in text
    assert across_sizes(model_outcomes(syn)).startswith(
        "Long context beats retrieval with an interval that excludes zero in the needle-in-a-haystack test (1.5B). Whole "
        "documents beat truncated ones with an interval that excludes zero in Long²RAG (1.5B).")


def test_a_headline_without_a_decision_names_the_harsher_cuts_that_decide():
    """The run of the book's page: only the harshest cut (trunc512) decides; the headline, read as claim C12 reads
    the cuts, has no clear difference, and the answer says against which cut whole documents do win."""
    rows = [_whole_vs("trunc2048", -0.024, -0.082, 0.055), _whole_vs("trunc1024", 0.072, -0.032, 0.159),
            _whole_vs("trunc512", 0.159, 0.096, 0.237)]
    text = written_answer(_syn(rows, [LONG2RAG]))
    assert ("- **Qwen2.5-Coder-1.5B-Instruct** (1.5B parameters): no clear difference in Long²RAG (whole − trunc2048 -2.4 pp [-8.2, "
            "+5.5], 20 questions; a clear difference only against trunc512: whole − trunc512 +15.9 pp [+9.6, +23.7]).") in text
    assert "beat" not in text.split("\n\n")[0]
    assert "no experiment has a difference whose interval excludes zero" in text


def test_every_family_declares_its_headline_rule_and_its_words():
    for f in S.families():
        assert f.headline_rule, f.name
        assert len(f.wins) == 2 and all(f.wins), f.name
    assert "retrieval" not in " ".join(LONG2RAG.wins) and "C12" in LONG2RAG.headline_rule
    rules = S.headline_rules(_syn([], S.families()))
    assert rules.count("\n- ") == len(S.families()) - 1 and "- Long²RAG: whole documents against" in rules


def _longrag(model: str, n: int, scope: str, long_context: str) -> dict:
    return S.comparison("longrag", model, "Full vs R&B (F1)", "Full", 0.125, "R&B", 0.196, -0.071, -0.139, -0.016, n,
                        "questions", "paired bootstrap", "run", long_context=long_context, scope=scope)


def test_the_headline_says_which_items_it_rests_on_and_where_the_long_arm_was_cut():
    """SmolLM2's LongRAG headline rests on 2WikiMQA alone (MuSiQue at the floor) with Full cut to its 8K window in a
    third of the questions: the answer, the overview and the model's table say so; the 1.5B's pools both datasets."""
    from lcrag.papers.longrag.comparison import FAMILY as LONGRAG

    smol = "local/smollm2-135m-instruct"
    rows = [_longrag(smol, 30, "2wikimqa only, musique left out at the floor", "cut to the window in 10 of 30 questions"),
            _longrag(QWEN, 60, "", "whole context")]
    syn = _syn(rows, [LONGRAG])
    said = ("30 questions of 2wikimqa only, musique left out at the floor; Full cut to the window in 10 of 30 "
            "questions")
    assert f"LongRAG (Full − R&B -7.1 pp [-13.9, -1.6], {said})" in written_answer(syn)
    assert "LongRAG (Full − R&B -7.1 pp [-13.9, -1.6], 60 questions)" in written_answer(syn)
    over = S.overview(syn)
    assert over.iloc[0][smol].endswith(f"= -7.1 pp [-13.9, -1.6], {said}")
    assert over.iloc[0][QWEN].endswith("= -7.1 pp [-13.9, -1.6], 60 questions")
    assert S.model_view(syn, smol)["values"].tolist() == [
        "means over 30 questions of 2wikimqa only, musique left out at the floor"]
    assert S.size_table(syn).set_index("model").loc[smol, "scope"] == "2wikimqa only, musique left out at the floor"


def _summhay(comparison: str, other: str, diff: float, lo: float, hi: float, floor: str | None = None) -> dict:
    from lcrag.papers.summhay.comparison import full_context

    return S.comparison("summhay", QWEN, comparison, "Full", 0.3, other, 0.3 - diff, diff, lo, hi, 9, "subtopics",
                        "paired bootstrap over subtopics", "run", floor=floor,
                        long_context=full_context(15000, 15.667, 100))


def test_a_headline_at_the_floor_gives_what_its_family_reports_instead():
    """The 1.5B cites no document, so SummHay's Joint is 0 for every setting (not testable) while its Coverage is
    20-40 %: the answer and the chapter's conclusion keep "not testable" and add Coverage alone, never the Oracle
    row nor a Coverage row itself at the floor; without such a row the floor stands alone. Wherever Full is named
    in a comparison, it says what it read: the first documents up to the budget, not the whole haystack."""
    from lcrag.papers.summhay.comparison import FAMILY as SUMMHAY
    from lcrag.synthesis.views import conclusions

    floor = "Full (pooled joint): 0.0 points, below 5"
    rows = [_summhay("Full vs Oracle (Joint)", "oracle", 0.0, -0.336, 0.336, floor),
            _summhay("Full vs random (every retriever at the floor) (Joint)", "random", -0.002, -0.012, 0.0, floor),
            _summhay("Full vs Oracle (Coverage)", "oracle", -0.109, -0.288, 0.008),
            _summhay("Full vs vector (best retriever) (Coverage)", "vector", -0.068, -0.177, 0.014)]
    syn = _syn(rows, [SUMMHAY])
    text = written_answer(syn)
    read = "Full (15,000 tokens, 15.7 of 100 documents, the first in stored order: this run has no whole-haystack arm)"
    assert ("**Qwen2.5-Coder-1.5B-Instruct** (1.5B parameters): not testable (an arm at the floor) in Summary of a Haystack (on Coverage "
            f"alone: no clear difference, {read} 30.0 − vector 36.8 = -6.8 pp [-17.7, +1.4], means over 9 subtopics).") in text
    assert text.endswith("no experiment has a difference whose interval excludes zero yet.")
    (line,) = conclusions(syn, QWEN)
    assert line.startswith("Summary of a Haystack: Full cut to the retrievers' budget vs Oracle vs retrievers: "
                           f"**not testable with this model**; {read} − random = ")
    # the arms' values beside their difference, both means over the subtopics (not the table's micro-averages)
    assert line.endswith("On Coverage alone: no clear difference, Full 30.0 − vector 36.8 = -6.8 pp [-17.7, +1.4], "
                         "means over 9 subtopics.")

    rows[3] = _summhay("Full vs vector (best retriever) (Coverage)", "vector", -0.068, -0.177, 0.014, floor)
    floored = written_answer(_syn(rows, [SUMMHAY]))
    assert "**Qwen2.5-Coder-1.5B-Instruct** (1.5B parameters): not testable (an arm at the floor) in Summary of a Haystack." in floored
    assert "Coverage" not in floored and "Oracle" not in floored


def test_across_sizes_names_the_arm_at_the_floor_a_decision_rests_on():
    """A win over an arm at the floor (the other arm clearly above it) is counted, and the sentence across sizes
    says, at that size, which arm was at the floor (the 135M's RAG at chance), so the count is not read as more."""
    small = "local/smollm2-135m-instruct"
    rows = [_needle(0.2, 0.1, 0.3),
            S.comparison("needle", small, "full haystack vs BM25 RAG (recall)", "Full", 0.6, "RAG", 0.3, 0.3, 0.2,
                         0.4, 12, "cells", "paired bootstrap", "run", floor="RAG: at chance", floored=["RAG"])]
    text = across_sizes(model_outcomes(_syn(rows, [NEEDLE])))
    assert text.startswith("Long context beats retrieval with an interval that excludes zero in the "
                           "needle-in-a-haystack test (135M, its RAG at the floor; 1.5B).")
    assert "That is 2 of the 2 model × experiment pairs run." in text


def test_across_sizes_says_where_the_long_context_arm_was_cut_to_the_window():
    """LongRAG's 135M: Full was cut to the model's window in 16 of 48 questions; the closing tally says so beside the
    size whose decision it is, as the model's paragraph does, from the row's ``long_context`` (not typed)."""
    small = "local/smollm2-135m-instruct"
    rows = [_needle(0.2, 0.1, 0.3),
            S.comparison("needle", small, "full haystack vs BM25 RAG (recall)", "Full", 0.3, "RAG", 0.6, -0.3, -0.4,
                         -0.2, 48, "cells", "paired bootstrap", "run",
                         long_context=S.family.window_cut(16, 48, "cells", "whole"))]
    text = across_sizes(model_outcomes(_syn(rows, [NEEDLE])))
    assert ("Retrieval beats long context with an interval that excludes zero in the needle-in-a-haystack test "
            "(135M, Full cut to the window in 16 of 48 cells).") in text
    assert "Long context beats retrieval with an interval that excludes zero in the needle-in-a-haystack test (1.5B)." in text


def test_the_chapters_headline_line_shows_the_other_cuts_beside_the_one_least_favourable_to_whole_documents():
    """Long²RAG's "What we found" (lcrag.synthesis.conclusions): the headline is the mildest cut, with no clear
    difference; the harshest, which whole documents do beat, is shown beside it, with its reading in bold, so that
    the line does not read as "truncation changes nothing"."""
    from lcrag.synthesis.views import conclusions

    rows = [_whole_vs("trunc2048", -0.028, -0.088, 0.021), _whole_vs("trunc1024", 0.039, -0.019, 0.101),
            _whole_vs("trunc512", 0.119, 0.072, 0.177)]
    (line,) = conclusions(_syn(rows, [LONG2RAG]), QWEN)
    assert "**no clear difference**; whole − trunc2048 = -2.8 pp [-8.8, +2.1]" in line
    assert line.endswith(" The other comparisons: whole − trunc1024 = +3.9 pp [-1.9, +10.1], no clear difference; "
                         "whole − trunc512 = +11.9 pp [+7.2, +17.7], **whole better**.")
    (needle,) = conclusions(_syn([_needle(0.2, 0.1, 0.3)], [NEEDLE]), QWEN)
    assert "other comparisons" not in needle  # a family whose headline alone decides


def test_a_difference_only_the_length_biased_judge_shows_is_not_a_win_anywhere_the_synthesis_writes():
    """A Long²RAG row the lexical judge decides for the arm with the longer answers, uncorroborated
    (lcrag.papers.long2rag.trend_claims.lexical_pair), reads S.UNCORROBORATED: the chapter's line gives the reason,
    the answer does not count it as a clear difference, and the size axis draws it hollow."""
    from lcrag.synthesis.views import conclusions

    why = ("not corroborated: whole's answers are longer (mean 169.0 vs 145.6 tokens), which the lexical judge "
           "favours; the llm judge agrees with the humans too weakly to corroborate")
    cut = {**_whole_vs("trunc512", 0.119, 0.072, 0.177), "reading": S.UNCORROBORATED}
    cut["evidence"] += f"; {why}"
    rows = [_whole_vs("trunc2048", -0.028, -0.088, 0.021), cut]
    syn = _syn(rows, [LONG2RAG])
    (line,) = conclusions(syn, QWEN)
    assert line.endswith("whole − trunc512 = +11.9 pp [+7.2, +17.7], not corroborated (length-biased judge): "
                         + why.removeprefix("not corroborated: ") + ".")
    text = written_answer(syn)
    assert "a clear difference only" not in text and "**whole better**" not in line
    alone = written_answer(_syn([{**cut, "other_arm": "trunc2048"}], [LONG2RAG]))
    assert "a difference only a judge biased towards longer answers shows, not corroborated, in Long²RAG (" in alone
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PathCollection

    from lcrag.synthesis.size_axis import _draw

    fig, ax = plt.subplots()
    points = pd.DataFrame({"parameters": [1.5e9, 0.5e9], "diff": [0.119, 0.119], "ci_low": [0.072, 0.072],
                           "ci_high": [0.177, 0.177], "reading": [S.UNCORROBORATED, "whole better"]})
    _draw(ax, points, "C0")
    filled, hollow = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert filled.get_offsets()[:, 0].tolist() == [0.5e9] and hollow.get_offsets()[:, 0].tolist() == [1.5e9]
    plt.close(fig)


def test_the_written_answer_follows_the_headlines_largest_model_first(book_runs):
    from lcrag.synthesis.answer import OUTCOMES, across_sizes, model_outcomes, outcome, written_answer

    assert outcome("Full better", "Full", "RAG") == "long" and outcome("RAG better", "Full", "RAG") == "other"
    assert outcome(S.NOT_TESTABLE, "Full", "RAG") == "floor" and outcome("no clear difference", "a", "b") == "unclear"
    assert outcome("oracle higher (point estimates)", "Full", "oracle") == "points"
    qwen = "local/qwen2.5-coder-1.5b-instruct"
    write_run(book_runs, "longrag", qwen, {"answers": longrag_answers(qwen)})
    write_run(book_runs, "longrag", "openai/gpt-4o-mini", {"answers": longrag_answers("openai/gpt-4o-mini")})
    syn = S.synthesize(book_runs, n_boot=300)
    o = model_outcomes(syn)
    assert len(o) == len(syn.models) * len(TITLES)
    h = S.headline(syn).set_index(["model", "family"])
    for r in o[o["outcome"] != "not run"].itertuples():  # each outcome is its headline's reading
        family = next(f for f in syn.families if f.in_prose == r.family)
        row = h.loc[(r.model, family.name)]
        assert r.outcome == outcome(row["reading"], row["long_arm"], row["other_arm"])
        # the long-context arm as its family names it in prose (SummHay's Full: what it read)
        assert r.evidence.startswith(f"{family.arm_label(row)} − {row['other_arm']} ") and r.evidence.endswith(row["units"])
        assert family.arm_label(row) == row["long_arm"] or family.name == "summhay"
    text = written_answer(syn)
    paragraphs, summary = text.split("\n\n")[0].split("\n"), text.split("\n\n")[1]
    assert [p.split("**")[1] for p in paragraphs] == [  # by size, then unsized; the model card's name, else the spec
        "Qwen2.5-Coder-1.5B-Instruct", "Gemma-3-270M", "SmolLM2-135M-Instruct", "openai/gpt-4o-mini"]
    assert paragraphs[0].startswith(
        "- **Qwen2.5-Coder-1.5B-Instruct** (1.5B parameters): long context beats retrieval in LongRAG (Full − R&B +75.0 pp [")
    assert paragraphs[0].endswith(
        "; not run yet: the needle-in-a-haystack test, BAMBOO multiple choice, Long²RAG and Summary of a Haystack.")
    smol = paragraphs[2]
    assert smol.startswith("- **SmolLM2-135M-Instruct** (135M parameters): long context beats retrieval in BAMBOO multiple choice "
                           "(Full − RAG CQT +25.0 pp [")
    for part in (" and LongRAG (Full − R&B ", "; whole documents beat truncated ones in Long²RAG (whole − trunc512 ",
                 "; no clear difference in the needle-in-a-haystack test (Full − RAG -50.0 pp [", "; only point estimates (no "
                 "interval) in Summary of a Haystack (Full (the haystack's first documents in stored order, as many as "
                 "fit the context budget) − keywords -3.0 pp (no interval), 3 summaries)."):
        assert part in smol
    assert "parameters" not in paragraphs[3]
    write_run(book_runs, "thesis", GEMMA, thesis_tables(rag=0.2))  # RAG at chance, Full clearly above it
    gemma = written_answer(S.synthesize(book_runs, n_boot=300)).split("\n")[1]
    assert "long context beats retrieval in BAMBOO multiple choice (Full − RAG CQT " in gemma
    assert "40 cases; RAG CQT at the floor)" in gemma
    assert summary == across_sizes(o) == (
        "Long context beats retrieval with an interval that excludes zero in BAMBOO multiple choice (135M) and "
        "LongRAG (135M, 1.5B). Whole documents beat truncated ones with an interval that excludes zero in Long²RAG "
        "(135M). That is 4 of the 7 model × experiment pairs run; in 2 the interval contains zero, in 1 only point "
        "estimates.")
    assert list(OUTCOMES)[-1] == "not run"
    nothing = S.synthesize(book_runs / "empty")
    assert across_sizes(model_outcomes(nothing)).startswith("On the models of known size, no experiment")
