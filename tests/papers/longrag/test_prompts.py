"""LongRAG's prompts (lcrag.papers.longrag.prompts): the released strings."""

from __future__ import annotations

from lcrag.papers.longrag.prompts import cot_prompt, extractor_prompt, filter_prompt, generator_prompt


def test_prompts_are_the_released_strings():
    assert generator_prompt("PASSAGES", "Q?").endswith("Question: Q?\nAnswer:")
    assert "The following are given passages.\nPASSAGES\n\n" in generator_prompt("PASSAGES", "Q?")
    assert cot_prompt(["a", "b"], "Q?") == (
        "a\nb\n\nPlease combine the above information and give your thinking process for the following "
        "question:Q?."
    )
    assert extractor_prompt(["a", "b"], "Q?").startswith("ab.\n\nBased on the above background")
    f = filter_prompt("ART", "Q?", "COT")
    assert f.startswith("Given an article:ART\nQuestion: Q?.\nThought process:COT.\n")
    assert f.endswith('json format: {"status": "{the value of status}"}')
