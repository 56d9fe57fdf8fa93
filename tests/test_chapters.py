"""lcrag.chapters: the registry of the book's chapters, and a new chapter added without editing a shared module
(the toy paper of ``tests/fixtures/chapters``: one package, one notebook, one profiles entry)."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from helpers import FIXTURES

from lcrag import chapters
from lcrag import synthesis as S
from lcrag.chapters import Chapter, Paper, Registry

BOOK_ORDER = ["quickstart", "needle", "thesis", "long2rag", "longrag", "summhay", "synthesis"]
SMOL = "local/smollm2-135m-instruct"


def test_the_books_chapters_papers_and_families_in_their_order():
    assert [c.name for c in chapters.chapters()] == BOOK_ORDER
    assert chapters.last_chapters() == ("synthesis",)
    assert [p.key for p in chapters.papers()] == ["long2rag", "longrag", "summhay", "thesis"]
    assert chapters.paper("long2rag") == Paper("long2rag", "Long²RAG (Qi et al. 2024)", "Long²RAG")
    assert chapters.chapter("needle").paper is chapters.paper("thesis")  # the thesis has two chapters
    assert chapters.chapter("quickstart").paper is None and chapters.chapter("quickstart").family is None
    assert [f.name for f in S.families()] == ["needle", "thesis", "long2rag", "longrag", "summhay"]
    assert chapters.chapter("summhay").family.title == ("Summary of a Haystack: Full cut to the retrievers' budget vs "
                                                        "Oracle vs retrievers")
    assert S.model_chapters() == BOOK_ORDER[:-1]


def test_an_unknown_chapter_or_paper_names_the_known_ones():
    with pytest.raises(LookupError, match="unknown chapter 'nope'; the registered chapters are: "
                       + ", ".join(BOOK_ORDER) + "$"):
        chapters.chapter("nope")
    with pytest.raises(LookupError, match="unknown paper 'nope'; the registered papers are: "
                       "long2rag, longrag, summhay, thesis$"):
        chapters.paper("nope")


def test_chapters_iterate_by_order_then_name_whatever_the_registration_order():
    reg = Registry()
    paper = Paper("p", "Paper (2025)", "P")
    reg.register(Chapter("b", "B", paper, order=1), Chapter("c", "C", order=0), Chapter("a", "A", paper, order=1))
    assert reg.names() == ["c", "a", "b"] and reg.papers() == [paper]


def test_a_duplicate_registration_is_an_error_and_adds_nothing():
    reg = Registry()
    toy = Chapter("toy", "Toy", Paper("toy", "Toy (2025)", "Toy"))
    reg.register(toy)
    with pytest.raises(ValueError, match="chapter 'toy' is registered twice"):
        reg.register(Chapter("other", "Other"), toy)
    with pytest.raises(ValueError, match="paper 'toy' is registered twice"):
        reg.register(Chapter("other", "Other", Paper("toy", "Another toy (2026)", "Toy")))
    assert reg.names() == ["toy"] and reg.paper("toy").name == "Toy (2025)"
    with pytest.raises(ValueError, match="chapter 'thesis' is registered twice"):
        chapters.register(Chapter("thesis", "A second thesis"))
    assert [c.name for c in chapters.chapters()] == BOOK_ORDER


def test_a_family_is_named_like_its_chapter():
    with pytest.raises(ValueError, match="chapter 'other' carries the family of 'thesis'"):
        Registry().register(Chapter("other", "Other", family=chapters.chapter("thesis").family))


def test_a_declaring_module_without_chapters_is_named():
    with pytest.raises(ValueError, match="module lcrag.config declares no CHAPTERS"):
        chapters.discover(["lcrag.config"])


def test_the_toy_chapter_is_registered_after_the_papers(toy_registered):
    assert [c.name for c in chapters.chapters()] == [*BOOK_ORDER[:-1], "toy", "synthesis"]
    assert chapters.chapter("toy").paper.name == "Toy paper (Fixture 2025)"
    assert [f.name for f in S.families()][-1] == "toy"


@pytest.mark.slow
def test_a_new_chapter_runs_counts_its_claims_and_joins_the_synthesis(toy_registered, tmp_path, monkeypatch):
    """The book built from a table of contents that does not list the toy chapter: the registry adds it (before the
    synthesis, which reads the others) and the runner executes it first, the claims page counts the toy's claims
    under its paper, and the synthesis compares the toy family's arms, all without a model call and without an
    edit of _toc.yml."""
    from lcrag import config
    from lcrag.book.build import build_book
    from lcrag.book.toc import CLAIMS_PAGE, EXECUTED_DIR, book_toc, write_book_toc

    for var in ("LCRAG_STORE", "LCRAG_STORE_DIR", "LCRAG_RUN_DIR", "LCRAG_HOME"):
        monkeypatch.delenv(var, raising=False)
    book = tmp_path / "book"
    (book / "notebooks").mkdir(parents=True)
    (book / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n"
                                   + "".join(f"  - file: book/executed/{c}\n" for c in ("synthesis", "claims")))
    (book / "notebooks" / "profiles.yml").write_text("toy:\n  smoke:\n    n_items: 2\n  default: {}\n")
    shutil.copy(FIXTURES / "notebooks" / "toy.md", book / "notebooks" / "toy.md")
    shutil.copy(config.project_root() / "notebooks" / "synthesis.md", book / "notebooks" / "synthesis.md")

    assert [e["file"] for e in book_toc(book)["chapters"]] == [f"book/executed/{c}" for c in ("toy", "synthesis", "claims")]
    assert write_book_toc(book).read_text().count("book/executed/toy") == 1  # what jupyter-book builds from
    res = build_book(root=book, build=False, progress=False, log=lambda s: None)
    assert [r.chapter for r in res.runs] == ["toy", "synthesis"] and res.ok
    assert res.pages == {"toy": "executed", "synthesis": "executed"}
    runs = book / "runs" / "local--smollm2-135m-instruct" / "default"
    scores = pd.read_csv(runs / "toy" / "scores.csv")
    assert scores.groupby("arm")["score"].sum().to_dict() == {"long": 3, "short": 1}

    claims = (book / EXECUTED_DIR / f"{CLAIMS_PAGE}.md").read_text()
    assert "| Toy paper (Fixture 2025) | 1 | 1 | 0 | 0 | 0 | 0 | 2 | 2 |" in claims
    # its claims link to the section that checks them, the toy notebook's labelled claims section
    assert "| Toy | {ref}`T2 <toy-claims>` | **not reproduced** | the short arm scores 0.5 |" in claims

    comparisons = pd.read_csv(runs / "synthesis" / "comparisons.csv")
    assert comparisons[["family", "model", "long_value", "other_value", "diff", "n", "reading"]].values.tolist() == [
        ["toy", SMOL, 0.75, 0.25, 0.5, 4, "long higher (point estimates)"]
    ]
    notebook = json.loads((runs / "synthesis" / "synthesis.ipynb").read_text())
    outputs = json.dumps([c.get("outputs", []) for c in notebook["cells"]], ensure_ascii=False)
    assert ("Toy: long vs short context: **long higher (point estimates)**; long − short = +50.0 pp (no interval)"
            in outputs)
    assert [r.manifest["usage"]["calls"] for r in res.runs] == [0, 0]
