"""Which LLM judges the book's runs.

Wherever the book needs an LLM judge (Kamradt's 1-10 needle score, :mod:`lcrag.judges.kamradt`; SummHay's insight
coverage, :mod:`lcrag.judges.insight`; Long²RAG's key-point entailment, :mod:`lcrag.judges.entailment`) and a run
names none, a run on an embedded model is judged by the most capable embedded chat model,
Qwen2.5-Coder-1.5B-Instruct (:data:`CAPABLE_JUDGE`; SmolLM2 and Gemma-3 cannot judge), and a chat model a user
brings judges itself (:func:`default_judge`). An evaluator study measures every embedded chat judge
(:func:`default_judges`). A results table names an LLM judge by :func:`judge_label`.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The judge of a run on the embedded models: the most capable embedded chat model (issue 17).
CAPABLE_JUDGE = "local/qwen2.5-coder-1.5b-instruct"
#: The embedded chat models measured as judges against human labels (SummHay's evaluator study), best first.
EMBEDDED_JUDGES = (CAPABLE_JUDGE, "local/qwen2.5-coder-0.5b-instruct")


def default_judge(run_model, capable: str = CAPABLE_JUDGE) -> str:
    """The judge of a run that names none: ``capable`` when the run's model is an embedded one (SmolLM2 and
    Gemma-3 cannot judge; the 1.5B judges itself), else the run's model when it is a chat model (a model brought
    by the user judges its own answers, as GPT-3.5 did in the thesis), else ``capable``."""
    if run_model.info.is_local or run_model.info.kind != "chat":
        return capable
    return run_model.spec


def default_judges(run_model, embedded: Sequence[str] = EMBEDDED_JUDGES) -> list[str]:
    """The judges an evaluator study measures when a run names none: every embedded chat judge for a run on an
    embedded model, else :func:`default_judge` alone (a brought chat model judges itself)."""
    first = default_judge(run_model, embedded[0])
    return list(embedded) if first == embedded[0] else [first]


#: The two ways the results tables name an LLM judge (:func:`judge_label`).
JUDGE_LABELS = ("spec", "evaluator")


def judge_label(spec: str, parse: str = "default", *, style: str = "spec") -> str:
    """How a results table names the LLM judge ``spec``. ``style="spec"`` (Long²RAG's ``judge`` column): the spec,
    with ``+<parse>`` when its answers are read by a parser other than the default
    (:data:`lcrag.judges.entailment.PARSERS`), e.g. ``local/qwen2.5-coder-1.5b-instruct+words``;
    ``style="evaluator"`` (SummHay's ``evaluator`` column, beside ``human`` and the paper's evaluators):
    ``llm:<model name>``, the spec without its provider, read by the default parser only."""
    if style not in JUDGE_LABELS:
        raise ValueError(f"style must be one of {', '.join(JUDGE_LABELS)}, not {style!r}")
    if style == "evaluator":
        if parse != "default":
            raise ValueError(f"an evaluator label has no parser, got {parse!r}")
        return "llm:" + spec.split("/", 1)[-1]
    return spec + ("" if parse == "default" else f"+{parse}")
