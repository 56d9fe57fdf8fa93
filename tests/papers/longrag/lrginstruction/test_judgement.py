"""The self-evaluator's answers (lcrag.papers.longrag.lrginstruction.judgement): each form read, and the strict and
the code's rules with their rejection reasons."""

from __future__ import annotations

import pytest

from lcrag.papers.longrag.lrginstruction import judgement


@pytest.mark.parametrize(
    "text, status, form, code_true",
    [
        ('{"status": "True"}', True, "json", True),
        ('{"status": "false"}', False, "json", False),
        ('{"status": true}', True, "json", True),
        (
            '```json\n{"status": "False"}\n```',
            False,
            "json",
            False,
        ),  # fenced: the code falls back to its regex
        ('Sure. {"status": "True"} since the info names him.', True, "embedded_json", True),
        ("status: False", False, "status_line", False),
        ('"status": "TRUE"', True, "status_line", False),  # the code's regex is "True|true": case-sensitive
        (
            'The answer is: Elizabeth\nSet the value of status to "True"',
            None,
            "malformed",
            True,
        ),  # a real SmolLM2 answer
        ('{"status": "{the value of status}"}', None, "malformed", False),  # the template echoed
        ('{"status": "maybe"}', None, "malformed", False),
        ("", None, "malformed", False),
        (None, None, "malformed", False),
    ],
)
def test_parse_judgement(text, status, form, code_true):
    j = judgement.parse_judgement(text)
    assert (j.status, j.form, j.code_true) == (status, form, code_true)


def test_rules_and_rejection_reasons():
    ok, false, bad = (
        judgement.parse_judgement('{"status":"True"}'),
        judgement.parse_judgement("status: false"),
        judgement.parse_judgement('I think "True".'),
    )
    assert ok.accepted("strict") and ok.accepted("code")
    assert not false.accepted("strict") and not false.accepted("code")
    assert not bad.accepted("strict") and bad.accepted("code")  # the code's fallback: "True" anywhere
    assert judgement.rejection(bad, "strict") == "judgement malformed" and judgement.rejection(bad, "code") == ""
    assert judgement.rejection(false, "strict") == "judged False" and judgement.rejection(ok, "strict") == ""
    assert judgement.rejection(None, "strict", too_short=True) == "too short"
    with pytest.raises(ValueError, match="rule"):
        ok.accepted("lenient")
