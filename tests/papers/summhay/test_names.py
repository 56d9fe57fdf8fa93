"""The released files' names (lcrag.papers.summhay.names): a summary key names its summarizer and setting."""

from __future__ import annotations

import pytest

from lcrag.papers.summhay import names


def test_summary_keys_parse_to_summarizer_and_setting():
    assert names.parse_summary_key("summary_subtopic_dwzhu/e5-base-4k_gpt-4o") == ("gpt-4o", "longembed")
    assert names.parse_summary_key("summary_subtopic_claude3-opus") == ("claude3-opus", "full")
    assert names.parse_summary_key("summary_subtopic_fl-ctxt-rev-sort_gpt-4o") == ("gpt-4o", "bottom")
    with pytest.raises(ValueError, match="unknown retriever 'bm25'"):
        names.parse_summary_key("summary_subtopic_bm25_gpt-4o")
    with pytest.raises(ValueError, match="not a SummHay summary key"):
        names.parse_summary_key("gpt-4o")
