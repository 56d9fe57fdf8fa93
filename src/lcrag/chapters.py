"""The chapters of the book, as registered units: which paper each belongs to and what it gives the synthesis.

A chapter is ``notebooks/<name>.md`` plus a declaration. Each paper package declares its paper and chapter(s) in
a module ``lcrag.papers.<paper>.chapter`` holding ``CHAPTERS``, a tuple of :class:`Chapter`; this module finds
them by iterating the :mod:`lcrag.papers` packages, so adding a paper is one package (with its ``chapter``
module), one notebook and one ``notebooks/profiles.yml`` entry (the book's table of contents gives the chapter a
part of its own, :mod:`lcrag.book.toc`, until ``_toc.yml`` places it by hand)::

    PAPER = Paper("long2rag", "Long²RAG (Qi et al. 2024)", "Long²RAG")
    CHAPTERS = (Chapter("long2rag", "Long²RAG: Key Point Recall ...", PAPER, order=30, family=comparison.FAMILY),)

The book's own chapters (the quickstart, the synthesis) are declared here. Modules named in ``LCRAG_CHAPTERS``
(comma-separated; e.g. a paper kept outside this package, or a test's fixture chapter) are read after the
papers, in this process and in every notebook kernel the runner starts (they inherit the environment).

    chapter("thesis").paper.short        # "Thesis"
    [c.name for c in chapters()]         # every chapter, by (order, name)
    last_chapters()                      # ("synthesis",): they read the others' tables, so they run last
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lcrag.data import bamboo

#: Environment variable: more modules that declare ``CHAPTERS`` (comma-separated module names).
CHAPTERS_ENV = "LCRAG_CHAPTERS"


@dataclass(frozen=True)
class Paper:
    """A paper the book reproduces: its key (``ClaimsLedger(paper=key)``), full and short names."""

    key: str
    name: str  # e.g. "Long²RAG (Qi et al. 2024)": the claims page's verdicts per paper
    short: str  # e.g. "Long²RAG": the claims dashboard's paper column


@dataclass(frozen=True)
class Chapter:
    """One chapter: ``notebooks/<name>.md``, its title, its paper (None for the book's own chapters).

    ``order`` places it among the chapters (the synthesis shows its families in this order); a chapter that
    ``reads_chapters`` reads the other chapters' saved tables (no model call), so the book runs it after them
    and again whenever one of them runs. ``family`` is its contribution to the synthesis, a
    :class:`lcrag.synthesis.Family` named like the chapter, or None. ``choices`` names the string parameters
    that take one of a few words, e.g. ``(("parse", ("strict", "default", "words")),)``; ``minimums`` the
    numeric parameters (or lists, or mappings of lists) whose every number must be at least a value, e.g. the
    needle's context lengths, or may go below the usual floor of 0, e.g. the thesis's ``grid_per_task`` (-1: all).
    An allowed word may be a placeholder: ``llm:<model name>`` admits any word with that prefix, ``<directory>`` an
    existing directory. ``models`` names the parameters that hold the model specs (or lists of them) the chapter
    calls (None: those whose name ends in model(s), judge or teacher); ``datasets`` the data manifest's datasets
    it reads. Both are checked before a kernel starts too.
    """

    name: str
    title: str
    paper: Paper | None = None
    order: int = 500
    reads_chapters: bool = False
    family: Any = None  # lcrag.synthesis.Family (not imported here: the synthesis reads this module)
    choices: tuple = ()  # (parameter, allowed words) pairs: checked before a kernel starts (lcrag.book.preflight)
    minimums: tuple = ()  # (parameter, least value) pairs: checked there too
    models: tuple | None = None  # parameters naming the models it calls; None: lcrag.book.preflight's name pattern
    datasets: tuple = ()  # the datasets of data/manifest.json it reads (their files are checked before a run)


class Registry:
    """Chapters and papers by name; iteration by (order, name) for chapters and by key for papers."""

    def __init__(self) -> None:
        self._chapters: dict[str, Chapter] = {}
        self._papers: dict[str, Paper] = {}

    def register(self, *items: Chapter | Paper) -> None:
        """Add chapters (with their papers) and papers. A chapter name registered twice, a paper key registered
        with two different papers, or a family not named like its chapter is a ValueError; nothing is added then."""
        papers = dict(self._papers)
        chapters = dict(self._chapters)
        for item in items:
            if isinstance(item, Chapter):
                if item.name in chapters:
                    raise ValueError(f"chapter {item.name!r} is registered twice: {chapters[item.name].title!r} and "
                                     f"{item.title!r} (each chapter name once; LCRAG_CHAPTERS adds modules)")
                family = getattr(item.family, "name", item.name)
                if family != item.name:
                    raise ValueError(f"chapter {item.name!r} carries the family of {family!r}: name them alike")
                chapters[item.name] = item
                item = item.paper
            if isinstance(item, Paper):
                if papers.get(item.key, item) != item:
                    raise ValueError(f"paper {item.key!r} is registered twice, as {papers[item.key]} and {item}")
                papers[item.key] = item
            elif item is not None:
                raise TypeError(f"register() takes Chapter and Paper declarations, not {item!r}")
        self._papers, self._chapters = papers, chapters

    def chapter(self, name: str) -> Chapter:
        if name not in self._chapters:
            raise LookupError(f"unknown chapter {name!r}; the registered chapters are: {', '.join(self.names())}")
        return self._chapters[name]

    def chapters(self) -> list[Chapter]:
        return sorted(self._chapters.values(), key=lambda c: (c.order, c.name))

    def names(self) -> list[str]:
        return [c.name for c in self.chapters()]

    def paper(self, key: str) -> Paper:
        if key not in self._papers:
            raise LookupError(f"unknown paper {key!r}; the registered papers are: {', '.join(sorted(self._papers))}")
        return self._papers[key]

    def papers(self) -> list[Paper]:
        return [self._papers[k] for k in sorted(self._papers)]


#: The book's own chapters, not a paper's: the tutorial, and the synthesis that reads every other chapter's tables.
BOOK_CHAPTERS = (
    Chapter("quickstart", "Quickstart: long context or RAG, end to end", order=0, models=(),
            choices=(("task", bamboo.TASKS),), datasets=("bamboo", "paul_graham_essays")),
    Chapter("synthesis", "When does long context beat RAG?", order=1000, reads_chapters=True, models=()),
)


def declaring_modules() -> list[str]:
    """The modules that declare chapters: ``lcrag.papers.<paper>.chapter`` of every paper package that has one
    (alphabetical), then those in ``LCRAG_CHAPTERS``."""
    import lcrag.papers

    found = [f"lcrag.papers.{m.name}.chapter" for m in pkgutil.iter_modules(lcrag.papers.__path__) if m.ispkg]
    found = [name for name in found if importlib.util.find_spec(name) is not None]
    extra = [m.strip() for m in os.environ.get(CHAPTERS_ENV, "").split(",") if m.strip()]
    return found + extra


def discover(modules: Iterable[str] | None = None) -> Registry:
    """A registry of the book's chapters and those the ``modules`` (default :func:`declaring_modules`) declare
    in their ``CHAPTERS``; a module without ``CHAPTERS`` is a ValueError naming it."""
    reg = Registry()
    reg.register(*BOOK_CHAPTERS)
    for name in declaring_modules() if modules is None else modules:
        declared = getattr(importlib.import_module(name), "CHAPTERS", None)
        if declared is None:
            raise ValueError(f"module {name} declares no CHAPTERS (a tuple of lcrag.chapters.Chapter)")
        reg.register(*declared)
    return reg


_REGISTRY: Registry | None = None


def registry() -> Registry:
    """The process's registry, discovered on first use."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = discover()
    return _REGISTRY


def register(*items: Chapter | Paper) -> None:
    """Add chapters or papers to the process's registry (see :meth:`Registry.register`)."""
    registry().register(*items)


def chapter(name: str) -> Chapter:
    """The chapter ``name``; a LookupError naming the registered chapters if there is none."""
    return registry().chapter(name)


def chapters() -> list[Chapter]:
    """Every registered chapter, by (order, name)."""
    return registry().chapters()


def paper(key: str) -> Paper:
    """The paper ``key``; a LookupError naming the registered papers if there is none."""
    return registry().paper(key)


def papers() -> list[Paper]:
    """Every registered paper, by key."""
    return registry().papers()


def last_chapters() -> tuple[str, ...]:
    """The chapters that read the other chapters' tables: the book runs them after the others."""
    return tuple(c.name for c in chapters() if c.reads_chapters)
