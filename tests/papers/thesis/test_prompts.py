"""The thesis's prompts (lcrag.papers.thesis.prompts): BAMBOO, CTX1 and CTX2, verbatim."""

from __future__ import annotations

import pytest

from lcrag.papers.thesis import prompts as thesis_prompts


def test_bamboo_prompt_full_is_unnumbered_and_rag_numbered():
    full = thesis_prompts.build_prompt("BAMBOO", "Q?", ["A. x", "B. y"], ["DOC"], setting="full")
    assert "Article: ```DOC```" in full and "n°" not in full
    assert (
        "Options: A. x\tB. y\n\nAnswer(Only give the corresponding letter (either A, B, C, or D)): " in full
    )
    rag = thesis_prompts.build_prompt("BAMBOO", "Q?", ["A. x", "B. y"], ["one"], setting="rag")
    assert "Article part n°1: ```one```" in rag
    thesis_style = thesis_prompts.bamboo_prompt("Q?", ["A. x", "B. y"], ["D"], options_format="thesis")
    assert 'Options: "A. x", "B. y"' in thesis_style
    with pytest.raises(ValueError, match="options_format"):
        thesis_prompts.format_options(["A. x"], "commas")


def test_bamboo_prompt_is_the_one_the_quickstart_store_holds():
    # the quickstart's recorded requests depend on this exact text (BAMBOO's prompt.json, "responsing" kept)
    p = thesis_prompts.bamboo_prompt("Q", ["A. a", "B. b"], ["x"])
    assert p.startswith(
        "You are given an article or a long dialogue, a multiple-choice question with four optional "
        "answer(marked by A, B, C, D). Please choose the best answer to the question based on the "
        "given content by responsing its corresponding letter"
    )
    assert p == thesis_prompts.bamboo_prompt("Q", ["A. a", "B. b"], ["x"], numbered=False)


def test_ctx1_prompt_verbatim_pieces():
    p = thesis_prompts.build_prompt("CTX1", "Why?", ["A. a", "B. b", "C. c", "D. d"], ["p1", "p2"])
    assert p.startswith(
        "Your task is to read a paper or an interview between people, after which a question with "
        "several choice is given, please answer to the best of your ability by a giving the letter"
    )
    assert 'Third, the choices follow AFTER the disclaimer "CHOICES HERE:".' in p
    assert "CONTENT HERE:\n\nPart n°1: ```p1```\n\nPart n°2: ```p2```\n\nQUESTION HERE:\n\nWhy?\n\n" in p
    assert "CHOICES HERE:\n\nA. a\n\nB. b\n\nC. c\n\nD. d\n\n" in p
    assert p.endswith("ANSWER HERE (Only give the corresponding letter (either A, B, C, or D)) :")


def test_ctx2_prompt_lists_the_choices_twice_and_uses_separators():
    p = thesis_prompts.build_prompt("CTX2", "Why?", ["A. a", "B. b"], ["p1"])
    assert p.startswith("Act as a helpful assistant, a question is provided and you must respond")
    assert p.count("The answer MUST be the LETTER of the choice you have picked") == 2
    assert "#####\n#####\nWhy?\n\n#####\n#####" in p
    assert "#####\n#####\n\nA. a\n\nB. b\n\n#####" in p  # first list: one option per paragraph
    assert "#####\n#####\n\nA. a\nB. b\n\n#####" in p  # second list: '\n'.join(choices)
    assert "Article part n°1: ```p1```" in p
    assert p.endswith("What is the answer? (Only give the corresponding letter (either A, B, C, or D))")


def test_custom_and_unknown_prompts():
    p = thesis_prompts.build_prompt(
        "MINE", "Q", ["A. a"], ["x", "y"], builders={"MINE": lambda q, o, parts: "|".join(parts)}
    )
    assert p == "x|y"
    with pytest.raises(ValueError, match="unknown prompt 'CTX3'"):
        thesis_prompts.build_prompt("CTX3", "Q", ["A. a"], ["x"])
