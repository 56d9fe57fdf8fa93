"""SummHay's insight coverage judge (Laban et al. 2024, §A.2): does a summary's bullet cover an insight?

The released evaluation prompt (:data:`EVAL_PROMPT`), filled for one insight and one summary as the released
``populate_eval.py`` does (:func:`judge_prompt`) and asked of a judge model (:func:`run_judge`), answers a coverage
label (``FULL_COVERAGE`` / ``PARTIAL_COVERAGE`` / ``NO_COVERAGE``) and the bullet that covers the insight.
:func:`parse_judgment` reads the answer: JSON first, as the released ``generate_json`` wrapper; then a lenient label
search; an answer with no label is *unparseable*, counted, and scored as no coverage. The judge on the annotated
insights of ``eval_benchmark_data.json`` and its tables are :mod:`lcrag.papers.summhay.llm_judge`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from lcrag.metrics.summhay import FULL, NONE, PARTIAL, normalize_label

#: ``prompts/eval_summhay.txt`` of salesforce/summary-of-a-haystack (commit 3e2007f), byte for byte: the paper's
#: A.2 prompt with the three released doctor-patient examples inline. ``[[INSIGHT]]`` and ``[[BULLETS]]`` are
#: filled by :func:`judge_prompt`.
EVAL_PROMPT = """You are given a list of bullet points (each with a unique number), and a specific reference insight. Your objective is to determine whether the reference insight is covered in any of the bullet points. You must further determine if the insight is partially covered ("PARTIAL_COVERAGE") or fully covered ("FULL_COVERAGE") by the bullet points. If the insight is not covered at all, you must return "NO_COVERAGE". See examples below:

Example Reference Insight 1: "The doctor asks the patient about their medical history".

Example Bullet Points 1:
{"bullets": [
    {"bullet_id": 1, "text": "The patient often mention that they are worried about medication side-effect[12][14]."},
    {"bullet_id": 2, "text": "The doctor and patient spend time going over symptoms [3][8], particularly the initial symptoms and the progression in the last few months[5]."},
    {"bullet_id": 3, "text": "The doctor and patient discuss medical history within the patient's family[1][5], with the patient often unaware that some of the conditions are hereditary[2]."}
]
}

Example Output 1:
{"coverage": "FULL_COVERAGE", "bullet_id": 3}

Example Reference Insight 2: "The doctor asks the patient about their medical history".

Example Bullet Points 2:
{"bullets": [
    {"bullet_id": 1, "text": "The patient often mention that they are worried about medication side-effect[12][14]."},
    {"bullet_id": 2, "text": "The doctor and patient spend time going over symptoms [3][8], particularly the initial symptoms and the progression in the last few months[5]."}
]
}

Example Output 2:
{"coverage": "NO_COVERAGE", "bullet_id": "NA"}

Example Reference Insight 3: "The doctor asks the patient about their medical history".

Example Bullet Points 3:
{"bullets": [
    {"bullet_id": 1, "text": "The patient often mention that they are worried about medication side-effect[12][14]."},
    {"bullet_id": 2, "text": "The doctor and patient catch up after a long time, with the patient mentioning feeling unwell for a while, and knowing of other family member's similar experiences[20]."},
    {"bullet_id": 3, "text": "The doctor and patient spend time going over symptoms [3][8], particularly the initial symptoms and the progression in the last few months[5]."}
]
}

Example Output 3:
{"coverage": "PARTIAL_COVERAGE", "bullet_id": 2}

Now complete the task for the following insight and bullet points:

Reference Insight:
[[INSIGHT]]

Bullet Points:
[[BULLETS]]


Requirements:
- Do not hallucinate that the insight is covered by the bullet points if it is not.
- Your response should only be the JSON output in the format above, such that it can directly parsed by Python's json module. DO NOT OUTPUT ANY EXPLANATION OR ANYTHING THAT IS NOT THE JSON RESPONSE.
"""  # noqa: E501


#: How an answer was read: ``json`` (a JSON object with a known coverage label), ``lenient`` (a label found in
#: free text), ``unparseable`` (no label: scored as no coverage, counted).
PARSE_STATUSES = ("json", "lenient", "unparseable")
_JSON_OBJECT = re.compile(r"\{[^{}]*\}", re.S)
_LABEL = re.compile(r"\b(FULL|PARTIAL|NO)[ _-]?COVERAGE\b", re.I)
_BULLET_ID = re.compile(r"bullet[ _-]?id[\"']?\s*[:=]\s*[\"']?(\d+|NA)\b", re.I)  # a list "[1, 2]" is no id


def judge_prompt(insight: str, bullets: Sequence[str]) -> str:
    """The released evaluation prompt for one insight and one summary (``populate_eval.evaluate_insights``):
    bullets as ``json.dumps({"bullets": [{"bullet_id": i + 1, "text": b}, ...]}, indent=1)``."""
    bullets_str = json.dumps(
        {"bullets": [{"bullet_id": i + 1, "text": b} for i, b in enumerate(bullets)]}, indent=1
    )
    return EVAL_PROMPT.replace("[[BULLETS]]", bullets_str).replace("[[INSIGHT]]", insight)


def _bullet_id(value) -> int | str:
    """An integer bullet id, or ``"NA"`` for anything that is not one (lists, strings, None)."""
    if isinstance(value, bool):
        return "NA"
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return "NA"


def parse_judgment(text: str) -> dict:
    """Read a judge's answer: ``{"coverage": label, "bullet_id": int | "NA", "parse": status}``.

    1. ``json``: the first ``{...}`` object in the text (code fences and chatter around it are ignored) that
       ``json.loads`` reads and whose ``coverage`` is a known label (the released code asks the wrapper for JSON
       and reads ``coverage`` and ``bullet_id``);
    2. ``lenient``: otherwise the first label written anywhere (``FULL_COVERAGE``, ``partial coverage`` ...) and a
       ``bullet_id`` number after it, if any;
    3. ``unparseable``: no label at all. Such an answer is scored ``NO_COVERAGE`` (a judge that says nothing
       has found nothing) and counted in the chapter, never dropped.

    A ``bullet_id`` that is not an integer (``"NA"``, a list) is ``"NA"``: no link, as Table 1 counts it.
    """
    for m in _JSON_OBJECT.finditer(text or ""):
        try:
            obj = json.loads(m.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and "coverage" in obj:
            try:
                label = normalize_label(obj["coverage"])
            except ValueError:
                continue
            return {"coverage": label, "bullet_id": _bullet_id(obj.get("bullet_id")), "parse": "json"}
    m = _LABEL.search(text or "")
    if m:
        label = {"FULL": FULL, "PARTIAL": PARTIAL, "NO": NONE}[m.group(1).upper()]
        b = _BULLET_ID.search(text, m.end()) or _BULLET_ID.search(text)
        return {"coverage": label, "bullet_id": _bullet_id(b.group(1)) if b else "NA", "parse": "lenient"}
    return {"coverage": NONE, "bullet_id": "NA", "parse": "unparseable"}


def run_judge(model, prompts: Sequence[str], max_tokens: int = 48) -> list:
    """The model's answers to judge prompts, in order (``model.map``; temperature 0, as a judge should be)."""
    return model.map("ask", [{"prompt": p, "max_tokens": max_tokens, "temperature": 0.0} for p in prompts])

