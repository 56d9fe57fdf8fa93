"""The self-evaluator's [STEP-2] verdict: read strictly, and as the released code reads it.

:func:`parse_judgement` reads an answer into a :class:`Judgement` (its form and status, and what the code's
lenient reader :func:`lcrag.papers.longrag.cot_filter.parse_status` decides); :func:`rejection` says why a
generated sample is not kept under a rule ("strict" or "code").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from lcrag.papers.longrag.cot_filter import parse_status
from lcrag.text import as_text


@dataclass(frozen=True)
class Judgement:
    """A self-evaluator's answer, read strictly: ``status`` True/False, or None when ``form`` is "malformed".

    ``form``: "json" (the whole answer is ``{"status": ...}``), "embedded_json" (such an object inside other
    text), "status_line" (the paper's printed format ``status: True``), or "malformed".
    ``code_true``: what the released code decides (:func:`lcrag.papers.longrag.cot_filter.parse_status`: JSON, else
    "True"/"true" anywhere in the text counts as True).
    """

    status: bool | None
    form: str
    code_true: bool

    def accepted(self, rule: str = "strict") -> bool:
        """Keep the sample? ``strict``: a well-formed True; ``code``: the released code's lenient reading."""
        if rule not in RULES:
            raise ValueError(f"unknown rule {rule!r}: {' or '.join(map(repr, RULES))}")
        return self.code_true if rule == "code" else self.status is True


#: The rules a sample is kept under (:meth:`Judgement.accepted`).
RULES = ("strict", "code")
_OBJECT = re.compile(r"\{[^{}]*\}")
_STATUS_LINE = re.compile(r"""["']?status["']?\s*[:=]\s*["'{]*\s*(true|false)\b""", re.IGNORECASE)


def _status_value(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _json_status(text: str) -> bool | None:
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    return _status_value(obj.get("status")) if isinstance(obj, dict) else None


def parse_judgement(text: str | None) -> Judgement:
    """Read a [STEP-2] answer; never raises. Fences such as ```json are ignored."""
    raw = as_text(text)
    body = re.sub(r"^```(?:json)?\s*|\s*```$", "", raw.strip())
    code_true = parse_status(raw)
    status = _json_status(body)
    if status is not None:
        return Judgement(status, "json", code_true)
    for obj in _OBJECT.findall(body):
        status = _json_status(obj)
        if status is not None:
            return Judgement(status, "embedded_json", code_true)
    m = _STATUS_LINE.search(body)
    if m:
        return Judgement(m.group(1).lower() == "true", "status_line", code_true)
    return Judgement(None, "malformed", code_true)



def rejection(judgement: Judgement | None, rule: str, too_short: bool = False) -> str:
    """Why a generated sample is not kept under ``rule`` ("" = kept). ``too_short``: [STEP-1] gave fewer than
    the minimum tokens (no judgement was asked); ``judgement`` None otherwise means none was asked either."""
    if too_short:
        return "too short"
    if judgement is None:
        return "not judged"
    if judgement.accepted(rule):
        return ""
    if rule == "strict" and judgement.form == "malformed":
        return "judgement malformed"
    return "judged False"
