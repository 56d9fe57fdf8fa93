"""LongRAG's answering (lcrag.papers.longrag.answering): each strategy's input, one real question through every
strategy on the embedded model, the settings grid and the sentences the page writes of its tables."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers import ROOT

from lcrag.data import load_longbench
from lcrag.papers.longrag.answering import Budgets, answer_question, settings_grid, strategy_input
from lcrag.papers.longrag.corpus import build_corpus, chunk_corpus, questions
from lcrag.papers.longrag.names import STRATEGIES
from lcrag.papers.longrag.retrieval import Retriever


def test_strategy_inputs_join_their_parts_without_separators():
    args = (["c1", "c2"], ["p1"], "EXT", ["c2"])
    assert [strategy_input(s, *args) for s in STRATEGIES] == ["c1c2", "p1", "c1c2EXT", "c2", "c2EXT"]
    with pytest.raises(ValueError, match="needs the extractor"):
        strategy_input("E&F", ["c"], [], None, ["c"])
    with pytest.raises(ValueError, match="unknown strategy"):
        strategy_input("RAG", ["c"], [], None, None)


@pytest.mark.slow
@pytest.mark.usefixtures("longbench_data")
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
