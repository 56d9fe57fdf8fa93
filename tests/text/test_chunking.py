"""Chunking (lcrag.text.chunking): exact reproduction of the chunks the thesis quotes, the algorithms on hand-made
input, and LongRAG's released chunker (gen_index.py semantics) on hand-made input and on the chapter's corpus."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import fetched_data_dir

from lcrag.data import load_longbench
from lcrag.papers.longrag.corpus import build_corpus
from lcrag.text.chunking import (
    clause_chunks,
    clause_units,
    longrag_word_count,
    recursive_split,
    semantic_split,
    sentence_distances,
    split_sentences,
    with_neighbours,
)

MIRROR = Path(os.environ.get("LCRAG_DATA_MIRROR", "/work/shared/data"))
MEETINGQA = MIRROR / "bamboo" / "meetingqa_4k.jsonl"
THESIS = Path("/work/shared/papers/thesis-paper.txt")

# Quoted in the thesis (§6.4.1, case 3 of MeetingQA 4k), character for character.
THESIS_CHUNK_5 = (
    "Lara Snowdon: Thank you, Chair. We really welcome the inclusion of a public health approach in the "
    "violence against women, domestic abuse and sexual violence strategy. I think it will be really key to "
    "achieving the goal in the Violence against Women, Domestic Abuse and Sexual Violence (Wales) Act 2015 of "
    "ensuring that the Welsh Government implements preventative practice to prevent VAWDASV. However, I think "
    "it's fair to say that, at the moment, the approach in Wales is very much in its infancy. So, we have"
)
THESIS_CHUNK_11 = (
    "Lara Snowdon: As I said, it's really an approach that I think is in its infancy in Wales. So, there is "
    "this commitment. I think there's a real drive by a range, particularly, of public sector agencies to "
    "understand what this is and to implement it, but there's still a long way to go, I think, in terms of "
    "implementing it fully. I wanted to mention as well the serious violence duty. So, this is another "
    "legislative driver that we have at the moment to implement a public health approach. The serious violence"
)
THESIS_CHUNK_14 = (
    "ensure there isn't duplication or siloed working, really. So, as I said, quite a long way to go to "
    "implement it fully, but we certainly now have some of the drivers to ensure that it can be put into place."
)


def meetingqa(case: int) -> dict:
    """Record of a 1-based MeetingQA case (= line of the file)."""
    if not MEETINGQA.exists():
        pytest.skip(f"data mirror not found: {MEETINGQA}")
    with MEETINGQA.open(encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, start=1):
            if line_no == case:
                return json.loads(line)
    raise AssertionError(f"{MEETINGQA} has fewer than {case} lines")


# --------------------------------------------------------------------------- thesis chunks, real data


@pytest.mark.skipif(not THESIS.exists(), reason="thesis text not available")
def test_quoted_chunks_are_copied_exactly_from_the_thesis():
    thesis = THESIS.read_text(encoding="utf-8")
    for quote in (THESIS_CHUNK_5, THESIS_CHUNK_11, THESIS_CHUNK_14):
        assert f'"{quote}"' in thesis


def test_case_3_chunks_5_and_14_match_the_thesis_exactly():
    chunks = recursive_split(meetingqa(3)["content"], chunk_size=512, chunk_overlap=50)
    assert len(chunks) == 38
    assert chunks[4] == THESIS_CHUNK_5  # the thesis numbers chunks from 1
    assert chunks[13] == THESIS_CHUNK_14


def test_case_3_chunk_11_differs_only_by_a_space_the_thesis_added():
    chunks = recursive_split(meetingqa(3)["content"])
    assert chunks[10] != THESIS_CHUNK_11
    assert chunks[10] == THESIS_CHUNK_11.replace("fully. I wanted", "fully.I wanted")


def test_case_3_evidence_is_verbatim_at_the_end_of_chunk_5():
    record = meetingqa(3)
    chunk = recursive_split(record["content"])[4]
    evidence = record["evidence"].strip()
    assert evidence.startswith("However, I think it's fair to say")
    assert chunk.index(evidence) + len(evidence) == len(chunk) - len(" So, we have")


def test_case_4_chunk_5_is_cut_where_the_thesis_says():
    chunk = recursive_split(meetingqa(4)["content"])[4]
    assert chunk.startswith("Ieuan Evans: We fully understand and embrace the WRU's unique role")
    assert chunk.endswith("We are a £100 million-turnover business, and that")
    assert len(chunk) <= 512


def test_chunk_counts_of_cases_1_to_3():
    assert [len(recursive_split(meetingqa(c)["content"])) for c in (1, 2, 3)] == [18, 39, 38]


@pytest.mark.parametrize("overlap", [0, 20, 100, 200])
def test_other_overlaps_do_not_reproduce_chunk_14(overlap):
    assert THESIS_CHUNK_14 not in recursive_split(meetingqa(3)["content"], 512, overlap)


def test_every_chunk_fits_and_the_text_is_covered():
    text = meetingqa(3)["content"]
    chunks = recursive_split(text)
    assert all(0 < len(c) <= 512 for c in chunks)
    # chunks appear in document order, and together they cover every non-blank character
    covered = np.zeros(len(text), dtype=bool)
    start = 0
    for chunk in chunks:
        start = text.index(chunk, start)
        covered[start : start + len(chunk)] = True
    assert all(covered[i] for i, ch in enumerate(text) if not ch.isspace())
    # and some neighbours overlap (50 characters at most)
    overlaps = [a for a, b in zip(chunks, chunks[1:], strict=False) if b[:20] in a]
    assert len(overlaps) >= 10


# --------------------------------------------------------------------------- recursive_split, by hand


def test_separator_goes_to_the_start_of_the_next_piece_and_chunks_are_stripped():
    # pieces by " ": "aaa", " bbb", " ccc" (4 chars each after the first)
    assert recursive_split("aaa bbb ccc", chunk_size=8, chunk_overlap=4) == ["aaa bbb", "bbb ccc"]
    # overlap 3 is smaller than the 4-char piece " bbb": nothing is carried over
    assert recursive_split("aaa bbb ccc", chunk_size=7, chunk_overlap=3) == ["aaa bbb", "ccc"]


def test_paragraphs_first_then_finer_separators_for_long_pieces():
    text = "short para\n\n" + "word " * 5 + "\n\nend"
    assert recursive_split(text, chunk_size=15, chunk_overlap=0) == [
        "short para",
        "word word word",
        "word word",
        "end",
    ]


def test_no_separator_left_falls_back_to_characters():
    assert recursive_split("abcdefgh", chunk_size=3, chunk_overlap=1) == ["abc", "cde", "efg", "gh"]


def test_a_piece_with_no_finer_separator_is_kept_whole():
    assert recursive_split("abcdefgh ij", chunk_size=4, chunk_overlap=0, separators=[" "]) == [
        "abcdefgh",
        "ij",
    ]


def test_length_function_counts_words():
    text = "one two three four five six"
    words = recursive_split(text, chunk_size=3, chunk_overlap=1, length=lambda s: len(s.split()))
    assert words == ["one two three", "three four five", "five six"]


def test_blank_text_gives_no_chunks():
    assert recursive_split("") == []
    assert recursive_split(" \n\n \n ") == []


@pytest.mark.parametrize(
    "kwargs",
    [{"chunk_size": 0}, {"chunk_size": 10, "chunk_overlap": 11}, {"chunk_overlap": -1}, {"separators": ()}],
)
def test_bad_parameters_raise(kwargs):
    with pytest.raises(ValueError):
        recursive_split("some text", **kwargs)


# --------------------------------------------------------------------------- semantic_split


def topic_embed(texts: list[str]) -> np.ndarray:
    """Toy embedding: (number of "cat", number of "dog")."""
    return np.array([[t.count("cat"), t.count("dog")] for t in texts], dtype=float)


def test_sentences_and_neighbour_windows():
    assert split_sentences("One. Two?  Three! Four") == ["One.", "Two?", "Three!", "Four"]
    assert with_neighbours(["a", "b", "c"], 1) == ["a b", "a b c", "b c"]
    assert with_neighbours(["a", "b", "c"], 0) == ["a", "b", "c"]


def test_semantic_split_cuts_at_the_largest_distance():
    text = "cat cat. cat. dog. dog dog."
    # windows of one sentence: (2,0), (1,0), (0,1), (0,2) -> distances 0, 1, 0
    assert np.allclose(sentence_distances(split_sentences(text), topic_embed, 0), [0.0, 1.0, 0.0])
    assert semantic_split(text, topic_embed, n_chunks=2, buffer_size=0) == ["cat cat. cat.", "dog. dog dog."]
    assert semantic_split(text, topic_embed, n_chunks=1, buffer_size=0) == [text]


def test_semantic_split_without_a_count_uses_the_95th_percentile():
    text = "cat. cat. cat. dog. dog."
    # distances 0, 0, 1, 0; 95th percentile = 0.8, so one cut, before the first dog
    assert semantic_split(text, topic_embed, n_chunks=None, buffer_size=0) == ["cat. cat. cat.", "dog. dog."]


def test_semantic_split_edge_cases():
    assert semantic_split("", topic_embed) == []
    assert semantic_split("one sentence without an end", topic_embed) == ["one sentence without an end"]
    with pytest.raises(ValueError):
        semantic_split("a. b.", topic_embed, n_chunks=0)
    with pytest.raises(ValueError, match="shape"):
        semantic_split("a. b. c.", lambda texts: np.zeros((1, 2)))


def test_semantic_split_of_a_real_document_with_minilm(tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path))
    from lcrag.models.embeddings import get_embedder

    text = meetingqa(3)["content"]
    chunks = semantic_split(text, get_embedder().embed, n_chunks=30)
    # SemanticChunker's count is approximate: the percentile can land on a distance and add one chunk
    assert len(chunks) in (30, 31)
    assert " ".join(chunks) == " ".join(split_sentences(text))
    assert 300 < np.mean([len(c) for c in chunks]) < 600


# --------------------------------------------------------------------------- LongRAG's released chunker (gen_index.py semantics)


@pytest.fixture(scope="module")
def longbench_data(mirror, tmp_path_factory):
    yield from fetched_data_dir(mirror, tmp_path_factory, ["longbench", "longrag_eval"])  # the LongRAG chapter's data


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


@pytest.mark.usefixtures("longbench_data")
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


@pytest.mark.usefixtures("longbench_data")
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
