"""The thesis's pipeline codes (lcrag.papers.thesis.pipelines)."""

from __future__ import annotations

import pytest

from lcrag.papers.thesis import pipelines


def test_parse_pipeline():
    assert pipelines.parse_pipeline("cqt") == pipelines.Pipeline("CQT", "cosine", "question", "text")
    assert pipelines.parse_pipeline("BES") == pipelines.Pipeline("BES", "bm25", "evidence", "semantic")
    assert pipelines.parse_pipeline("NQT").ranker == "naive" and pipelines.parse_pipeline("SQT").ranker == "svm"
    with pytest.raises(ValueError, match="ranker C/B/S/N"):
        pipelines.parse_pipeline("XQT")
