"""The needle-in-a-haystack chapter: haystack construction with the models' real tokenizers, both scorers on
handmade answers, Kamradt's judge on the embedded SmolLM2, and the smoke profile executed end to end."""

from __future__ import annotations

import json
import math
import os

import pandas as pd
import pytest

from lcrag import stats
from lcrag.book import ClaimsLedger
from lcrag.book.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, VERDICTS
from lcrag.book.runner import run_chapter
from lcrag.data.fetch import fetch
from lcrag.metrics import needle as metrics
from lcrag.models import get_model
from lcrag.papers.thesis.needle import analysis, asking, haystack, judging, plan
from lcrag.papers.thesis.needle import claims as needle_claims
from lcrag.papers.thesis.needle import needles as needle_texts
from lcrag.text.stopwords import english_content_words

SMOL, GEMMA = "local/smollm2-135m-instruct", "local/gemma3-270m"


@pytest.fixture(scope="module")
def essays(mirror, tmp_path_factory):
    os.environ["LCRAG_DATA_DIR"] = str(tmp_path_factory.mktemp("data"))
    try:
        assert fetch(datasets=["paul_graham_essays"], mirror=mirror, download=False).ok
        from lcrag.data import load_essays

        yield list(load_essays()["text"])
    finally:
        os.environ.pop("LCRAG_DATA_DIR")


# ----------------------------------------------------------------------------- haystack construction


@pytest.mark.parametrize("spec", [SMOL, GEMMA])
def test_needle_goes_at_the_last_sentence_start_before_the_depth(spec, essays):
    tok = get_model(spec).tokenizer
    periods = set(tok.encode("."))
    base = haystack.haystack_tokens(essays, tok.encode, 4000)
    for needle in needle_texts.needles_for(["simple", "complex"]):
        n_needle = len(tok.encode("\n" + needle.text + "\n"))
        hay = base[: 4000 - haystack.BUFFER_TOKENS - n_needle]
        for depth in (0, 10, 33, 50, 77, 90):
            h = haystack.make_haystack(base, tok, 4000, depth, needle)
            at, cut = h.needle_at[0], int(len(hay) * depth / 100)
            assert at <= cut
            assert at == 0 or hay[at - 1] in periods  # right after a period: a sentence boundary
            assert not any(t in periods for t in hay[at:cut])  # and the last one at or before the depth
            assert cut - at < 150  # a sentence, not a paragraph, away
            text_before, _, text_after = h.text.partition("\n" + needle.text + "\n")
            assert text_after, "the needle is in the text, framed by newlines"
            assert depth == 0 or text_before.rstrip().endswith(".")
            assert tok.decode(hay[:at]) == text_before
        end = haystack.make_haystack(base, tok, 4000, 100, needle)
        assert end.needle_at[0] == len(hay) and end.text.endswith(needle.text + "\n")


@pytest.mark.parametrize("spec", [SMOL, GEMMA])
def test_haystack_is_token_exact(spec, essays):
    """Kamradt's trimming, in the model's tokens: haystack + needle = length - 200 exactly; the decoded text,
    re-encoded, loses at most one token where the needle meets the haystack (a merge across a seam)."""
    m = get_model(spec)
    tok = m.tokenizer
    lengths = [1000, 3000, 7500] + ([16000] if spec == GEMMA else [])
    base = haystack.haystack_tokens(essays, tok.encode, max(lengths))
    diffs = []
    for length in lengths:
        for depth in (0, 10, 25, 50, 75, 90, 100):
            for needle in needle_texts.needles_for(["simple", "complex"]):
                h = haystack.make_haystack(base, tok, length, depth, needle)
                assert h.n_tokens == length - haystack.BUFFER_TOKENS
                diffs.append(len(tok.encode(h.text)) - (length - haystack.BUFFER_TOKENS))
    assert min(diffs) >= -1 and max(diffs) <= 0
    assert diffs.count(0) > len(diffs) / 2


def test_the_essays_repeat_when_too_short(essays):
    tok = get_model(SMOL).tokenizer
    one = tok.encode("".join(essays))
    more = haystack.haystack_tokens(essays, tok.encode, len(one) + 500)
    assert len(more) == len(one) + 500 and more[: len(one)] == one
    with pytest.raises(ValueError, match="no room"):
        haystack.make_haystack(one, tok, 250, 50, needle_texts.NEEDLES["complex"])
    with pytest.raises(ValueError, match="depth"):
        haystack.insertion_point(one[:100], 101, {13})


def test_ruler_variants_insert_every_needle_in_order(essays):
    tok = get_model(SMOL).tokenizer
    base = haystack.haystack_tokens(essays, tok.encode, 3000)
    for kind in ("multi_key", "multi_value"):
        needle = needle_texts.ruler_needle(kind)
        h = haystack.make_haystack(base, tok, 3000, 20, needle)
        assert h.n_tokens == 3000 - haystack.BUFFER_TOKENS
        positions = [h.text.index(p) for p in needle.parts]
        assert positions == sorted(positions) and len(set(positions)) == 4
        assert h.actual_depth <= 20
    assert needle_texts.ruler_needle("multi_key") == needle_texts.ruler_needle("multi_key")  # seeded: the same every run
    assert len(needle_texts.ruler_needle("multi_value").values) == 4 and len(needle_texts.ruler_needle("multi_key").values) == 1


def test_prefix_order_costs_least(essays):
    m = get_model(SMOL)
    cells = plan.needle_grid(m, essays, [1000, 2000, 3000], [0, 25, 50, 75, 100], needle_texts.needles_for(["simple", "complex"]))
    cost = {how: plan.prefill_cost(plan.prefix_order(cells, how)) for how in ("prefix", "length_depth", "kamradt")}
    no_reuse = sum(c["haystack_tokens"] for c in cells)
    # every prompt pays from its needle on, and the first one (no previous prompt) pays its whole haystack
    lower_bound = sum(c["haystack_tokens"] - c["needle_at"] for c in cells) + max(c["needle_at"] for c in cells)
    assert cost["prefix"] <= lower_bound
    assert cost["prefix"] < cost["length_depth"] < cost["kamradt"] < no_reuse
    order = plan.prefix_order(cells)
    assert [c["needle_at"] for c in order] == sorted((c["needle_at"] for c in cells), reverse=True)


def test_prompts_are_kamradts(essays):
    msgs = asking.needle_messages("HAY", needle_texts.SIMPLE_QUESTION)
    assert msgs == [
        {"role": "system", "content": "You are a helpful AI bot that answers questions for a user. Keep your "
                                      "response short and direct"},
        {"role": "user", "content": "HAY"},
        {"role": "user", "content": "What is the best thing to do in San Francisco? Don't give information "
                                    "outside the document or repeat your findings"},
    ]
    method, kwargs = asking.request_for(get_model(GEMMA), "HAY", needle_texts.SIMPLE_QUESTION, 64)
    assert method == "complete" and kwargs["prompt"].startswith(asking.SYSTEM + "\n\nHAY\n\n")
    assert kwargs["prompt"].endswith("repeat your findings\nAnswer:")
    assert asking.request_for(get_model(SMOL), "HAY", needle_texts.SIMPLE_QUESTION, 64)[0] == "chat"
    assert needle_texts.NEEDLES["complex"].question_by == "ours" and needle_texts.NEEDLES["simple"].question_by == "Kamradt"


def test_quickstart_haystack_is_unchanged(essays):
    """The quickstart's recorded prompts depend on build_haystack's old framing (a space each side)."""
    m = get_model(SMOL)
    hay = haystack.build_haystack(m, essays, 1000, 50)
    assert " " + needle_texts.SIMPLE_NEEDLE + " " in hay
    assert len(m.tokenizer.encode(hay)) in (799, 800)


# ----------------------------------------------------------------------------- scorers


def test_deterministic_recall_on_handmade_answers():
    s = needle_texts.NEEDLES["simple"]
    assert metrics.answer_words(s.text, s.question) == ["eat", "sandwich", "sit", "dolores", "park", "sunny", "day"]
    assert s.score("Eat a sandwich and sit in Dolores Park on a sunny day.") == 1.0
    assert s.score("The best thing to do in San Francisco is to visit it.") == 0.0  # repeating the question
    assert s.score("eat a sandwich in Dolores Park") == pytest.approx(4 / 7)
    assert s.score("") == 0.0 and s.score(None) == 0.0
    c = needle_texts.NEEDLES["complex"]
    words = metrics.answer_words(c.text, c.question)
    assert len(words) == 25 and "laser" not in words and "diode" not in words and "ghz" in words
    assert c.score(needle_texts.COMPLEX_NEEDLE) == 1.0
    assert c.score("It can amplify one sideband of a seed laser.") == pytest.approx(4 / 25)
    mv = needle_texts.ruler_needle("multi_value")
    assert mv.score(f"They are {mv.values[0]}, {mv.values[2]} and 1234567.") == 0.5
    assert metrics.values_recall("x 12345678 y", ["1234567"]) == 0.0  # digits must match whole


def _grid(repeat: int, misses=()) -> pd.DataFrame:
    """Both needles at 4 lengths (1k-8k) x 3 depths, ``repeat`` times (lengths shifted by the repeat: 12 x
    ``repeat`` cells per needle); the cells named by ``misses`` ((needle, length, depth, repeat)) are missed."""
    rows = [{"model": "m", "needle": needle, "setting": "full", "context_tokens": length + r, "depth": depth,
             "recall": 0.0 if (needle, length, depth, r) in misses else 1.0}
            for r in range(repeat) for needle in ("simple", "complex") for length in (1000, 2000, 4000, 8000)
            for depth in (0, 50, 100)]
    return analysis.add_found(pd.DataFrame(rows))


def test_agreement_and_h4_on_a_handmade_table():
    assert stats.cohen_kappa([True, True, False, False], [True, False, False, False]) == pytest.approx(0.5)
    late_miss = {("simple", 8000, 0, 0)}  # 8000 >= 30 % of 8000: a late miss
    t = needle_claims.h4_tests(_grid(1, late_miss), window=8000)
    assert t["complex_misses"] == 0 and t["simple_early_fails"] == 0 and t["simple_late_fails"] == 1
    # no miss in 12 complex cells: the exact interval still allows 26 % of misses, above H4a's margin
    assert t["complex_miss_ci_high"] == pytest.approx(1 - 0.025 ** (1 / 12))
    assert t["complex_everywhere"] is None and t["simple_fails_late"] is None
    # no failure in the 8 cells of the late quadrant: their miss rate may still be 37 % (exact interval), so no
    # absence of a cluster is shown (a bootstrap alone would take the 8 cells' 0 % as known and say it is)
    assert t["late_fail"] == 0 and t["late_ci_high"] > needle_claims.CLUSTER_MARGIN and t["no_late_cluster"] is None
    t = needle_claims.h4_tests(_grid(8, late_miss), window=8000)  # 96 cells a needle, 48 early: both below 10 %
    assert t["no_late_cluster"] is True and t["late_ci_high"] < needle_claims.CLUSTER_MARGIN  # 64 quadrant cells
    assert t["complex_miss_ci_high"] < needle_claims.COMPLEX_MISS_MARGIN and t["complex_everywhere"] is True
    assert t["early_miss_ci_high"] < needle_claims.EARLY_MISS_MARGIN and t["late_miss_ci_low"] > 0
    assert t["simple_fails_late"] is True
    assert needle_claims.h4_tests(_grid(8), window=8000)["simple_fails_late"] is None  # no late miss: undecided
    # an early miss (1000 < 30 % of 8000) among 48 early cells: 1 of 48 allows a rate above 10 %, and below
    t = needle_claims.h4_tests(_grid(8, late_miss | {("simple", 1000, 0, 0)}), window=8000)
    assert t["simple_early_fails"] == 1 and t["early_miss_ci_low"] < needle_claims.EARLY_MISS_MARGIN
    assert t["simple_fails_late"] is None
    # misses in most early cells: the interval lies above the margin, not reproduced
    early = {("simple", 1000, d, r) for d in (0, 50, 100) for r in range(8)}  # 24 of 48
    t = needle_claims.h4_tests(_grid(8, late_miss | early), window=8000)
    assert t["early_miss_ci_low"] > needle_claims.EARLY_MISS_MARGIN and t["simple_fails_late"] is False
    complex_misses = {("complex", n, d, 0) for n in (1000, 2000, 4000, 8000) for d in (0, 50, 100)}
    assert needle_claims.h4_tests(_grid(1, complex_misses), window=8000)["complex_everywhere"] is False


def test_h4_margins_are_the_claims_files():
    """H4's margins are declared once, in thesis/claims.csv's tolerance column, and the rules say them."""
    from lcrag.papers.tables import declared_claims

    declared = declared_claims("thesis")
    assert needle_claims.COMPLEX_MISS_MARGIN == declared["H4a"].tolerance == 0.1
    assert needle_claims.EARLY_MISS_MARGIN == declared["H4b"].tolerance == 0.1
    assert needle_claims.CLUSTER_MARGIN == declared["H4c"].tolerance == 0.15
    rules = needle_claims.rules()
    assert "margin (10 % of the cells)" in rules and "H4a" not in rules and "at least 15 points" in rules
    assert "lies below 15 points" in rules


def _h4c(late_misses: int, other_misses: int, repeat: int = 1):
    """H4c on a grid of 8 late cells (long context, depth >= 50; per ``repeat``) and 16 others, with that many
    misses in each."""
    rows = []
    for r in range(repeat):
        for needle in ("simple", "complex"):
            for length in (1000, 2000, 4000, 8000):
                for depth in (0, 50, 100):
                    rows.append({"model": "m", "needle": needle, "setting": "full", "context_tokens": length + r,
                                 "depth": depth, "recall": 1.0})
    df = analysis.add_found(pd.DataFrame(rows))
    late = (df["context_tokens"] > df["context_tokens"].median()) & (df["depth"] >= 50)
    df.loc[df[late].index[:late_misses], "found"] = False
    df.loc[df[~late].index[:other_misses], "found"] = False
    return needle_claims.h4_tests(df, window=8000)


def test_h4d_tests_the_upper_right_quadrant_as_kamradts_heatmaps_draw_it():
    """Kamradt's GPT-4 lost the needle at long context with the needle early: a grid that fails only there (lengths
    above the median, depth 0) is a cluster for H4d, and H4c's quadrant (depth >= 50), which finds every needle,
    rules one out; the claims' texts say which quadrant each reads."""
    rows = [{"model": "m", "needle": n, "setting": "full", "context_tokens": t, "depth": d,
             "recall": 0.0 if (t == 8000 and d == 0) else 1.0}
            for _ in range(3) for n in ("simple", "complex") for t in (1000, 2000, 4000, 8000) for d in (0, 50, 100)]
    df = analysis.add_found(pd.DataFrame(rows))
    t = needle_claims.h4_tests(df, window=8000)
    assert t["front_fail"] == 0.5 and t["front_rest_fail"] == 0.0 and t["front_p"] < 0.05
    assert t["no_front_cluster"] is False  # H4d: a cluster, not reproduced
    assert t["late_fail"] == 0.0 and t["late_rest_fail"] == 0.125 and t["no_late_cluster"] is True
    ledger = ClaimsLedger(None, paper="thesis", model="m")
    needle_claims.check_h4(ledger, df, window=8000)
    table = ledger.table().set_index("claim_id")
    assert table.loc["H4d", "verdict"] == NOT_REPRODUCED and table.loc["H4c", "verdict"] == REPRODUCED
    assert "depth < 50 %" in table.loc["H4d", "text"] and "Kamradt" in table.loc["H4d", "text"]
    assert table.loc["H4d", "our_value"].startswith("fail 50% in the upper right (long context, depth < 50 %) vs 0%")
    assert "H4d, the book's alternative reading, where Kamradt's heatmaps" in needle_claims.rules()
    # the thesis's words name the quadrant "(large context, end of context)": H4c is its claim, H4d the book's reading,
    # tallied apart from the thesis's claims on the claims page
    from lcrag.book.claims import BOOK_READING

    assert table.loc["H4d", "paper"] == "thesis" + BOOK_READING and table.loc["H4c", "paper"] == "thesis"


def test_h4c_no_cluster_needs_an_interval_below_the_margin():
    """A claim that an effect is absent is reproduced by an equivalence test, not by a test that fails to find it
    (book/verdicts.md): the case of Gemma-3's needle run, p = 0.80 on 12 late cells, is inconclusive."""
    cluster = _h4c(6, 1)  # 6 of 8 late cells missed, 1 of 16 elsewhere
    assert cluster["late_p"] < 0.05 and cluster["no_late_cluster"] is False
    unsure = _h4c(2, 2)  # 25 % against 12.5 %: not significant, but a drop of 15 pp is not ruled out
    assert unsure["late_p"] >= 0.05 and unsure["late_ci_high"] >= needle_claims.CLUSTER_MARGIN
    assert unsure["no_late_cluster"] is None
    same = _h4c(4, 8, repeat=6)  # 8 % against 8 % on 144 cells: the interval excludes a 15 pp cluster
    assert same["late_ci_high"] < needle_claims.CLUSTER_MARGIN and same["no_late_cluster"] is True
    small = _h4c(5, 0, repeat=6)  # 10 % against 0 %: significant, but smaller than the 15 pp a cluster needs
    assert small["late_p"] < 0.05 and small["late_fail"] - small["late_rest_fail"] < needle_claims.CLUSTER_MARGIN
    assert small["late_ci_high"] >= needle_claims.CLUSTER_MARGIN and small["no_late_cluster"] is None
    assert "of at least 15 points" in needle_claims.rules() and "fewer than half" in needle_claims.rules()


@pytest.mark.slow
def test_smollm2_judge_scores_handmade_answers(essays):
    judge = get_model(SMOL)
    s = needle_texts.NEEDLES["simple"]
    df = pd.DataFrame([{"needle": "simple", "_needle": s, "response": r} for r in
                       (s.text, "Eat a sandwich in Dolores Park.", "Paul Graham writes essays about startups.")])
    out = judging.judge_cells(judge, df)
    assert out["judge_parse"].eq("forced").all()
    assert out["judge_score"].between(1, 10).all()
    assert out["judge_text"].str.startswith("Rating: [[").all()
    assert out["judge_expected"].between(1, 10).all() and out["judge_mass"].between(0.01, 1.0001).all()


# ----------------------------------------------------------------------------- the chapter, smoke profile


@pytest.mark.slow
def test_smoke_profile_runs_end_to_end(essays, tmp_path):
    res = run_chapter("needle", profile="smoke", out_dir=tmp_path / "run", progress=False)  # data: `essays`
    assert res.ok, res.error
    out = res.out_dir
    answers = pd.read_csv(out / "answers.csv")
    # full: 2 models x 2 needles x 2 lengths x 2 depths; rag: the longest length only
    assert len(answers) == 16 + 8
    assert set(answers.loc[answers["setting"] == "rag", "context_tokens"]) == {700}
    assert set(answers["model"]) == {SMOL, GEMMA} and set(answers["setting"]) == {"full", "rag"}
    assert answers["recall"].between(0, 1).all() and answers["judge_score"].between(1, 10).all()
    assert (answers["judge_parse"] == "forced").all()
    assert (answers["haystack_tokens"] == answers["context_tokens"] - 200).all()
    full = answers[answers["setting"] == "full"]
    assert full["prompt_tokens"].between(full["context_tokens"] - 200, full["context_tokens"]).all()
    grid = pd.read_csv(out / "grid.csv")
    assert len(grid) == 16 and (grid.loc[grid["depth"] == 0, "needle_at"] == 0).all()
    orders = pd.read_csv(out / "prefix_orders.csv").set_index(["model", "order"])["tokens_evaluated"]
    for m in (SMOL, GEMMA):
        assert orders[(m, "prefix")] < orders[(m, "no reuse")]
    claims = pd.read_csv(out / "claims.csv")
    assert sorted(claims["claim_id"]) == ["H4a", "H4a", "H4b", "H4b", "H4c", "H4c", "H4d", "H4d"]
    assert set(claims["model"]) == {SMOL, GEMMA} and claims["verdict"].isin(VERDICTS).all()
    variants = pd.read_csv(out / "variants.csv")
    assert len(variants) == 2 and set(variants["needle"]) == {"multi_key"}
    freq = pd.read_csv(out / "word_frequencies.csv")
    assert list(freq.loc[freq["needle"] == "simple", "word"]) == english_content_words(needle_texts.SIMPLE_NEEDLE)
    assert freq.loc[(freq["needle"] == "complex") & (freq["word"] == "sideband"), "count"].iloc[0] == 0
    ranks = pd.read_csv(out / "bm25_needle_rank.csv")
    assert len(ranks) == 8 and (ranks["rank"] >= 1).all()  # 2 models x 2 needles x 2 lengths
    agreement = pd.read_csv(out / "scorer_agreement.csv")
    assert agreement["n"].sum() == 24
    rescue = pd.read_csv(out / "full_vs_rag.csv")
    assert len(rescue) == 4 and (rescue["cells"] == 2).all()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "ok" and manifest["profile"] == "smoke"


def test_the_expected_rating_is_compared_with_recall_by_rank():
    rows = [{"model": "m", "needle": "simple", "recall": r, "judge_score": 5, "judge_expected": e}
            for r, e in ((1.0, 6.1), (1.0, 5.2), (0.8, 5.9), (0.0, 3.9), (0.0, 5.5), (0.2, 4.0))]
    table = analysis.scorer_agreement(analysis.add_found(pd.DataFrame(rows)), by=("model",))
    row = table.iloc[0]
    assert row["auc_expected"] == pytest.approx(8 / 9)  # found: 6.1, 5.2, 5.9; missed: 3.9, 5.5, 4.0
    assert row["spearman_expected"] == pytest.approx(9.5 / (16.5 * 17.5) ** 0.5)  # by hand, on ranks with ties
    assert math.isnan(row["spearman"])  # the written score is constant
    assert row["kappa"] == 0


def test_a_bad_rag_mode_fails_before_any_model_is_loaded():
    with pytest.raises(ValueError, match="rag must be 'longest', 'all' or 'none', not 'bm25'"):
        plan.setup("local/no-such-model", [], "", [1000], {}, ["simple"], "bm25", 48)


def test_a_run_on_an_embedded_model_tests_all_four_its_own_first():
    qwen = "local/qwen2.5-coder-1.5b-instruct"
    qwen05 = "local/qwen2.5-coder-0.5b-instruct"
    assert plan.tested_models(qwen) == [qwen, SMOL, GEMMA, qwen05]
    assert plan.tested_models(SMOL) == [SMOL, qwen, GEMMA, qwen05]
    assert plan.tested_models("openai/gpt-4o-mini") == ["openai/gpt-4o-mini"]
    assert plan.tested_models(qwen, [SMOL, GEMMA]) == [SMOL, GEMMA]  # named models: exactly those
    # the smoke and quick profiles' embedded models: a run on another model asks that model first (or alone)
    assert plan.tested_models(SMOL, embedded=[SMOL, GEMMA]) == [SMOL, GEMMA]
    assert plan.tested_models(qwen, embedded=[SMOL, GEMMA]) == [qwen, SMOL, GEMMA]
    assert plan.tested_models("openai/gpt-4o-mini", embedded=[SMOL, GEMMA]) == ["openai/gpt-4o-mini"]


def _floor_grid(first_full: float, rag: float) -> pd.DataFrame:
    """Both needles at 5 lengths x 4 depths, full haystack and RAG on every cell: full recall 0 except
    ``first_full`` in each needle's first cell (mean ``first_full / 20``), RAG recall ``rag`` everywhere."""
    rows = [{"model": "m", "needle": needle, "setting": setting, "context_tokens": length, "depth": depth,
             "recall": (first_full if i == 0 else 0.0) if setting == "full" else rag, "source": "run"}
            for needle in ("simple", "complex") for setting in ("full", "rag")
            for i, (length, depth) in enumerate((t, d) for t in (1000, 2000, 4000, 8000, 16000) for d in (0, 33, 66, 100))]
    return analysis.add_found(pd.DataFrame(rows))


def test_h4_and_the_synthesis_share_the_chapters_floor_rule():
    """One floor rule (:func:`needle_claims.recall_floor`, mean recall below 0.05) for H4 and the synthesis's full
    vs RAG row: at the edge of the floor (full mean recall 0.045 against 0.05, which is not below it) H4's three
    parts and the row are all not testable, or none; RAG at the floor makes the row not testable, not H4 (which
    reads the full haystack only). The row is read where the arm above the floor is clearly better."""
    from lcrag.book.claims import ClaimsLedger
    from lcrag.papers.thesis.needle import comparison
    from lcrag.synthesis import NOT_TESTABLE

    assert comparison.recall_floor is needle_claims.recall_floor  # the synthesis asks the chapter's rule
    for first, rag, h4_floored, row_floored in ((0.9, 1.0, True, True), (1.0, 1.0, False, False),
                                                (1.0, 0.0, False, True)):
        cells = _floor_grid(first, rag)
        ledger = ClaimsLedger(None, paper="thesis", model="m")
        needle_claims.check_h4(ledger, cells, window=16000)
        t = ledger.table().set_index("claim_id")
        (row,) = comparison.comparisons(cells, n_boot=200)
        assert all((t.loc[c, "verdict"] == NOT_TESTABLE) is h4_floored for c in ("H4b", "H4c")), first
        # H4a is GPT-3.5-Turbo's perfect score: a level of the thesis's generator, shown but not compared for "m"
        assert t.loc["H4a", "verdict"] == NOT_TESTABLE and "perfect score" in t.loc["H4a", "evidence"]
        gpt = ClaimsLedger(None, paper="thesis", model="openai/gpt-3.5-turbo-0125")
        needle_claims.check_h4(gpt, cells, window=16000)
        assert (gpt.table().set_index("claim_id").loc["H4a", "verdict"] == NOT_TESTABLE) is h4_floored, first
        # one arm at the floor: read only when the other is clearly better (RAG 1.0 against 0.045: it is; Full
        # 0.05 against RAG 0: two cells of 40 found, not clearly)
        assert (row["reading"] == NOT_TESTABLE) is (rag == 0.0), (first, rag)
        assert ("clearly above the arm at the floor" in row["evidence"]) is (row_floored and rag == 1.0)
        if h4_floored:  # the same reason, from the same function
            assert t.loc["H4c", "evidence"].endswith("at the floor: full, both needles (mean recall): 4.5 points, "
                                                     "below 5")
            assert row["evidence"].endswith("at the floor: Full (mean recall): 4.5 points, below 5; decided: RAG "
                                            "is clearly above the arm at the floor")
    assert needle_claims.recall_floor({"Full": pd.Series([0.05]), "RAG": pd.Series(dtype=float)}) is None


def test_a_cluster_claim_left_inconclusive_by_the_floor_rule_says_so_in_its_evidence():
    """H4c/H4d are inconclusive when the needle is found in fewer than half of the other cells (no drop can show
    against a floor): the evidence says that this is why, with the share found (SmolLM2's H4c: 38 %), and says
    nothing of it where the rule did not apply."""
    rows = [{"model": "m", "needle": n, "setting": "full", "context_tokens": t, "depth": d,
             "recall": 1.0 if (r == 0 and t < 8000) else 0.0}
            for r in range(3) for n in ("simple", "complex") for t in (1000, 2000, 4000, 8000) for d in (0, 50, 100)]
    ledger = ClaimsLedger(None, paper="thesis", model="m")
    t = needle_claims.check_h4(ledger, analysis.add_found(pd.DataFrame(rows)), window=8000)
    table = ledger.table().set_index("claim_id")
    assert t["late_rest_fail"] > 0.5 and table.loc["H4c", "verdict"] == INCONCLUSIVE
    assert table.loc["H4c", "evidence"].endswith(
        f"inconclusive here for that reason: the needle is found in only {1 - t['late_rest_fail']:.0%} of the other cells")
    assert needle_claims._too_few_found(0.2) == "" and needle_claims._too_few_found(float("nan")) == ""
