"""LongRAG's corpus (lcrag.papers.longrag.corpus): the datasets' paragraphs pooled and deduplicated, and chunked."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag.data import load_longbench
from lcrag.papers.longrag.corpus import build_corpus, chunk_corpus

pytestmark = pytest.mark.usefixtures("longbench_data")


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
