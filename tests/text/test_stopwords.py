"""The standard stop-word lists in one home (lcrag.text.stopwords): NLTK's for SummHay's released keyword
retriever, unchanged, and scikit-learn's for the needle chapter's word counts."""

from __future__ import annotations

from lcrag.papers.summhay import synthetic
from lcrag.retrieval import keywords
from lcrag.text import stopwords


def test_summhays_keyword_retriever_reads_nltks_list_from_the_one_home():
    assert keywords.NLTK_STOPWORDS is stopwords.NLTK_STOPWORDS
    assert len(stopwords.NLTK_STOPWORDS) == 179 and {"the", "can", "only", "up", "didn't"} <= stopwords.NLTK_STOPWORDS
    assert "one" not in stopwords.NLTK_STOPWORDS  # why the needle chapter needs the larger list
    # keywords: laser, amplify, one, sideband, "?" ("can", "the" are NLTK stop words); "one laser" holds two
    assert keywords.KeywordRetriever(["one laser"]).scores("can the laser amplify one sideband?")[0] == 2 / 5
    assert "NLTK_STOPWORDS" not in vars(synthetic)  # imported where it is used, from the one home


def test_english_content_words_drop_sklearns_stop_words():
    words = stopwords.english_stop_words()
    assert len(words) == 318 and {"can", "one", "only", "up", "a", "of"} <= words and "best" not in words
    assert stopwords.english_content_words("The best thing: one can sit, only up ONE hill.") == [
        "best", "thing", "sit", "hill"]
