"""Which model plays which part in a chapter's run: the one place a chapter's model roles are resolved.

A chapter's parameters name its models by spec, and most may be left empty. :func:`roles` turns them into the
models the run uses, filling each empty one by the book's rule:

===========  ==================================================  ==============================================
role         what it does                                        when the run names none
===========  ==================================================  ==============================================
generator    answers the chapter's questions (``--model``)      ``LCRAG_MODEL``, else SmolLM2
judge        scores answers (Kamradt, entailment, insight)       :func:`lcrag.judges.default.default_judge`: the
                                                                 1.5B for an embedded model, else the generator
judges       the judges an evaluator study measures              :func:`lcrag.judges.default.default_judges`
component    LongRAG's extractor and CoT filter                  the generator
teacher      writes LongRAG's LRGinstruction data                the generator
embedder     dense retrieval, semantic chunking                  ``local/all-minilm-l6-v2``
===========  ==================================================  ==============================================

A chapter asks only for the roles it has: ``roles(model, judge=judge_model)`` resolves the generator and a judge
(``judge_model`` empty or None: the default), and leaves the other roles unset. Nothing is loaded: models start
their server on their first call, embedders on their first text.

    r = roles("local/gemma3-270m", judge="")
    r.judge.spec         # "local/qwen2.5-coder-1.5b-instruct"
    r.describe()         # "generator: local/gemma3-270m | judge: local/qwen2.5-coder-1.5b-instruct (default)"
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lcrag.models.client import Model, get_model

#: A role the chapter does not have (its keyword left out of :func:`roles`).
_UNSET: Any = object()
#: The order :meth:`Roles.describe` names them in.
ROLES = ("generator", "judge", "judges", "component", "teacher", "embedder")


@dataclass(frozen=True)
class Roles:
    """The models of one run, by role (None or ``()`` for a role the chapter does not have); ``defaulted`` names
    the roles the book's rule filled."""

    generator: Model
    judge: Model | None = None
    judges: tuple[Model, ...] = ()
    component: Model | None = None
    teacher: Model | None = None
    embedder: Any = None  # an lcrag.models.embeddings.Embedder
    defaulted: frozenset[str] = field(default_factory=frozenset)

    def specs(self) -> dict[str, str | list[str]]:
        """Each role the run has, with its model's spec (``judges``: a list)."""
        out: dict[str, str | list[str]] = {}
        for role in ROLES:
            value = getattr(self, role)
            if role == "judges":
                if value:
                    out[role] = [m.spec for m in value]
            elif value is not None:
                out[role] = value.name if role == "embedder" else value.spec
        return out

    def describe(self) -> str:
        """One line: each role and its model, ``(default)`` after those the rule chose."""
        words = []
        for role, spec in self.specs().items():
            shown = ", ".join(spec) if isinstance(spec, list) else spec
            words.append(f"{role}: {shown}" + (" (default)" if role in self.defaulted else ""))
        return " | ".join(words)


def roles(
    model: str | None,
    *,
    judge: str | None = _UNSET,
    judges: Sequence[str] | None = _UNSET,
    component: str | None = _UNSET,
    teacher: str | None = _UNSET,
    embedder: str | None = _UNSET,
) -> Roles:
    """The run's models: the generator (``model``; None: ``LCRAG_MODEL`` or SmolLM2) and each role passed by
    keyword, its spec or, when empty, the book's default (see the module docstring). Unknown specs raise
    :class:`lcrag.models.UnknownModelError` (or the embedder's ``EmbeddingError``) before anything is loaded."""
    from lcrag.judges.default import default_judge, default_judges

    generator = get_model(model)
    chosen: dict[str, Any] = {}
    defaulted = set() if model else {"generator"}

    def pick(role: str, given, default):
        if given is _UNSET:
            return None
        if not given:
            defaulted.add(role)
            given = default()
        return given

    if (spec := pick("judge", judge, lambda: default_judge(generator))) is not None:
        chosen["judge"] = get_model(spec)
    if (specs := pick("judges", judges, lambda: default_judges(generator))) is not None:
        chosen["judges"] = tuple(get_model(s) for s in specs)
    for role, given in (("component", component), ("teacher", teacher)):
        if (spec := pick(role, given, lambda: generator.spec)) is not None:
            chosen[role] = get_model(spec)
    if embedder is not _UNSET:
        from lcrag.models.embeddings import DEFAULT_EMBEDDER, get_embedder

        chosen["embedder"] = get_embedder(pick("embedder", embedder, lambda: DEFAULT_EMBEDDER))
    return Roles(generator, defaulted=frozenset(defaulted), **chosen)
