"""The thesis chapter (BAMBOO Full / RAG / Evidence): cleaning, prompts, scorers, statistics, patterns, ranking
distance and claims, on real data where it exists; then the chapter itself, executed (smoke profile).

Expected values come from the thesis inventory (``../shared/papers/thesis.md``) or are computed by hand here,
never from the chapter's code. Exact chunk and BM25 tests (Table 6.3) are in tests/text/test_chunking.py and
tests/retrieval/test_retrievers.py; the loader's parsing tests in tests/data/test_loaders.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from helpers import ROOT, fetched_data_dir, notebook_errors
from scipy.stats import binomtest

from lcrag.book.claims import INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTABLE, REPRODUCED, ClaimsLedger
from lcrag.metrics.multiple_choice import bamboo_eval_letter
from lcrag.papers.tables import paper_table
from lcrag.papers.thesis import accuracy, distance, numbers, patterns, pipelines, run_plan, solver, tables_6
from lcrag.papers.thesis import cases as thesis_cases
from lcrag.papers.thesis import claims as thesis_claims
from lcrag.papers.thesis import prompts as thesis_prompts
from lcrag.stats import bootstrap_ci, mcnemar_test, paired_bootstrap_ci

MQ_REMOVED = [5, 16, 21, 27, 31, 41, 58, 59, 62, 81, 82, 84, 85, 96, 97, 100]  # thesis Table 6.2
PQ_REMOVED = [
    2,
    7,
    9,
    12,
    19,
    20,
    34,
    41,
    43,
    45,
    52,
    53,
    54,
    55,
    59,
    60,
    61,
    66,
    68,
    72,
    74,
    75,
    78,
    79,
    89,
    90,
]


@pytest.fixture(scope="module", autouse=True)
def bamboo_data(mirror, tmp_path_factory):
    yield from fetched_data_dir(mirror, tmp_path_factory, ["bamboo"])


@pytest.fixture(scope="module")
def cases():
    return thesis_cases.load_cases(("meetingqa", "paperqa"), "4k")


# --------------------------------------------------------------------------- cleaning, real data


def test_cleaning_keeps_84_plus_74_and_removes_the_thesis_cases(cases):
    kept = cases[cases["kept"]]
    assert kept.groupby("task").size().to_dict() == {"meetingqa": 84, "paperqa": 74}
    removed = cases[~cases["kept"]]
    assert sorted(removed.loc[removed["task"] == "meetingqa", "case"]) == MQ_REMOVED
    assert sorted(removed.loc[removed["task"] == "paperqa", "case"]) == PQ_REMOVED
    mq5 = cases[(cases["task"] == "meetingqa") & (cases["case"] == 5)].iloc[0]
    assert mq5["removed"] == "duplicate of case 12"
    assert cases[(cases["task"] == "meetingqa") & (cases["case"] == 12)]["kept"].item()


def test_cleaning_table(cases):
    t = thesis_cases.cleaning_table(cases).set_index("task")
    assert t.loc["meetingqa", ["read", "unreadable", "not_4_options", "duplicates", "kept"]].tolist() == [
        100,
        0,
        15,
        1,
        84,
    ]
    assert t.loc["paperqa", ["read", "not_4_options", "duplicates", "kept"]].tolist() == [100, 26, 0, 74]
    assert t.loc["meetingqa", "removed_cases"] == " ".join(map(str, MQ_REMOVED))
    assert cases.attrs["reports"]["paperqa"].lenient == [53, 54]  # raw control characters: strict=False


def test_gt_letters_match_table_6_2_and_the_inventory(cases):
    kept = cases[cases["kept"]]
    assert kept[kept["task"] == "meetingqa"]["answer"].value_counts().to_dict() == {
        "C": 28,
        "A": 21,
        "B": 19,
        "D": 16,
    }
    assert kept[kept["task"] == "paperqa"]["answer"].value_counts().sort_index().to_dict() == {
        "A": 17,
        "B": 20,
        "C": 20,
        "D": 17,
    }
    q = kept.set_index(["task", "case"])
    assert q.loc[("meetingqa", 28), "answer"] == "C" and q.loc[("paperqa", 38), "answer"] == "C"


def test_later_duplicate_is_dropped_when_the_thesis_says_nothing():
    df = pd.DataFrame(
        {
            "case": [1, 2, 3, 4],
            "question": ["q", "q", "r", "q"],
            "answer": ["A", "A", "B", "A"],
            "options": [list("abcd"), list("abcd"), list("abc"), list("abce")],
            "task": "paperqa",
            "size": "16k",
        }
    )
    out = thesis_cases.clean_cases(df).set_index("case")
    assert out["removed"].to_dict() == {1: "", 2: "duplicate of case 1", 3: "3 options", 4: ""}
    assert out["kept"].tolist() == [True, False, False, True]


def test_stratified_subset_is_fixed_includes_the_named_cases_and_keeps_letters(cases):
    kept = cases[cases["kept"]]
    a = thesis_cases.stratified_subset(kept, 12, seed=0)
    b = thesis_cases.stratified_subset(kept, 12, seed=0)
    assert a[["task", "case"]].equals(b[["task", "case"]])
    assert a.groupby("task").size().to_dict() == {"meetingqa": 12, "paperqa": 12}
    mq = set(a.loc[a["task"] == "meetingqa", "case"])
    assert {28, 55, 4, 12, 3} <= mq and {38, 1} <= set(a.loc[a["task"] == "paperqa", "case"])
    counts = a[a["task"] == "meetingqa"]["answer"].value_counts()
    assert counts.max() - counts.min() <= 3  # 28/21/19/16 of 84 -> about 4/3/3/2 of 12
    assert thesis_cases.stratified_subset(kept, 2)["case"].tolist() == [28, 55, 1, 38]  # sorted by task, case
    assert len(thesis_cases.stratified_subset(kept, -1)) == 158


# --------------------------------------------------------------------------- prompts


def test_bamboo_prompt_full_is_unnumbered_and_rag_numbered():
    full = thesis_prompts.build_prompt("BAMBOO", "Q?", ["A. x", "B. y"], ["DOC"], setting="full")
    assert "Article: ```DOC```" in full and "n°" not in full
    assert (
        "Options: A. x\tB. y\n\nAnswer(Only give the corresponding letter (either A, B, C, or D)): " in full
    )
    rag = thesis_prompts.build_prompt("BAMBOO", "Q?", ["A. x", "B. y"], ["one"], setting="rag")
    assert "Article part n°1: ```one```" in rag
    thesis_style = thesis_prompts.bamboo_prompt("Q?", ["A. x", "B. y"], ["D"], options_format="thesis")
    assert 'Options: "A. x", "B. y"' in thesis_style
    with pytest.raises(ValueError, match="options_format"):
        thesis_prompts.format_options(["A. x"], "commas")


def test_bamboo_prompt_is_the_one_the_quickstart_store_holds():
    # the quickstart's recorded requests depend on this exact text (BAMBOO's prompt.json, "responsing" kept)
    p = thesis_prompts.bamboo_prompt("Q", ["A. a", "B. b"], ["x"])
    assert p.startswith(
        "You are given an article or a long dialogue, a multiple-choice question with four optional "
        "answer(marked by A, B, C, D). Please choose the best answer to the question based on the "
        "given content by responsing its corresponding letter"
    )
    assert p == thesis_prompts.bamboo_prompt("Q", ["A. a", "B. b"], ["x"], numbered=False)


def test_ctx1_prompt_verbatim_pieces():
    p = thesis_prompts.build_prompt("CTX1", "Why?", ["A. a", "B. b", "C. c", "D. d"], ["p1", "p2"])
    assert p.startswith(
        "Your task is to read a paper or an interview between people, after which a question with "
        "several choice is given, please answer to the best of your ability by a giving the letter"
    )
    assert 'Third, the choices follow AFTER the disclaimer "CHOICES HERE:".' in p
    assert "CONTENT HERE:\n\nPart n°1: ```p1```\n\nPart n°2: ```p2```\n\nQUESTION HERE:\n\nWhy?\n\n" in p
    assert "CHOICES HERE:\n\nA. a\n\nB. b\n\nC. c\n\nD. d\n\n" in p
    assert p.endswith("ANSWER HERE (Only give the corresponding letter (either A, B, C, or D)) :")


def test_ctx2_prompt_lists_the_choices_twice_and_uses_separators():
    p = thesis_prompts.build_prompt("CTX2", "Why?", ["A. a", "B. b"], ["p1"])
    assert p.startswith("Act as a helpful assistant, a question is provided and you must respond")
    assert p.count("The answer MUST be the LETTER of the choice you have picked") == 2
    assert "#####\n#####\nWhy?\n\n#####\n#####" in p
    assert "#####\n#####\n\nA. a\n\nB. b\n\n#####" in p  # first list: one option per paragraph
    assert "#####\n#####\n\nA. a\nB. b\n\n#####" in p  # second list: '\n'.join(choices)
    assert "Article part n°1: ```p1```" in p
    assert p.endswith("What is the answer? (Only give the corresponding letter (either A, B, C, or D))")


def test_custom_and_unknown_prompts():
    p = thesis_prompts.build_prompt(
        "MINE", "Q", ["A. a"], ["x", "y"], builders={"MINE": lambda q, o, parts: "|".join(parts)}
    )
    assert p == "x|y"
    with pytest.raises(ValueError, match="unknown prompt 'CTX3'"):
        thesis_prompts.build_prompt("CTX3", "Q", ["A. a"], ["x"])


def test_parse_pipeline():
    assert pipelines.parse_pipeline("cqt") == pipelines.Pipeline("CQT", "cosine", "question", "text")
    assert pipelines.parse_pipeline("BES") == pipelines.Pipeline("BES", "bm25", "evidence", "semantic")
    assert pipelines.parse_pipeline("NQT").ranker == "naive" and pipelines.parse_pipeline("SQT").ranker == "svm"
    with pytest.raises(ValueError, match="ranker C/B/S/N"):
        pipelines.parse_pipeline("XQT")


def test_plan_has_one_row_per_request_without_duplicates(cases):
    kept = cases[cases["kept"]]
    main, grid = thesis_cases.first_cases(kept, 3), thesis_cases.stratified_subset(kept, 2)
    plan = run_plan.plan_runs(
        main,
        grid,
        grid_pipelines=["CQT", "BET"],
        grid_prompts=["BAMBOO", "CTX1"],
        extra_full=cases[~cases["kept"]].head(2),
    )
    assert not plan.duplicated().any()
    # main: 6 cases x 3 runs; grid: 4 cases x 2 prompts x 4 runs; extra: 2; PaperQA case 1 is in main and grid,
    # so its Full, Evidence and CQT under BAMBOO are asked once
    assert len(plan) == 6 * 3 + 4 * 2 * 4 + 2 - 3
    assert set(plan.loc[plan["setting"] != "rag", "pipeline"]) == {numbers.NO_PIPELINE}


def test_retrieve_and_build_prompts_bm25_on_real_cases(cases):
    kept = cases[cases["kept"]]
    one = kept[(kept["task"] == "meetingqa") & (kept["case"] == 3)]
    r = pipelines.retrieve(one, ["BET", "BQT"])
    bet = r.set_index("pipeline").loc["BET"]
    assert bet["chunks"] == [5, 11, 6, 1, 26]  # Table 6.3, case 3, BM25 row
    assert bet["n_chunks"] == 38 and bet["evidence_recall"] == 1.0  # chunk 5 holds the evidence verbatim
    plan = run_plan.plan_runs(one, main_pipelines=["BET"])
    req = run_plan.build_prompts(plan, cases, r).set_index("setting")
    assert req.loc["rag", "chunks"] == [5, 11, 6, 1, 26]
    assert req.loc["evidence", "prompt_text"].count(one["evidence"].item()) == 1
    assert req.loc["full", "context_chars"] == len(one["content"].item())
    assert req.loc["rag", "prompt_text"].index("Article part n°1: ```" + bet["parts"][0][:30]) > 0


# --------------------------------------------------------------------------- scorers and statistics


@pytest.mark.parametrize(
    ("answer", "letter"),
    [
        ("B", "B"),
        (" c. text", "C"),
        ("Answer: B", "A"),
        ("based on the text, D", "B"),
        ("\n\nD\nmore", "D"),
        ("The answer is B", None),
        ("", None),
        (None, None),
        ("[A]", None),
    ],
)
def test_bamboo_eval_letter_is_evaluate_py(answer, letter):
    assert bamboo_eval_letter(answer) == letter


def test_score_reads_three_ways_and_counts_refusals():
    df = pd.DataFrame(
        {
            "answer": ["B", "B", "C", "A"],
            "response": ["The answer is B", "B.", "None of the options", "xyz"],
            "pred_logprob": ["B", None, "C", "D"],
        }
    )
    s = solver.score(df)
    assert s["pred_raw"].fillna("-").tolist() == ["-", "B", "-", "-"]
    assert s["pred_lenient"].fillna("-").tolist() == ["B", "B", "-", "-"]
    assert s["correct"].tolist() == [True, True, False, False]
    assert s["correct_logprob"].tolist() == [True, False, True, False]
    assert s["status"].tolist() == ["letter", "letter", "refusal", "unparseable"]


def test_bootstrap_intervals():
    x = np.array([1] * 30 + [0] * 10)
    lo, hi = bootstrap_ci(x, n_boot=2000, seed=0)
    assert lo < 0.75 < hi and 0.55 < lo and hi < 0.9
    assert bootstrap_ci(x, seed=0) == bootstrap_ci(x, seed=0)
    assert bootstrap_ci(np.ones(5)) == pytest.approx((0.025 ** (1 / 5), 1.0))  # 5 of 5: Clopper-Pearson's
    assert all(np.isnan(bootstrap_ci([])))
    w = 1 - 0.025 ** (1 / 4)  # two runs that agree on all 4 cases: up to 60 % of cases could still differ
    assert paired_bootstrap_ci([1, 1, 1, 0], [1, 1, 1, 0]) == pytest.approx((-w, w))
    with pytest.raises(ValueError, match="same length"):
        paired_bootstrap_ci([1, 0], [1])


def test_mcnemar_exact_by_hand():
    a = np.array([1] * 10 + [0] * 2 + [1] * 20 + [0] * 5, dtype=bool)
    b = np.array([0] * 10 + [1] * 2 + [1] * 20 + [0] * 5, dtype=bool)
    m = mcnemar_test(a, b)
    assert (m["a_only"], m["b_only"], m["n"]) == (10, 2, 37)
    assert m["p_value"] == pytest.approx(binomtest(10, 12, 0.5).pvalue) == pytest.approx(0.03857, abs=1e-4)
    assert m["chi2"] == pytest.approx(49 / 12)
    assert mcnemar_test([True, False], [True, False])["p_value"] == 1.0


# --------------------------------------------------------------------------- ranking distance


def test_ranking_distance_by_hand():
    assert distance.ranking_distance([3, 7, 1], [3, 7, 1], 10, 0.05) == 0.0
    # A = [1, 2], B = [2, 1], m = 11. Identity pairing: each term (1 - a) * 1/10; swapped: each a * 1/1.
    assert distance.ranking_distance([1, 2], [2, 1], 11, 0.5) == pytest.approx(0.05)  # identity: 0.5 * 0.1
    assert distance.ranking_distance([1, 2], [2, 1], 11, 0.05) == pytest.approx(0.05)  # swap: 0.05 * 1
    assert distance.ranking_distance([1, 2], [2, 1], 11, 0.9) == pytest.approx(0.01)  # identity: 0.1 * 0.1
    assert distance.ranking_distance([1], [11], 11, 0.3) == pytest.approx(0.7)
    assert distance.ranking_distance([1], [1], 1, 0.5) == 0.0  # one chunk: no division by zero
    with pytest.raises(ValueError, match="same length"):
        distance.ranking_distance([1, 2], [1], 5, 0.5)


def test_distance_study_bm25_with_evidence_is_the_target(cases):
    kept = cases[cases["kept"]]
    d = distance.distance_study(thesis_cases.first_cases(kept, 2), rankers=("bm25", "naive"))
    assert len(d) == 4 * 2 * 2 * 2 * 2  # cases x queries x rankers x k x alpha
    assert d[(d["ranker"] == "bm25") & (d["query"] == "evidence")]["distance"].eq(0).all()
    assert (d[d["query"] == "question"]["distance"] > 0).any()
    s = distance.distance_summary(d)
    assert set(s.columns) >= {"median", "iqr", "n"} and s["n"].eq(4).all()


def test_the_cached_distance_study_is_the_study_and_a_second_run_reads_it(cases, monkeypatch):
    first = thesis_cases.first_cases(cases[cases["kept"]], 1)
    params = {"rankers": ("bm25", "naive"), "chunk_size": 512, "chunk_overlap": 50}
    direct = distance.distance_study(first, **params)
    pd.testing.assert_frame_equal(distance.cached_distance_study(first, **params), direct)
    monkeypatch.setattr(distance, "distance_study", lambda *a, **k: pytest.fail("computed again"))
    pd.testing.assert_frame_equal(distance.cached_distance_study(first, **params), direct)
    with pytest.raises(pytest.fail.Exception, match="computed again"):  # other parameters: another table
        distance.cached_distance_study(first, **{**params, "chunk_size": 256})


# --------------------------------------------------------------------------- patterns and claims


def thesis_shaped(counts: dict[str, int] = numbers.THESIS_FIG_6_3, raw_wrong: int = 8) -> pd.DataFrame:
    """A scored table whose Full / RAG(CQT) / Evidence correctness reproduces ``counts`` (BAMBOO prompt)."""
    rows, case = [], 0
    for pattern, n in counts.items():
        for _ in range(n):
            case += 1
            task = "meetingqa" if case <= 84 else "paperqa"
            for setting, pipeline, ok in (
                ("full", "-", pattern[0] == "F"),
                ("rag", "CQT", pattern[1] == "R"),
                ("evidence", "-", pattern[2] == "E"),
            ):
                rows.append(
                    {
                        "task": task,
                        "case": case,
                        "setting": setting,
                        "pipeline": pipeline,
                        "prompt": "BAMBOO",
                        "kept": True,
                        "answer": "A",
                        "correct": ok,
                        "correct_raw": ok and not (setting == "full" and case <= raw_wrong),
                        "correct_logprob": False,
                        "pred_logprob": None,
                        "pred_lenient": "A" if ok else "B",
                        "status": "letter",
                        "prompt_tokens": 3000 if setting == "full" else 700,
                        "completion_tokens": 2,
                        "context_chars": 12000 if setting == "full" else 2500,
                        "truncated": False,
                    }
                )
    return pd.DataFrame(rows)


def test_fig_6_3_counts_give_the_thesis_accuracies():
    assert sum(numbers.THESIS_FIG_6_3.values()) == 158
    acc = accuracy.accuracy_table(thesis_shaped()).set_index("run")
    assert acc.loc["Full", "correct"] == 129 and acc.loc["RAG CQT", "correct"] == 119
    assert acc.loc["Evidence", "correct"] == 143
    assert 100 * acc.loc["Evidence", "accuracy"] == pytest.approx(90.51, abs=0.01)


def test_patterns_and_counts_round_trip():
    pats = patterns.patterns(thesis_shaped())
    counts = patterns.pattern_counts(pats).set_index("pattern")["count"].to_dict()
    assert counts == numbers.THESIS_FIG_6_3
    assert list(patterns.pattern_counts(pats)["pattern"]) == list(numbers.PATTERNS)


def test_fe_grid_and_jaccard():
    pats = pd.DataFrame(
        {
            "task": ["meetingqa"] * 6,
            "case": [28, 28, 7, 7, 9, 9],
            "pipeline": ["CQT"] * 6,
            "prompt": ["BAMBOO", "CTX1"] * 3,
            "pattern": ["F-E", "F-E", "F-E", "FRE", "FRE", "FRE"],
            "full": True,
            "rag": False,
            "evidence": True,
        }
    )
    grid = patterns.fe_grid(pats)
    assert list(grid.index) == ["meetingqa 7", "meetingqa 28"] or set(grid.index) == {
        "meetingqa 7",
        "meetingqa 28",
    }
    assert list(grid.columns) == ["CQT / BAMBOO", "CQT / CTX1"]
    assert grid.loc["meetingqa 28"].tolist() == [1, 1] and grid.loc["meetingqa 7"].tolist() == [1, 0]
    jac = patterns.fe_jaccard(pats).iloc[0]
    assert (jac["n_a"], jac["n_b"], jac["shared"], jac["jaccard"]) == (2, 1, 1, 0.5)
    one_prompt = patterns.fe_jaccard(pats[pats["prompt"] == pats["prompt"].iloc[0]])
    assert one_prompt.empty and list(one_prompt.columns) == list(patterns.FE_JACCARD_COLUMNS)


def test_table_6_2_with_the_thesis_answers(cases):
    kept = cases[cases["kept"]]
    mq = kept[kept["task"] == "meetingqa"]
    preds = [numbers.THESIS_TABLE_6_2_WRONG.get(c, a) for c, a in zip(mq["case"], mq["answer"], strict=True)]
    scored = pd.DataFrame(
        {
            "task": "meetingqa",
            "case": mq["case"],
            "setting": "rag",
            "pipeline": "CQT",
            "prompt": "BAMBOO",
            "pred_lenient": preds,
        }
    )
    t = tables_6.table_6_2(scored, cases)
    assert len(t) == 100 and (t["gt"] == "-").sum() == 16
    asked = t[t["gt"] != "-"]
    assert int(asked["paper_correct"].sum()) == 65 and (asked["ours"] == asked["paper_answer"]).all()
    assert t.set_index("case").loc[55, "ours"] == "None"
    assert tables_6.table_6_2_wide(t).shape == (25, 16)


def test_claims_on_the_thesis_own_counts():
    """The thesis's own Fig. 6.3 counts decide neither H2 nor H8 on intervals (158 cases are too few for a 3 pp band
    or a 5 pp threshold at +8.86 pp); Full > RAG(CQT) is not significant on them (H7)."""
    ledger = ClaimsLedger("thesis", paper="thesis", model="gpt-3.5-turbo-0125 (synthetic)")
    t = thesis_claims.check_claims(ledger, thesis_shaped(), n_boot=2000).set_index("claim_id")
    assert t.loc["H2", "verdict"] == INCONCLUSIVE  # 129/158: Wilson [74.9, 86.9] reaches out of 81.65 ± 3
    assert t.loc["H8", "verdict"] == INCONCLUSIVE  # +8.86 pp, its interval reaches below +5 pp
    assert t.loc["H7", "verdict"] == INCONCLUSIVE  # F - R = 6.3 pp, 20 vs 10 discordant: McNemar p = 0.10
    assert t.loc["H3", "verdict"] == NOT_TESTABLE  # no CTX1 / CTX2 runs
    assert "H4" not in t.index


def test_claims_fail_when_rag_wins():
    flipped = dict(numbers.THESIS_FIG_6_3)
    flipped["F-E"], flipped["-RE"], flipped["FRE"] = 2, 50, 82  # still 158 cases
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), thesis_shaped(flipped)).set_index(
        "claim_id"
    )
    assert t.loc["H7", "verdict"] == NOT_REPRODUCED
    assert t.loc["H2", "verdict"] == NOT_REPRODUCED


def test_h15_similar_accuracy_is_an_equivalence_test():
    """H15: RAG sends a quarter of Full's tokens or less at similar accuracy, "similar" meaning the 95 % interval of
    Full - RAG lies below +2 pp (the inventory's "within about 2 pp"); a point difference under 2 pp is not
    enough."""
    def h15(counts, ratio):
        scored = thesis_shaped(counts)
        rag = scored["setting"] == "rag"
        scored["prompt_tokens"] = np.where(rag, 3000 / ratio, 3000.0)  # Full: 3000 tokens on every case
        t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), scored, n_boot=2000)
        return t.set_index("claim_id").loc["H15"]

    assert h15(numbers.THESIS_FIG_6_3, 5.0)["verdict"] == INCONCLUSIVE  # Full - RAG = +6.3 pp [+1.3, +11.4]
    flipped = dict(numbers.THESIS_FIG_6_3)
    flipped["F-E"], flipped["-RE"], flipped["FRE"] = 2, 50, 82  # RAG ahead
    assert h15(flipped, 5.0)["verdict"] == REPRODUCED  # the interval of Full - RAG lies below +2 pp
    assert h15(flipped, 3.0)["verdict"] == NOT_REPRODUCED  # a third of the tokens: not the claimed saving
    assert accuracy.within_margin((0.01, 0.11), 0.02) is None
    assert accuracy.within_margin((0.03, 0.11), 0.02) is False


def test_h15_decides_the_token_ratio_on_its_interval():
    """"At least 4 times fewer tokens": per-case ratios of 3 and 5.2 average 4.1, but their interval reaches below 4."""
    flipped = dict(numbers.THESIS_FIG_6_3)
    flipped["F-E"], flipped["-RE"], flipped["FRE"] = 2, 50, 82  # RAG ahead: similar accuracy holds
    scored = thesis_shaped(flipped)
    rag = (scored["setting"] == "rag").to_numpy()
    cycle = np.resize([1000.0, 3000 / 5.2], len(scored))  # alternate cases: ratio 3, ratio 5.2
    scored["prompt_tokens"] = np.where(rag, cycle, 3000.0)
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), scored, n_boot=2000)
    h15 = t.set_index("claim_id").loc["H15"]
    assert h15["verdict"] == INCONCLUSIVE and "× 4.1 [" in h15["our_value"]


def test_h1_levels_are_decided_on_wilson_intervals():
    """H1, within 5 pp of 77 / 75 %: MeetingQA 53/84 (Wilson [52.4, 72.6]) and PaperQA 45/74 ([49.4, 71.1]) reach the band:
    inconclusive, not "not reproduced"; 24/84 lies wholly below it: not reproduced."""
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), thesis_shaped(raw_wrong=31),
                                   n_boot=500).set_index("claim_id")
    assert t.loc["H1", "verdict"] == INCONCLUSIVE
    assert t.loc["H1", "our_value"] == "63.10% [52.4, 72.6] / 60.81% [49.4, 71.1]"
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), thesis_shaped(raw_wrong=60),
                                   n_boot=500).set_index("claim_id")
    assert t.loc["H1", "verdict"] == NOT_REPRODUCED


def test_h8_is_reproduced_only_when_the_whole_interval_clears_5_pp():
    wide_gap = {"FRE": 100, "--E": 40, "---": 18}  # Evidence 140, Full 100 of 158: +25 pp
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), thesis_shaped(wide_gap),
                                   n_boot=2000).set_index("claim_id")
    assert t.loc["H8", "verdict"] == REPRODUCED and t.loc["H8", "our_value"].startswith("+25.32 pp [+")


def _h13_scored(case28_under_ctx2: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """MeetingQA cases 21-40 under three prompts, Full and Evidence right everywhere; RAG CQT wrong (F-E) on cases
    28 and 22 (BAMBOO), 28 and 30 (CTX1), 33 and 35 (CTX2), and 28 under CTX2 too if ``case28_under_ctx2``."""
    base = thesis_shaped()  # cases 1-108 are FRE under BAMBOO
    grid_cases = pd.DataFrame({"task": "meetingqa", "case": range(21, 41)})
    wrong = {"BAMBOO": {28, 22}, "CTX1": {28, 30}, "CTX2": {33, 35} | ({28} if case28_under_ctx2 else set())}
    bam_cqt = (base["setting"] == "rag") & (base["prompt"] == "BAMBOO") & base["case"].isin(wrong["BAMBOO"])
    base.loc[bam_cqt, ["correct", "correct_raw"]] = False
    template = base.iloc[0].to_dict()
    rows = [{**template, "task": "meetingqa", "case": c, "setting": st, "pipeline": pl, "prompt": q,
             "correct": ok, "correct_raw": ok}
            for q in ("CTX1", "CTX2") for c in range(21, 41)
            for st, pl, ok in (("full", "-", True), ("evidence", "-", True), ("rag", "CQT", c not in wrong[q]))]
    return pd.concat([base, pd.DataFrame(rows)], ignore_index=True), grid_cases


def test_h13_needs_case_28_f_e_under_every_prompt():
    """Case 28 F-E under BAMBOO and CTX1 but not CTX2 (twice F-E, as fe_grid.csv showed): not reproduced; F-E under
    all three: reproduced (the F-E sets overlap little in both)."""
    scored, grid_cases = _h13_scored(case28_under_ctx2=False)
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), scored, grid_cases=grid_cases,
                                   n_boot=500).set_index("claim_id")
    assert t.loc["H13", "verdict"] == NOT_REPRODUCED
    assert "case 28 F-E under BAMBOO 1/1, CTX1 1/1, CTX2 0/1 pipelines" in t.loc["H13", "our_value"]
    scored, grid_cases = _h13_scored(case28_under_ctx2=True)
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), scored, grid_cases=grid_cases,
                                   n_boot=500).set_index("claim_id")
    assert t.loc["H13", "verdict"] == REPRODUCED
    assert t.loc["H13", "our_value"].endswith("F-E under every prompt: meetingqa 28")


def test_claims_on_runs_that_did_not_run_are_not_testable_and_name_them():
    """Full, Evidence and CQT under BAMBOO only (the companion profile: no grid subset): the claims on other
    pipelines and prompts are *not testable*, naming the missing runs, not *inconclusive* on n = 0; those on the
    three runs keep their verdicts."""
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), thesis_shaped(),
                                   n_boot=200).set_index("claim_id")
    assert t.loc["H9", "verdict"] == NOT_TESTABLE
    assert t.loc["H9", "evidence"].endswith("not run: RAG CQS BAMBOO on these cases")
    assert t.loc["H3", "evidence"].endswith("not run: Full CTX1, Full CTX2 on these cases")
    assert t.loc["H13", "evidence"].endswith("not run: one prompt only on these cases (BAMBOO)")
    for claim in ("H10", "H11", "H12"):
        assert t.loc[claim, "verdict"] == NOT_TESTABLE and "on these cases" in t.loc[claim, "evidence"] and "not run: " in t.loc[claim, "evidence"]
    assert t.loc["H8", "verdict"] != NOT_TESTABLE and "not run" not in t.loc["H8", "evidence"]


def test_claims_without_a_language_model_have_no_model_as_their_source():
    """H6, H6b, H14 and H16 use BM25, the word count and MiniLM only: model and source "no model", whatever
    generator the chapter ran; the others are our run of that generator."""
    from lcrag.book.verdicts import NO_MODEL, OUR_RUN

    t63 = pd.DataFrame({"case": [1, 2, 3, 1, 3], "ranker": ["bm25", "bm25", "bm25", "cosine", "cosine"],
                        "exact": True, "top2": True, "chunk11_top3": [None, None, True, None, True],
                        "embedder": "local/all-minilm-l6-v2"})
    sanity = pd.DataFrame({"a": ["x", "x"], "b": ["y", "z"], "paper_cosine": [0.9226, 0.9185], "ours": [0.84, 0.81],
                           "embedder": "local/all-minilm-l6-v2"})
    rng = np.random.default_rng(0)
    dist = pd.DataFrame([{"task": "meetingqa", "case": c, "query": "question", "ranker": r, "k": k, "alpha": a,
                          "distance": rng.uniform(0, 0.3)}
                         for c in range(30) for r in ("cosine", "svm", "bm25", "naive") for k in (5, 10)
                         for a in (0.05, 0.5)])
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="local/qwen2.5-coder-1.5b-instruct"),
                                   thesis_shaped(), t63=t63, sanity=sanity, distances=dist, n_boot=200)
    t = t.set_index("claim_id")
    no_model = ["H6", "H6b", "H14", "H16"]
    assert (t.loc[no_model, "model"] == NO_MODEL).all() and (t.loc[no_model, "source"] == NO_MODEL).all()
    others = t.drop(index=no_model)
    assert (others["model"] == "local/qwen2.5-coder-1.5b-instruct").all() and (others["source"] == OUR_RUN).all()


def test_table_6_1_names_the_papers_values_and_their_cases():
    """The thesis's values sit in ``paper_`` columns; on the grid rows they are the whole-set values (77.00 for
    MeetingQA under BAMBOO), which ``paper_cases`` says."""
    scored = thesis_shaped()
    t = tables_6.table_6_1(scored, scored.drop_duplicates("case")[["task", "case"]].head(40))
    assert "thesis" not in t.columns and {"paper_accuracy", "paper_cases"} <= set(t.columns)
    row = t[(t["cases"] == "grid") & (t["task"] == "meetingqa")].iloc[0]
    assert (row["n"], row["paper_accuracy"], row["paper_cases"]) == (40, 77.0, "kept")


def test_claims_on_arms_at_chance_are_not_testable():
    """Every arm at 40/158 (chance is 1/4): the comparisons say nothing about the claims, whatever they give."""
    at_chance = {"FRE": 5, "F--": 35, "-R-": 35, "--E": 35, "---": 48}
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), thesis_shaped(at_chance)).set_index(
        "claim_id"
    )
    for claim in ("H1", "H2", "H7", "H8"):  # (H5 is MeetingQA alone, where RAG has 40 of 84 here)
        assert t.loc[claim, "verdict"] == NOT_TESTABLE, claim
    assert "at the floor: Evidence BAMBOO: accuracy 0.25 of 158, interval contains chance 0.25; Full BAMBOO" in (
        t.loc["H8", "evidence"])
    # only RAG at chance: the claims that compare it are not testable, Evidence vs Full is (and fails: no gain)
    rag_at_chance = {"F-E": 110, "FRE": 40, "---": 8}
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), thesis_shaped(rag_at_chance)).set_index(
        "claim_id"
    )
    assert t.loc["H7", "verdict"] == NOT_TESTABLE and "RAG CQT BAMBOO" in t.loc["H7", "evidence"]
    assert t.loc["H8", "verdict"] == NOT_REPRODUCED and "at the floor" not in t.loc["H8", "evidence"]


def _with_grid(base: pd.DataFrame, runs: dict[tuple[str, str, str], list[bool]]) -> pd.DataFrame:
    """``base`` plus grid runs ``(setting, pipeline, prompt) -> correctness`` on its first cases, in case order."""
    cases = base.drop_duplicates("case")[["task", "case"]].reset_index(drop=True)
    template = base.iloc[0].to_dict()
    rows = [{**template, "task": cases.loc[i, "task"], "case": cases.loc[i, "case"], "setting": st, "pipeline": pl,
             "prompt": pr, "correct": ok, "correct_raw": ok} for (st, pl, pr), oks in runs.items()
            for i, ok in enumerate(oks)]
    return pd.concat([base, pd.DataFrame(rows)], ignore_index=True)


def test_grid_claims_are_decided_by_intervals_not_point_values():
    """H3 and H12 on a 40-case grid: a clear ordering is decided, a point difference inside the noise is not."""
    base = thesis_shaped()
    grid_cases = base.drop_duplicates("case")[["task", "case"]].head(40)
    bam = [c for c, _ in zip(base.drop_duplicates("case")["case"], range(40), strict=False)]
    full_bam = base[(base["setting"] == "full") & base["case"].isin(bam)].sort_values("case")["correct"].tolist()
    half = [True] * 20 + [False] * 20  # no arm at the floor (chance is 1/4)
    clear = _with_grid(base, {("full", "-", "CTX1"): full_bam, ("full", "-", "CTX2"): [True] * 24 + [False] * 16,
                              ("rag", "CQS", "CTX1"): half, ("rag", "CQT", "CTX1"): half,
                              ("rag", "CQS", "CTX2"): [True] * 32 + [False] * 8, ("rag", "CQT", "CTX2"): half})
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), clear, grid_cases=grid_cases,
                                   n_boot=500).set_index("claim_id")
    assert t.loc["H3", "verdict"] == "reproduced" and "BAMBOO − CTX2" in t.loc["H3", "our_value"]
    assert all(full_bam) and t.loc["H12", "verdict"] == "reproduced"
    assert "difference +30.00 pp" in t.loc["H12", "our_value"]
    # the same kind of point ordering by a few cases: inside the interval, so inconclusive
    noisy = _with_grid(base, {("full", "-", "CTX1"): full_bam, ("full", "-", "CTX2"): full_bam[:-2] + [False] * 2,
                              ("rag", "CQS", "CTX1"): half, ("rag", "CQT", "CTX1"): half,
                              ("rag", "CQS", "CTX2"): [True] * 22 + [False] * 18, ("rag", "CQT", "CTX2"): half})
    t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), noisy, grid_cases=grid_cases,
                                   n_boot=500).set_index("claim_id")
    assert t.loc["H3", "verdict"] in ("inconclusive", "not reproduced")  # spread < 5 pp refutes it, or no decision
    assert t.loc["H12", "verdict"] == "inconclusive" and "difference +5.00 pp" in t.loc["H12", "our_value"]


def test_an_interaction_is_the_mean_per_case_difference_of_differences():
    base = thesis_shaped()
    g = _with_grid(base, {("rag", "A", "P"): [True, True, False, False], ("rag", "B", "P"): [False, True, False, True],
                          ("rag", "A", "Q"): [True, False, False, False], ("rag", "B", "Q"): [True, False, False, False]})
    d = accuracy.interaction_difference(g, ("rag", "A", "P"), ("rag", "B", "P"), ("rag", "A", "Q"), ("rag", "B", "Q"),
                                        n_boot=200, seed=0)
    assert d["n"] == 4 and d["diff"] == pytest.approx(0.0) and d["ci"][0] < 0 < d["ci"][1]
    assert accuracy.all_of(True, None) is None and accuracy.all_of(True, False, None) is False
    assert accuracy.all_of(True, True) is True
    assert accuracy.all_of(np.float64(0.05) <= 3 / 158, True) is False  # a numpy bool counts
    # "F-E nearly gone (at most 3 of 158)": 2 of 40 cannot show it, 40 of 158 refutes it, 0 of 500 shows it
    share = thesis_claims._share_at_most
    assert share(pd.DataFrame({"count": [2, 1], "n": [40, 40]}), 3 / 158) is None
    assert share(pd.DataFrame({"count": [40], "n": [158]}), 3 / 158) is False
    assert share(pd.DataFrame({"count": [0], "n": [500]}), 3 / 158) is True
    # "F-E is RAG's largest failure region": decided by an exact test against the next largest pattern
    largest = thesis_claims._largest
    fig = numbers.THESIS_FIG_6_3
    # the thesis's own counts, F-E 16 against --- 10, do not show it either (p = 0.16)
    assert largest(pd.Series({p: fig[p] for p in ("F-E", "F--", "--E", "---")}), "F-E") is None
    assert largest(pd.Series({"F-E": 21, "F--": 3, "--E": 10, "---": 32}), "F-E") is None  # 32 vs 21: p = 0.08
    assert largest(pd.Series({"F-E": 30, "F--": 3, "--E": 10, "---": 5}), "F-E") is True
    assert largest(pd.Series({"F-E": 5, "F--": 3, "--E": 10, "---": 32}), "F-E") is False


def test_paired_tests_from_the_thesis_counts():
    t = patterns.paired_from_patterns(numbers.THESIS_FIG_6_3).set_index("comparison")
    # Full right / RAG wrong: F-E + F-- = 20; RAG right / Full wrong: -RE + -R- = 10
    assert (t.loc["Full vs RAG", "a_only"], t.loc["Full vs RAG", "b_only"]) == (20, 10)
    assert t.loc["Full vs RAG", "mcnemar_p"] == pytest.approx(binomtest(20, 30).pvalue)
    assert t.loc["Full vs RAG", "diff"] == pytest.approx(10 / 158)
    assert (t.loc["Evidence vs Full", "a_only"], t.loc["Evidence vs Full", "b_only"]) == (19, 5)
    assert (t.loc["Evidence vs RAG", "a_only"], t.loc["Evidence vs RAG", "b_only"]) == (25, 1)
    assert t.loc["Evidence vs Full", "ci_low"] > 0
    lines = patterns.paired_sentences(t.reset_index().assign(source="thesis")).splitlines()
    assert lines[0].startswith("thesis, Full vs RAG: +6.3 points [") and lines[0].endswith(
        "20 against 10 discordant cases, McNemar p = 0.099"
    )
    assert "(excludes 0)" in lines[1] and "19 against 5" in lines[1]
    assert lines[2].endswith("25 against 1 discordant cases, McNemar p < 0.001")


def test_at_least_is_decided_on_the_whole_interval():
    """H8's case: +8.23 pp [+3.2, +13.9] against "at least 5 pp" crosses the threshold: inconclusive, not reproduced
    on its point value."""
    assert accuracy.at_least(0.0823, (0.032, 0.139), 0.05) is None
    assert accuracy.at_least(0.09, (0.06, 0.15), 0.05) is True
    assert accuracy.at_least(0.01, (-0.02, 0.04), 0.05) is False
    assert accuracy.at_least(0.06, (-0.01, 0.12), 0.05) is None


def test_interval_in_decides_a_band_only_on_the_whole_interval():
    assert accuracy.interval_in((0.73, 0.80), 0.72, 0.82) is True
    assert accuracy.interval_in((0.524, 0.726), 0.72, 0.82) is None  # MeetingQA 53/84 against 77 ± 5
    assert accuracy.interval_in((0.50, 0.71), 0.72, 0.82) is False
    assert accuracy.interval_in((0.83, 0.90), 0.72, 0.82) is False
    assert accuracy.interval_in((float("nan"), 0.5), 0.1) is None
    assert accuracy.proportion_in(53, 84, 0.72, 0.82) is None and accuracy.proportion_in(24, 84, 0.72, 0.82) is False


# --------------------------------------------------------------------------- the thesis's tables, as data

THESIS_TABLES = ("table_6_1", "table_6_2", "table_6_3", "fig_6_3", "accuracy_text", "embedding_sanity", "prices")


@pytest.mark.parametrize("name", THESIS_TABLES)
def test_every_thesis_table_says_where_each_value_was_printed(name):
    t = paper_table("thesis", name)
    assert len(t) and (t["source"].str.len() > 0).all()


def test_table_6_1_reads_back_as_printed():
    t = paper_table("thesis", "table_6_1").set_index(["row", "prompt"])
    assert t.loc[("clean & parsed", "CTX1"), "meetingqa"] == "83.33"
    assert t.loc[("clean & parsed", "CTX2"), "paperqa"] == "77.02"
    assert t.loc[("original & raw", "CTX1"), "paperqa"] == "-"  # printed "-": not generated
    assert numbers.THESIS_TABLE_6_1[("original & raw", "BAMBOO")] == (75.0, 78.0, None)
    assert numbers.THESIS_TABLE_6_1[("clean & parsed", "CTX1")] == (83.33, 85.13, 84.18)


def test_table_6_2_reads_back_the_removed_and_the_19_wrong_cases():
    t = paper_table("thesis", "table_6_2")
    assert list(t["case"]) == list(range(1, 101))
    assert list(t.loc[t["gt"] == "-", "case"]) == MQ_REMOVED
    wrong = numbers.THESIS_TABLE_6_2_WRONG
    assert len(wrong) == 19 and wrong[55] is None and wrong[28] == "A" and wrong[99] == "B"


def test_the_text_accuracies_agree_with_their_counts():
    """65/84 = 77.38 % (§6.3); Fig. 6.3's counts give Full 129, RAG 119, Evidence 143 of 158 (§6.5)."""
    assert round(100 * 65 / 84, 2) == numbers.THESIS_CQT_MEETINGQA == 77.38
    assert numbers.THESIS_ACCURACY == {"full": 81.65, "rag": 75.32, "evidence": 90.51}
    assert numbers.THESIS_REPRODUCTION_RAW == {"meetingqa": 77.0, "paperqa": 75.0}
    for setting, correct in {"full": 129, "rag": 119, "evidence": 143}.items():
        assert round(100 * correct / 158, 2) == numbers.THESIS_ACCURACY[setting]


def test_table_6_3_sanity_and_prices_read_back():
    assert numbers.THESIS_TABLE_6_3[3]["bm25"] == [5, 11, 6, 1, 26]
    assert numbers.THESIS_TABLE_6_3[2]["svm"] == [10, 11, 4, 6, 7]
    assert list(numbers.THESIS_TABLE_6_3[1]) == ["bm25", "cosine", "naive", "svm"]
    assert numbers.THESIS_SANITY[("I like potatoes", "I don't hate potatoes")] == 0.9185
    assert numbers.GPT35_USD_PER_M == {"input": 0.5, "output": 1.5}
    assert numbers.THESIS_FIG_6_3["F-E"] == 16 and numbers.THESIS_FIG_6_3["---"] == 10


# --------------------------------------------------------------------------- the chapter, executed


@pytest.mark.slow
def test_the_chapter_runs_in_the_smoke_profile(bamboo_data, tmp_path_factory, monkeypatch):
    from lcrag.book.runner import run_chapter

    # the committed store: the MiniLM vectors of these cases' chunks (the book embedded them); the smoke
    # profile's short prompts are not in it: its answers are the model's, live
    monkeypatch.setenv("LCRAG_STORE", "read")
    monkeypatch.setenv("LCRAG_STORE_DIR", str(ROOT / "responses"))
    run = run_chapter("thesis", profile="smoke", out_dir=tmp_path_factory.mktemp("run"), progress=False)
    assert run.ok, run.error
    assert notebook_errors(run.notebook) == []
    out = run.out_dir
    cleaning = pd.read_csv(out / "cleaning.csv").set_index("task")
    assert cleaning["kept"].to_dict() == {"meetingqa": 84, "paperqa": 74}
    answers = pd.read_csv(out / "answers.csv")
    assert len(answers) == 4 * 3  # 2 cases per task x Full, Evidence, CQT
    assert set(answers["setting"]) == {"full", "rag", "evidence"} and answers["response"].notna().all()
    t63 = pd.read_csv(out / "table_6_3.csv")
    assert t63[t63["ranker"] == "bm25"]["exact"].all()
    claims = pd.read_csv(out / "claims.csv")
    assert {f"H{i}" for i in range(1, 17)} - {"H4"} <= set(claims["claim_id"])
    assert set(claims["verdict"]) <= {REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_TESTABLE}
    h6 = claims.set_index("claim_id").loc["H6", "verdict"]
    assert h6 == REPRODUCED
    for name in ("pattern_counts", "ranking_distance", "tokens", "paired_tests", "table_6_1", "table_6_2"):
        assert (out / f"{name}.csv").exists(), name



def _synthesis_rows(tmp_path, scored: pd.DataFrame) -> pd.DataFrame:
    """The synthesis's thesis rows (``lcrag.papers.thesis.comparison``) on a run of ``scored``: accuracy.csv and
    paired_tests.csv saved as the chapter saves them, read back as the synthesis reads them."""
    from lcrag.papers.thesis import comparison

    kept = scored[scored["kept"]]
    accuracy.accuracy_table(kept, n_boot=200).to_csv(tmp_path / "accuracy.csv", index=False)
    accuracy.paired_tests(kept, accuracy.standard_pairs(scored), n_boot=200).to_csv(
        tmp_path / "paired_tests.csv", index=False)
    runs = pd.DataFrame([{"chapter": "thesis", "model": "m", "slug": "m", "profile": "default", "finished": "",
                          "book": True, "run_dir": str(tmp_path)}])
    problems: list[str] = []
    rows = comparison.comparisons(runs, comparison.arms(runs, problems), problems)
    assert problems == []
    return pd.DataFrame(rows).set_index("other_arm")


@pytest.mark.parametrize("arm", ["RAG CQT", "Evidence"])
def test_the_claims_and_the_synthesis_share_the_chapters_floor_rule(tmp_path, arm):
    """One floor rule (:func:`accuracy.accuracy_floor`) for the claims and the synthesis's row: at the edge of the
    floor (50 of 158 right: the exact interval still reaches 1/4; 51: it does not) the claim on the arm (H7 for
    RAG, H8 for Evidence vs Full) and the synthesis's Full vs arm row are both not testable, or neither."""
    from lcrag.papers.thesis import comparison
    from lcrag.synthesis import NOT_TESTABLE as SYNTHESIS_NOT_TESTABLE

    assert comparison.accuracy_floor is accuracy.accuracy_floor  # the synthesis asks the chapter's rule
    assert binomtest(50, 158, 0.25).proportion_ci(0.95, method="exact").low <= 0.25
    assert binomtest(51, 158, 0.25).proportion_ci(0.95, method="exact").low > 0.25
    claim = {"RAG CQT": "H7", "Evidence": "H8"}[arm]
    for right, floored in ((50, True), (51, False)):
        counts = {"FRE": right, "F-E": 158 - right} if arm == "RAG CQT" else {"FRE": right, "FR-": 158 - right}
        scored = thesis_shaped(counts)
        t = thesis_claims.check_claims(ClaimsLedger("thesis", paper="thesis", model="m"), scored,
                                       n_boot=200).set_index("claim_id")
        row = _synthesis_rows(tmp_path, scored).loc[arm]
        assert (t.loc[claim, "verdict"] == NOT_TESTABLE) is floored, (arm, right)
        assert (row["reading"] == SYNTHESIS_NOT_TESTABLE) is floored, (arm, right)
        why = f"accuracy {right / 158:.2f} of 158, interval contains chance 0.25"
        assert (why in t.loc[claim, "evidence"]) is floored and (why in row["evidence"]) is floored
        # the same counts give the same answer from the chapter's floor_of and the shared rule
        run = ("rag", "CQT", "BAMBOO") if arm == "RAG CQT" else ("evidence", "-", "BAMBOO")
        assert (accuracy.floor_of(scored, [run]) is not None) is floored
        assert (accuracy.accuracy_floor({arm: (right, 158)}) is not None) is floored
