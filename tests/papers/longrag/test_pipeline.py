"""LongRAG: the released chunker, LongBench F1, corpus building, the components' parsing rules, one real question."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from helpers import ROOT, fetched_data_dir

from lcrag.data import load_longbench
from lcrag.metrics.qa import dataset_f1, exact_match, normalize_answer, qa_f1
from lcrag.papers.longrag.answering import Budgets, answer_question, settings_grid, strategy_input
from lcrag.papers.longrag.corpus import build_corpus, chunk_corpus, questions
from lcrag.papers.longrag.cot_filter import filter_sentence, filtered, parse_status, removed_nothing
from lcrag.papers.longrag.names import STRATEGIES
from lcrag.papers.longrag.prompts import cot_prompt, extractor_prompt, filter_prompt, generator_prompt
from lcrag.papers.longrag.retrieval import Retriever, source_paragraphs
from lcrag.retrieval.base import Hit
from lcrag.text.chunking import clause_chunks, clause_units, longrag_word_count


@pytest.fixture(scope="module", autouse=True)
def longbench_data(mirror, tmp_path_factory):
    yield from fetched_data_dir(mirror, tmp_path_factory, ["longbench", "longrag_eval"])  # the chapter's data


# --------------------------------------------------------------------------- chunker (gen_index.py semantics)


def test_units_end_at_every_stop_character_and_trailing_words_are_dropped():
    assert clause_units("a b, c. d; e") == ["a b,", " c.", " d;"]  # " e" follows the last stop: dropped
    assert clause_units("no stop at all") == ["no stop at all"]
    assert clause_units("多，少。") == ["多，", "少。"]


def test_word_count_splits_on_non_word_characters_and_each_han_character():
    assert longrag_word_count("Hello-world, 東京 x") == 5
    assert longrag_word_count("  ,, ") == 0
    assert longrag_word_count("It's 3.5") == 4  # it / s / 3 / 5
    assert longrag_word_count("abc東京def_9 İx") == 6  # abc 東 京 def_9 i x: İ lower-cases to i + U+0307, a non-word


def _released_word_count(text: str) -> int:
    """gen_index.py's count, as the released code builds it: split on [\\W], then each piece on Han characters."""
    return sum(1 for word in re.split(r"\W", text.lower()) for piece in re.split(r"([\u4e00-\u9fa5])", word)
               if piece.strip())


@pytest.mark.parametrize("dataset", ["2wikimqa", "musique"])
def test_word_count_equals_the_released_splits_on_every_unit_of_the_corpus(dataset):
    corpus = build_corpus(load_longbench(dataset))
    units = [u for text in corpus["text"] for u in clause_units(text)]
    units += ["東京タワー, 多少。", "x\u0130y", "ǅemal Ⅻ ½ ²", "a\u0307b", "ﬁne", "tab\tsep\u00a0nbsp"]
    assert len(units) > 30_000
    mismatched = [u for u in units if longrag_word_count(u) != _released_word_count(u)]
    assert mismatched == []


def test_chunks_carry_the_last_two_units_and_close_on_new_words():
    text = "a b, c d, e f, g h, i j, k."
    # First chunk: 6 >= 5 words. Later chunks need 5 - (words of the 2 carried units = 4) = 1 new word each.
    assert clause_chunks(text, chunk_size=5) == [
        "a b, c d, e f,", " c d, e f, g h,", " e f, g h, i j,", " g h, i j, k.",
    ]


def test_a_final_chunk_of_one_unit_is_merged_into_the_previous_one():
    assert clause_chunks("a b c, d.", chunk_size=3) == ["a b c, d."]
    assert clause_chunks("a b c, d.", chunk_size=3, min_units=1) == ["a b c,", " d."]


def test_chunks_hold_about_chunk_size_words_on_real_paragraphs():
    corpus = build_corpus(load_longbench("2wikimqa").head(10))
    text = max(corpus["text"], key=len)
    chunks = clause_chunks(text, 200)
    assert len(chunks) > 2
    assert all(longrag_word_count(c) >= 200 for c in chunks[:-1])
    body = "".join(clause_units(text))
    assert chunks[0] == body[: len(chunks[0])]  # chunks are verbatim slices of the text
    assert all(c in body for c in chunks)


def test_bad_chunker_settings_are_errors():
    with pytest.raises(ValueError):
        clause_chunks("a, b.", chunk_size=0)


# --------------------------------------------------------------------------- LongBench qa_f1_score


def test_normalisation_and_f1_as_longbench():
    assert normalize_answer("An  apple, the PIE.") == "apple pie"
    assert qa_f1("The Eiffel Tower!", ["eiffel tower"]) == 1.0
    assert qa_f1("Paris, France", ["Paris"]) == pytest.approx(2 / 3)
    assert qa_f1("Paris, France", ["Lyon", "France"]) == pytest.approx(2 / 3)  # best gold answer
    assert qa_f1("", ["x"]) == 0.0 and qa_f1(None, ["x"]) == 0.0
    assert qa_f1("the the cat", ["cat cat"]) == pytest.approx(2 / 3)  # bags: one "cat" in common: p 1, r 1/2
    assert exact_match("  The Beatles.", ["beatles"]) == 1.0 and exact_match("Beatles band", ["beatles"]) == 0.0
    assert dataset_f1([1.0, 0.5, 0.0]) == 50.0
    with pytest.raises(ValueError):
        qa_f1("x", [])


# --------------------------------------------------------------------------- corpus


def test_corpus_pools_and_deduplicates_the_datasets_paragraphs():
    records = load_longbench("2wikimqa")
    corpus = build_corpus(records)
    assert len(records) == 100 and int(records["n_passages"].sum()) == 997
    assert len(corpus) == 730  # distinct paragraphs of the 100-record subset (the paper's full 200: 1464)
    assert corpus["text"].is_unique and corpus["paragraph_id"].tolist() == list(range(730))
    assert int(corpus["n_records"].sum()) == 997 - _repeats_within_records(records)
    assert not corpus["text"].str.startswith("Passage ").any()
    chunks = chunk_corpus(corpus)
    assert set(chunks["paragraph_id"]) == set(corpus["paragraph_id"])
    assert chunks["chunk_id"].tolist() == list(range(len(chunks)))


def test_section_1_says_what_its_two_counts_of_paragraphs_are():
    counts = pd.DataFrame({"dataset": ["2wikimqa", "musique"], "passages": [997, 512], "paragraphs": [730, 481],
                           "mean_words": [490.3, 1013.3], "paper_mean_words": [535.0, 1032.0]})
    from lcrag.papers.longrag.corpus import paragraph_words_sentence

    assert paragraph_words_sentence(counts) == (
        "`passages` counts the records' paragraphs as LongBench lists them, `paragraphs` the distinct ones the pool "
        "keeps after deduplication (730 of 997 in 2WikiMQA and 481 of 512 in MuSiQue). A paragraph averages about "
        "490 words in 2WikiMQA and 1,010 in MuSiQue, close to the paper's 535 and 1,032 per paragraph.")


def _repeats_within_records(records: pd.DataFrame) -> int:
    from lcrag.data.longbench import split_passages

    return sum(len(p) - len(set(p)) for p in (split_passages(c) for c in records["context"]))


# --------------------------------------------------------------------------- components


def test_source_paragraphs_follow_the_best_chunk_and_replace_long_paragraphs_by_their_chunk():
    paragraphs = ["P0 short", "P1 long long long", "P2 short"]
    chunk_paragraph = [0, 0, 1, 2]
    hits = [Hit(1, 0.9, 1, "c1"), Hit(3, 0.8, 2, "c3"), Hit(0, 0.7, 3, "c0"), Hit(2, 0.6, 4, "c2")]
    too_long = lambda text: "long" in text  # noqa: E731
    assert source_paragraphs(hits, chunk_paragraph, paragraphs, too_long) == ["P0 short", "P2 short", "c2"]


@pytest.mark.parametrize(
    ("response", "kept"),
    [('{"status": "True"}', True), ('{"status": "false"}', False), ('{"status": true}', True),
     ("status: True", True), ("I would cite it (true).", True), ('{"status": "FALSE"}', False),
     ("No.", False), ("", False), (None, False)],
)
def test_filter_judgements_are_read_as_the_released_code_reads_them(response, kept):
    assert parse_status(response) is kept


def test_nothing_kept_means_everything_kept():
    assert filtered(["a", "b"], [False, True]) == (["b"], False)
    assert filtered(["a", "b"], [False, False]) == (["a", "b"], True)
    with pytest.raises(ValueError):
        filtered(["a"], [True, False])


def _filtered_answers() -> pd.DataFrame:
    """Four questions' Fil and E&F rows (one filter run each) and R&B rows: the filter removed 3 chunks from q1,
    none from q2 (all judged relevant) and q3 (none judged relevant: the fallback), 1 from q4."""
    removed, fell = [3, 0, 0, 1], [False, False, True, False]
    rows = [{"dataset": "d", "question_id": f"q{i + 1}", "strategy": s, "filter_removed": r, "filter_fallback": f}
            for i, (r, f) in enumerate(zip(removed, fell, strict=True)) for s in ("Fil", "E&F")]
    rows += [{"dataset": "d", "question_id": f"q{i + 1}", "strategy": "R&B"} for i in range(4)]
    return pd.DataFrame(rows)


def test_how_often_the_filter_removed_nothing_is_counted_per_question():
    answers = _filtered_answers()
    assert removed_nothing(answers) == (4, 2, 1)
    # rows from before filter_removed was recorded count the fallbacks only
    assert removed_nothing(answers.drop(columns="filter_removed")) == (4, 1, 1)
    assert removed_nothing(answers[answers["strategy"] == "R&B"]) is None


def test_section_4_says_how_much_the_filter_filtered_beside_the_paper():
    tokens = pd.DataFrame({"dataset": ["d", "d"], "strategy": ["R&B", "Fil"], "ours": [2000.0, 1880.0],
                           "paper_chatglm3_sft": [2086.0, 937.0]})
    assert filter_sentence(_filtered_answers(), tokens) == (
        "**How much the filter filtered**: The filter removed no chunk for 2 of 4 questions (50%; for 1 it judged "
        "every chunk relevant, for 1 none, and the code then keeps all); on those questions Fil feeds the generator "
        "R&B's very input, and E&F Ext's. Fil's mean input, as a share of R&B's: 94% on d (the paper's "
        "ChatGLM3-6B-32k with SFT: 45% on d, Tables 12-14).")
    every = _filtered_answers().assign(filter_removed=1, filter_fallback=False)
    assert filter_sentence(every, tokens).startswith(
        "**How much the filter filtered**: The filter removed at least one chunk for each of the 4 questions.")


def test_strategy_inputs_join_their_parts_without_separators():
    args = (["c1", "c2"], ["p1"], "EXT", ["c2"])
    assert [strategy_input(s, *args) for s in STRATEGIES] == ["c1c2", "p1", "c1c2EXT", "c2", "c2EXT"]
    with pytest.raises(ValueError, match="needs the extractor"):
        strategy_input("E&F", ["c"], [], None, ["c"])
    with pytest.raises(ValueError, match="unknown strategy"):
        strategy_input("RAG", ["c"], [], None, None)


def test_prompts_are_the_released_strings():
    assert generator_prompt("PASSAGES", "Q?").endswith("Question: Q?\nAnswer:")
    assert "The following are given passages.\nPASSAGES\n\n" in generator_prompt("PASSAGES", "Q?")
    assert cot_prompt(["a", "b"], "Q?") == (
        "a\nb\n\nPlease combine the above information and give your thinking process for the following "
        "question:Q?."
    )
    assert extractor_prompt(["a", "b"], "Q?").startswith("ab.\n\nBased on the above background")
    f = filter_prompt("ART", "Q?", "COT")
    assert f.startswith("Given an article:ART\nQuestion: Q?.\nThought process:COT.\n")
    assert f.endswith('json format: {"status": "{the value of status}"}')


# --------------------------------------------------------------------------- one real question, real model


@pytest.mark.slow
def test_one_question_through_every_strategy_on_the_embedded_model(monkeypatch):
    from lcrag.models import get_model

    # the MiniLM vectors of these chunks from the committed store (the chapter embedded them): the answers are
    # the model's, live (the store holds none of these requests: other budgets)
    monkeypatch.setenv("LCRAG_STORE", "read")
    monkeypatch.setenv("LCRAG_STORE_DIR", str(ROOT / "responses"))
    from lcrag.models.embeddings import get_embedder
    from lcrag.retrieval.rerank import FusionReranker

    # each context cut to its first 2 whole passages (chunks the chapter embedded): prompts of 1-2k tokens, not 5-8k
    records = load_longbench("2wikimqa").head(5).assign(context=lambda d: d["context"].str.split("Passage 3:").str[0])
    corpus = build_corpus(records)
    chunks = chunk_corpus(corpus)
    embedder = get_embedder()
    retriever = Retriever(chunks, embedder, FusionReranker(embedder), n_candidates=20)
    model = get_model("local/smollm2-135m-instruct")
    qs = questions(records)
    item = next(qs.loc[[qs["context"].str.len().idxmin()]].itertuples())  # the shortest context: a cheap Full arm
    budgets = Budgets(answer=16, extractor=48, cot=48, judgement=12)
    rows = answer_question(item, retriever, model, k=2, arms=("Full", "Closed"), budgets=budgets,
                              paragraphs=list(corpus["text"]))
    df = pd.DataFrame(rows)
    assert df["strategy"].tolist() == [*STRATEGIES, "Full", "Closed"]
    assert df["f1"].between(0, 1).all() and df["em"].isin([0.0, 1.0]).all()
    assert all(len(c) == 2 for c in df.loc[df.strategy.isin(STRATEGIES), "chunks"])
    tokens = df.set_index("strategy")["input_tokens"]
    assert tokens["Closed"] < tokens["Fil"] <= tokens["R&B"] < tokens["Ext"]
    assert tokens["R&B"] < tokens["R&L"]
    assert df.loc[df.strategy == "Full", "truncated"].item() in (True, False)
    removed = df.set_index("strategy")["filter_removed"]  # one filter run: the same count for Fil and E&F
    assert removed["Fil"] == removed["E&F"] in (0, 1) and removed.drop(["Fil", "E&F"]).isna().all()
    again = answer_question(item, retriever, model, k=2, budgets=budgets, paragraphs=list(corpus["text"]))
    assert [r["answer"] for r in again] == df["answer"].tolist()[:5]  # cached, deterministic


# --------------------------------------------------------------------------- the chapter, smoke profile


@pytest.fixture(scope="module")
def smoke_run(longbench_data, tmp_path_factory):
    from lcrag.book.runner import run_chapter

    return run_chapter("longrag", profile="smoke", out_dir=tmp_path_factory.mktemp("run"), progress=False)


@pytest.mark.slow
def test_the_chapter_runs_in_the_smoke_profile(smoke_run):
    import json

    assert smoke_run.ok, smoke_run.error
    answers = pd.read_csv(smoke_run.out_dir / "answers.csv")
    assert len(answers) == 3 and set(answers["strategy"]) == {"R&B"} and set(answers["dataset"]) == {"2wikimqa"}
    assert answers["f1"].between(0, 1).all()
    corpus = pd.read_csv(smoke_run.out_dir / "corpus.csv").set_index("dataset")
    assert corpus.loc["2wikimqa", "records"] == 100 and corpus.loc["2wikimqa", "paper_paragraphs"] == 1464
    checks = pd.read_csv(smoke_run.out_dir / "paper_checks.csv")
    assert len(checks) >= 20
    manifest = json.loads((smoke_run.out_dir / "manifest.json").read_text())
    assert manifest["status"] == "ok" and manifest["parameters"]["strategies"] == ["R&B"]


@pytest.mark.slow
def test_the_smoke_run_builds_one_lrginstruction_record_with_the_embedded_model(smoke_run):
    """Section 9 on one real 2WikiMQA record (the smoke profile's ``lrg_records: 1``), SmolLM2 as the teacher:
    [STEP-1] answered, each [STEP-2] judgement read in one of the known forms, the five instruction rows."""
    from lcrag.papers.longrag.lrginstruction import records

    read = lambda name: pd.read_csv(smoke_run.out_dir / f"{name}.csv", keep_default_na=False)  # noqa: E731
    seen, calls, rows = read("lrg_records"), read("lrg_calls"), read("lrg_instructions")
    assert len(seen) == 1 and seen["skip"].tolist() == [""]
    assert calls["step"].tolist()[:1] == ["STEP-1"] and 2 <= len(calls) <= 5
    assert (calls["prompt_tokens"] > 0).all() and (calls["source"] == "network").all()
    assert calls.loc[calls.step == "STEP-2", "judge_form"].isin(["json", "embedded_json", "status_line", "malformed"]).all()
    assert rows["task"].tolist() == ["ext", "cot", "fil", "fil", "rag"]
    assert rows.loc[rows.task == "rag", ["kept", "output"]].values.tolist() == [[True, "John the Baptist"]]
    assert (rows["kept_code"] | ~rows["kept_strict"]).all()  # whatever strict keeps, the code keeps
    assert rows.loc[~rows.kept, "reason"].isin(["too short", "judgement malformed", "judged False"]).all()
    assert (rows["instruction_tokens"] <= records.MAX_INSTRUCTION_TOKENS).all()


def test_settings_grid_keeps_the_default_rows_of_the_first_questions():
    results = pd.DataFrame({
        "dataset": ["d"] * 6, "question_id": ["q1", "q1", "q1", "q2", "q2", "q2"],
        "strategy": ["R&B", "E&F", "Fil"] * 2, "chunk_size": 200, "top_k": 7, "f1": 0.5,
    })
    questions = {"d": pd.DataFrame({"question_id": ["q1", "q2"]})}
    out = settings_grid(results, [], ["d"], questions, 1, generator=None)
    assert out[["question_id", "strategy", "setting"]].values.tolist() == [["q1", "R&B", "200*7"], ["q1", "E&F", "200*7"]]


def _f1_cells(f1s: list[float], n: int = 3) -> pd.DataFrame:
    """An f1_table of R&B and E&F at two settings on one dataset, F1 in points."""
    cells = [("d", s, st) for s in ("200*7", "500*3") for st in ("R&B", "E&F")]
    return pd.DataFrame([{"dataset": d, "setting": s, "strategy": st, "f1": f, "em": 0.0, "n": n}
                         for (d, s, st), f in zip(cells, f1s, strict=True)])


def test_floor_sentence_flags_a_table_at_the_floor_with_the_chapters_threshold():
    from lcrag.papers.longrag.answering import floor_sentence

    cells = ("dataset", "strategy", "setting")
    floored = _f1_cells([0.0, 0.0, 4.9, 0.0])
    assert floor_sentence(floored, cells, "chunk size") == (
        "Every one of the 4 cells of this table is at the floor (a mean F1 below 5 points), on 3 questions per "
        "dataset: for this model, the table says nothing about chunk size.")
    main = pd.DataFrame({"dataset": ["d", "d", "d"], "strategy": ["R&B", "E&F", "Fil"], "f1": [34.75, 2.0, 50.0],
                         "n": [30, 30, 30]})
    assert floor_sentence(floored, cells, "chunk size", main=main).endswith(
        "Over 30 questions per dataset at the default setting (section 3), the same strategies score R&B 34.8 and "
        "E&F 2.0 on d: the floor is that of these first questions, not of every question.")
    at_floor_too = main.assign(f1=[1.0, 2.0, 50.0])  # the strategies at the floor on every question: no reference
    assert floor_sentence(floored, cells, "chunk size", main=at_floor_too) == floor_sentence(floored, cells,
                                                                                             "chunk size")
    partly = floor_sentence(_f1_cells([6.06, 0.0, 0.0, 0.0]), cells, "chunk size")
    assert partly.startswith("3 of the 4 cells of this table are at the floor (a mean F1 below 5 points): only "
                             "d R&B 200×7 (F1 6.1) is above it.")
    assert partly.endswith("A comparison with a cell at the floor says nothing about chunk size; each cell rests on 3 "
                           "questions per dataset.")
    assert floor_sentence(_f1_cells([6.0, 0.0, 7.0, 8.0]), cells, "x").startswith(
        "1 of the 4 cells of this table is at the floor (a mean F1 below 5 points): d E&F 200×7 (F1 0.0).")
    assert floor_sentence(_f1_cells([6.0, 5.0, 7.0, 8.0], n=12), cells, "x") == (
        "No cell of this table is at the floor (a mean F1 below 5 points); each rests on 12 questions per dataset.")
    one_setting = _f1_cells([6.0, 0.0, 7.0, 8.0]).head(2)  # the grid left empty: the default setting alone
    assert floor_sentence(one_setting, cells, "chunk size") == (
        "The table compares nothing (only setting 200*7 ran): it says nothing about chunk size.")
    assert floor_sentence(one_setting.head(0), cells, "x") == "The table compares nothing (no cell ran): it says nothing about x."


def test_the_page_size_sentence_follows_the_parameters():
    from lcrag.papers.longrag.answering import page_size

    text = page_size(30, ["R&B", "E&F"], ["Full", "Closed"], 200, 7, 3, 0, 2)
    assert text.startswith("**The size of this page**: 30 questions per dataset through R&B, E&F and the arms "
                           "Full, Closed at 200×7;")
    assert "the chunk-size × top-k grid (section 6) on the first 3 questions per dataset" in text
    assert "no transfer (section 7)" in text and "LRGinstruction (section 9) on 2 records per dataset." in text
    assert "the first 5 questions" in page_size(5, ["R&B"], [], 200, 7, 12, 3, 0)  # at most the main run's
    assert page_size(5, ["R&B"], [], 200, 7, 0, 0, 0).endswith("no LRGinstruction (section 9).")
