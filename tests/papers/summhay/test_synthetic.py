"""The synthetic haystack's readings (:mod:`lcrag.papers.summhay.synthetic`): of its settings, and of what the
synthesis produced."""

import pandas as pd

from lcrag.papers.summhay import synthetic


def test_contexts_sentence_says_when_the_settings_hold_the_same_documents():
    """§7: Random and Oracle both holding the whole 10-document haystack differ only in order; insights repeated
    across subtopics are named."""
    results = pd.DataFrame({"setting": ["random", "oracle"], "coverage": [66.7, 50.0], "n_documents": [10.0, 10.0],
                            "relevant_in_context": [10.0, 10.0]})
    report = pd.DataFrame({"subtopic": ["Where", "Where", "Why"],
                           "insight": ["It is open from 9 AM to 5 PM every day.", "It has 10,000 books.",
                                       "It is open from 9 AM to 5 PM every weekday."]})
    text = synthetic.contexts_sentence(results, report, 10)
    assert "(Random and Oracle) holds all 10 documents" in text and "says nothing about retrieval" in text
    assert text.count("1 pair of insights") == 1 and 'under "Where", and its near copy under "Why"' in text
    text = synthetic.contexts_sentence(results.assign(n_documents=[10.0, 4.0]), report.iloc[:2], 10)
    assert "hold different documents" in text and "pair" not in text


def test_the_synthetic_haystacks_reading_counts_as_before():
    import pandas as pd

    from lcrag.papers.summhay.synthetic import synthesis_reading

    raw = {"subtopics": [{}], "documents": [{}, {}]}
    report = pd.DataFrame({"insight": ["Sales rose 5 % in 2022."], "subtopic": ["Q4 results"]})
    assert synthesis_reading(raw, report, 3, 1).startswith(
        "The model wrote 1 subtopic with 1 insight (3 planned) and 2 documents, in 1 model call. **This haystack is "
        "degenerate** (only 1 insight): ")
