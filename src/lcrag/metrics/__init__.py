"""Metrics, one module per family: multiple choice (BAMBOO), needle recall, open-answer QA (LongBench F1),
Summary of a Haystack."""

from lcrag.metrics.multiple_choice import bamboo_letter, lenient_letter, logprob_letter
from lcrag.metrics.needle import content_words, needle_recall
from lcrag.metrics.qa import dataset_f1, exact_match, normalize_answer, qa_f1
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
__all__ += ["dataset_f1", "exact_match", "normalize_answer", "qa_f1"]
