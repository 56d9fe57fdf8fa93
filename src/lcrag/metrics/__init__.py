"""Metrics, one module per family: multiple choice (BAMBOO), needle recall, ..."""

from lcrag.metrics.multiple_choice import bamboo_letter, lenient_letter, logprob_letter
from lcrag.metrics.needle import content_words, needle_recall

__all__ = ["bamboo_letter", "content_words", "lenient_letter", "logprob_letter", "needle_recall"]
