"""Metrics, one module per family: multiple choice (BAMBOO), needle recall, ..."""

from lcrag.metrics.multiple_choice import bamboo_letter, lenient_letter, logprob_letter
from lcrag.metrics.needle import content_words, needle_recall
from lcrag.metrics.summhay import (
    citation_prf,
    coverage_correlation,
    coverage_score,
    extract_citations,
    linking_accuracy,
    micro_average,
    score_insights,
    split_bullets,
    summary_scores,
    words_per_bullet,
)

__all__ = ["bamboo_letter", "content_words", "lenient_letter", "logprob_letter", "needle_recall"]
__all__ += ["citation_prf", "coverage_correlation", "coverage_score", "extract_citations", "linking_accuracy",
            "micro_average", "score_insights", "split_bullets", "summary_scores", "words_per_bullet"]
