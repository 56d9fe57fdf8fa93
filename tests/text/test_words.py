"""lcrag.text.words: the one home of the ``[a-z0-9]+`` word tokens, content words and the lexical recall that the
needle scorer, the lexical judge and SummHay's synthetic haystack share."""

from __future__ import annotations

import numpy as np
import pytest

from lcrag.judges.similarity import lexical_similarity
from lcrag.metrics import needle
from lcrag.papers.summhay import synthetic
from lcrag.text import words
from lcrag.text.stopwords import NLTK_STOPWORDS, RECALL_STOP_WORDS, english_content_words


def test_word_tokens_are_lowercase_letters_and_digits():
    assert words.word_tokens("Cost-effective: 15 GHz, Dolores Park's café!") == [
        "cost", "effective", "15", "ghz", "dolores", "park", "s", "caf"]
    assert words.word_tokens(None) == words.word_tokens("") == []


def test_content_words_drop_the_list_given_once_each_in_order():
    assert words.content_words("The park, the PARK and a sunny day", {"the", "and", "a"}) == ["park", "sunny", "day"]
    assert english_content_words("One can sit in the park") == ["sit", "park"]


def test_word_recall_is_the_share_of_the_references_content_words():
    assert words.word_recall("They ate a sandwich.", "Eat a sandwich", {"a"}) == 0.5
    with pytest.raises(ValueError, match="no content words"):
        words.word_recall("anything", "the best thing", RECALL_STOP_WORDS)


def test_the_needle_scorer_the_lexical_judge_and_the_synthetic_check_share_it():
    answer, needle_text = "Eat a sandwich, sit in Dolores Park [3].", "eat a sandwich and sit in Dolores Park on a sunny day"
    assert needle.STOP_WORDS is RECALL_STOP_WORDS and len(RECALL_STOP_WORDS) == 36
    assert needle.needle_recall(answer, needle_text) == words.word_recall(answer, needle_text, RECALL_STOP_WORDS)
    assert needle.needle_recall(answer, needle_text) == 5 / 7  # eat sandwich sit dolores park / + sunny day
    assert np.allclose(lexical_similarity([needle_text], [answer]), [[5 / 7]])
    assert synthetic.verify_document(answer, {"i1": needle_text, "i2": "sunny day"}, 0.7) == ["i1"]
    assert synthetic._content_words("The Dolores Park") == set(words.content_words("The Dolores Park", NLTK_STOPWORDS))
    with pytest.raises(ValueError, match="the needle has no content words"):
        needle.needle_recall(answer, "the best thing")
