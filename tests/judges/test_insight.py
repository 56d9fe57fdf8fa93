"""SummHay's insight coverage judge (lcrag.judges.insight): the released prompt, filled as the released code fills
it, and the judge's answer parsing.

Expected values come from the released repository (salesforce/summary-of-a-haystack, commit 3e2007f: the prompt
file's size, ``populate_eval.py``) or from hand computation.
"""

from __future__ import annotations

import json

import pytest

from lcrag.judges import insight
from lcrag.metrics.summhay import FULL, NONE, PARTIAL


def test_the_eval_prompt_is_the_released_file_verbatim():
    # the size of prompts/eval_summhay.txt at commit 3e2007f
    assert len(insight.EVAL_PROMPT) == 2734
    assert insight.EVAL_PROMPT.startswith("You are given a list of bullet points (each with a unique number)")
    assert insight.EVAL_PROMPT.count("Example Output") == 3 and insight.EVAL_PROMPT.endswith("THE JSON RESPONSE.\n")
    assert '{"coverage": "NO_COVERAGE", "bullet_id": "NA"}' in insight.EVAL_PROMPT


def test_judge_prompt_fills_insight_and_bullets_as_the_released_code():
    p = insight.judge_prompt("Calm is used 15 min each morning", ["Intro line", "Students use Calm [3]."])
    bullets = json.dumps(
        {
            "bullets": [
                {"bullet_id": 1, "text": "Intro line"},
                {"bullet_id": 2, "text": "Students use Calm [3]."},
            ]
        },
        indent=1,
    )
    assert "[[" not in p
    assert (
        "Reference Insight:\nCalm is used 15 min each morning\n\nBullet Points:\n" + bullets + "\n\n\n" in p
    )


# ------------------------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"coverage": "FULL_COVERAGE", "bullet_id": 3}', (FULL, 3, "json")),
        ('```json\n{"coverage": "PARTIAL_COVERAGE", "bullet_id": "2"}\n```\nDone.', (PARTIAL, 2, "json")),
        ('{"coverage": "NO_COVERAGE", "bullet_id": "NA"}', (NONE, "NA", "json")),
        ('{"coverage": "FULL_COVERAGE", "bullet_id": [1, 2]}', (FULL, "NA", "json")),  # a list is no link
        ('{"coverage": "maybe"} then {"coverage": "partial_coverage", "bullet_id": 4}', (PARTIAL, 4, "json")),
        (
            'json = {"coverage": ["FULL_COVERAGE", "NO_COVERAGE"], "bullet_id": [1, 2]',
            (FULL, "NA", "lenient"),
        ),
        ("The insight has partial coverage, see bullet_id: 5.", (PARTIAL, 5, "lenient")),
        ("```python\nimport json\ndef f(x):\n    return x", (NONE, "NA", "unparseable")),
        ("", (NONE, "NA", "unparseable")),
    ],
)
def test_parse_judgment_reads_json_then_labels_and_counts_the_rest(answer, expected):
    p = insight.parse_judgment(answer)
    assert (p["coverage"], p["bullet_id"], p["parse"]) == expected
