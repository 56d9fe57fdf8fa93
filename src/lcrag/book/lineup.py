"""Which runs the book makes: the model each chapter's page shows, and the companion runs behind the synthesis.

``notebooks/pages.yml`` names the model of each chapter's page (a chapter not listed shows the default model);
``notebooks/companions.yml`` lists the other models' runs that the synthesis's size axis reads. A page moves to a
new model when that model's recording of the chapter is complete; its earlier model stays on the size axis as a
companion, so no run is lost.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from lcrag import config
from lcrag.book.profiles import UsageError, chapter_source

#: Extra chapter runs the book makes for the synthesis (other models, other profiles): see :func:`read_companions`.
COMPANIONS_FILE = Path("notebooks") / "companions.yml"
#: The model each chapter's page shows: see :func:`page_models`.
PAGES_FILE = Path("notebooks") / "pages.yml"


def _read_yaml(path: Path, empty: Any) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or empty
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: not valid YAML: {exc}") from None


def _checked_spec(spec: Any, where: str) -> str:
    from lcrag.models.registry import parse_spec

    try:
        parse_spec(str(spec))
    except ValueError as exc:
        raise UsageError(f"{where}: {exc}") from None
    return str(spec)


def page_models(chapters: list[str], model: str | None = None, root: Path | None = None) -> dict[str, str]:
    """The model whose run each chapter's page shows.

    ``model`` (``lcrag book --model``) or ``$LCRAG_MODEL`` puts every page on one model; otherwise each chapter
    takes its entry in ``notebooks/pages.yml`` (``chapter: model spec``), and a chapter not listed there the
    default model. An entry naming no chapter of the book, or a malformed spec, raises :class:`UsageError`.
    """
    chosen = model or os.environ.get("LCRAG_MODEL")
    if chosen:
        return dict.fromkeys(chapters, chosen)
    root = Path(root) if root else config.project_root()
    path = root / PAGES_FILE
    listed = _read_yaml(path, {}) if path.exists() else {}
    if not isinstance(listed, dict):
        raise UsageError(f"{path}: expected `chapter: model spec` lines")
    unknown = sorted(set(map(str, listed)) - set(chapters))
    if unknown:
        raise UsageError(f"{path}: not chapters of the book: {', '.join(unknown)}; they are: {', '.join(chapters)}")
    specs = {str(c): _checked_spec(m, f"{path}: {c}") for c, m in listed.items()}
    return {c: specs.get(c, config.DEFAULT_MODEL) for c in chapters}


@dataclass(frozen=True)
class Companion:
    """Chapter runs of another model (or profile) that the book makes without pages of their own.

    The synthesis chapter shows one view per model; each model on its size axis needs runs of every chapter,
    and those runs, like the pages', re-execute from the committed response store.
    """

    model: str
    profile: str
    chapters: tuple[str, ...]
    #: chapter -> parameter overrides of that chapter's run (a run recorded with other values than the profile's)
    parameters: dict[str, dict[str, Any]] = field(default_factory=dict, compare=True)


def read_companions(root: Path | None = None) -> list[Companion]:
    """The companion runs listed in ``notebooks/companions.yml`` (none if the file does not exist)::

        - model: local/gemma3-270m
          profile: quick
          chapters: [thesis, long2rag, longrag, summhay]
          parameters:  # optional: a chapter's run with other values than its profile's
            long2rag: {judge_model: local/smollm2-135m-instruct}

    An entry without ``chapters`` runs every registered chapter that gives the synthesis an experiment family
    (:mod:`lcrag.chapters`): a paper added to the package joins such a model's size axis without an edit here.
    A run that is also a chapter's page (same model and profile) is made once, as the page. A malformed file, an
    unknown profile or a chapter without a source raises :class:`UsageError` naming it.
    """
    from lcrag.book.profiles import PROFILES

    root = Path(root) if root else config.project_root()
    path = root / COMPANIONS_FILE
    if not path.exists():
        return []
    data = _read_yaml(path, [])
    if not isinstance(data, list):
        raise UsageError(f"{path}: expected a list of {{model, profile, chapters}} entries")
    out = []
    for i, entry in enumerate(data, 1):
        if not isinstance(entry, dict) or set(entry) - {"model", "profile", "chapters", "parameters"} or "model" not in entry:
            raise UsageError(f"{path}: entry {i}: expected keys model, profile, chapters, parameters; got {entry!r}")
        spec = _checked_spec(entry["model"], f"{path}: entry {i}")
        profile = str(entry.get("profile", "default"))
        if profile not in PROFILES:
            raise UsageError(f"{path}: entry {i}: unknown profile {profile!r}; profiles are {', '.join(PROFILES)}")
        chapters = tuple(str(c) for c in entry["chapters"]) if "chapters" in entry else _family_chapters()
        missing = [c for c in chapters if not chapter_source(c, root).exists()]
        if missing:
            raise UsageError(f"{path}: entry {i}: no notebooks/<chapter>.md for {', '.join(missing)}")
        parameters = entry.get("parameters") or {}
        if not isinstance(parameters, dict) or not all(isinstance(v, dict) for v in parameters.values()):
            raise UsageError(f"{path}: entry {i}: parameters must map a chapter to {{name: value}}; got {parameters!r}")
        stray = sorted(set(map(str, parameters)) - set(chapters))
        if stray:
            raise UsageError(f"{path}: entry {i}: parameters for chapters it does not run: {', '.join(stray)}")
        out.append(Companion(spec, profile, chapters, {str(c): dict(v) for c, v in parameters.items()}))
    return out


def companion_profiles(root: Path | None = None) -> dict[tuple[str, str], str]:
    """``(chapter, model spec) -> profile`` of each companion run in ``notebooks/companions.yml`` (the first
    entry wins): the run of that model and chapter the book makes, which the synthesis prefers to any other
    profile's run left in ``runs/`` by an earlier lineup or by hand."""
    out: dict[tuple[str, str], str] = {}
    for comp in read_companions(root):
        for chapter in comp.chapters:
            out.setdefault((chapter, comp.model), comp.profile)
    return out


def _family_chapters() -> tuple[str, ...]:
    from lcrag.chapters import chapters

    return tuple(c.name for c in chapters() if c.family is not None)
