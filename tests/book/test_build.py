"""build_book on a copy of the real book configuration, with a fixture chapter as the quickstart."""

from __future__ import annotations

import json
import shutil

import helpers
import pytest
from helpers import copy_book

from lcrag import config
from lcrag.book.build import BookError, build_book
from lcrag.book.profiles import ProfileError
from lcrag.book.toc import EXECUTED_DIR, toc_chapters, toc_files

FIXTURES = helpers.FIXTURES / "notebooks"


@pytest.fixture()
def book(tmp_path, monkeypatch, mirror):
    for var in ("LCRAG_STORE", "LCRAG_STORE_DIR", "LCRAG_RUN_DIR", "LCRAG_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LCRAG_DATA_DIR", str(mirror))  # laid out alike: the runner checks the quickstart's data
    return copy_book(tmp_path / "book")


def test_every_toc_page_exists_or_is_generated():
    root = config.project_root()
    generated = {f"{EXECUTED_DIR.as_posix()}/{c}" for c in [*toc_chapters(root), "claims"]}
    import yaml

    for entry in toc_files(yaml.safe_load((root / "_toc.yml").read_text())):
        assert entry in generated or (root / f"{entry}.md").exists(), entry


def test_failing_chapter_is_shown_and_reported(book):
    shutil.copy(FIXTURES / "fixture_fail.md", book / "notebooks" / "quickstart.md")
    with pytest.raises(BookError, match="ZeroDivisionError") as exc:
        build_book(root=book, build=False, progress=False, log=lambda s: None)
    res = exc.value.result
    assert res.failed == ["quickstart"] and res.pages["quickstart"] == "executed" and res.html is None
    assert (book / "book" / "executed" / "quickstart.ipynb").exists()
    assert "not counted: quickstart" in (book / "book" / "executed" / "claims.md").read_text()


def test_unknown_chapter_is_a_usage_error(book):
    from lcrag.book.profiles import UsageError

    with pytest.raises(UsageError, match="the book's chapters are: quickstart"):
        build_book(["nope"], root=book, build=False, log=lambda s: None)


@pytest.mark.slow
def test_book_builds_with_placeholder_then_with_executed_chapter(book):
    """`jupyter-book build -W -n`: no warning is allowed, with or without executed chapters."""
    res = build_book(root=book, progress=False, log=lambda s: None)
    executed = book / "book" / "executed"
    chapters = toc_chapters(book)
    assert "quickstart" in chapters
    assert res.pages == dict.fromkeys(chapters, "placeholder")
    assert res.html == book / "_build" / "html" / "index.html"
    assert res.html.exists()
    assert "not written yet" in (executed / "quickstart.md").read_text()
    html = book / "_build" / "html" / "book" / "executed"
    assert "not written yet" in (html / "quickstart.html").read_text()
    assert "No chapter has checked a claim yet." in (html / "claims.html").read_text()

    shutil.copy(FIXTURES / "fixture_ok.md", book / "notebooks" / "quickstart.md")
    res = build_book(root=book, progress=False, log=lambda s: None)
    assert res.ok and res.pages["quickstart"] == "executed" and len(res.runs) == 1
    assert all(res.pages[c] == "placeholder" for c in chapters if c != "quickstart")
    assert res.runs[0].manifest["store_mode"] == "record" and res.runs[0].manifest["book"] is True
    assert not (executed / "quickstart.md").exists() and (executed / "quickstart.ipynb").exists()
    page = (html / "quickstart.html").read_text()
    assert "Run manifest" in page and "Fixture chapter" in page
    claims = (html / "claims.html").read_text()
    assert "reproduced" in claims and "the table has n_items rows" in claims


def test_companion_runs_come_first_without_pages_and_their_failure_is_reported(book):
    shutil.copy(FIXTURES / "fixture_ok.md", book / "notebooks" / "quickstart.md")
    (book / "notebooks" / "profiles.yml").write_text("quickstart:\n  quick: {n_items: 2}\n  default: {}\n")
    (book / "notebooks" / "companions.yml").write_text(
        "- model: local/gemma3-270m\n  profile: quick\n  chapters: [quickstart]\n"
        "  parameters: {quickstart: {scale: 7.0}}\n"  # a companion recorded with other values than its profile's
    )
    lines: list[str] = []
    res = build_book(root=book, build=False, progress=False, log=lines.append, jobs=2)
    (comp,) = res.companion_runs
    assert comp.ok and (comp.model, comp.profile) == ("local/gemma3-270m", "quick")
    assert comp.manifest["book"] is True and comp.manifest["parameters"]["n_items"] == 2
    assert comp.manifest["parameters"]["scale"] == 7.0 and res.runs[0].manifest["parameters"]["scale"] == 1.5
    assert comp.out_dir == book / "runs" / "local--gemma3-270m" / "quick" / "quickstart"
    assert [r.model for r in res.runs] == [config.default_model()]  # the page is the book model's run
    # both runs at once (two jobs), the companion submitted first, each reported in that order
    assert lines[0] == (f"running 2 chapter runs, 2 at a time: quickstart (local/gemma3-270m, quick), "
                        f"quickstart ({config.default_model()}, default)")
    assert lines[1].startswith("[companion] quickstart (profile quick, model local/gemma3-270m, for the synthesis): "
                               "executed in")
    assert lines[2].startswith("[1/7] quickstart: executed in")

    shutil.copy(FIXTURES / "fixture_fail.md", book / "notebooks" / "quickstart.md")
    (book / "notebooks" / "profiles.yml").write_text("quickstart:\n  quick: {}\n  default: {}\n")
    ran: list[str] = []
    with pytest.raises(ProfileError, match="chapter 'quickstart' has no parameter 'scale'"):
        build_book(root=book, build=False, progress=False, log=ran.append)
    assert ran == []  # checked before any run starts
    (book / "notebooks" / "companions.yml").write_text(
        "- model: local/gemma3-270m\n  profile: quick\n  chapters: [quickstart]\n"
    )
    with pytest.raises(BookError, match=r"quickstart \(local/gemma3-270m, quick profile\): .*ZeroDivisionError"):
        build_book(root=book, build=False, progress=False, log=lambda s: None)


def test_a_page_runs_on_its_listed_model_and_is_not_run_again_as_a_companion(book, monkeypatch):
    monkeypatch.delenv("LCRAG_MODEL", raising=False)
    shutil.copy(FIXTURES / "fixture_ok.md", book / "notebooks" / "quickstart.md")
    (book / "notebooks" / "pages.yml").write_text("quickstart: local/gemma3-270m\n")
    (book / "notebooks" / "companions.yml").write_text(
        "- model: local/gemma3-270m\n  chapters: [quickstart]\n"
        "- model: local/smollm2-135m-instruct\n  chapters: [quickstart]\n"
    )
    res = build_book(root=book, build=False, progress=False, log=lambda s: None, jobs=1)
    (page,) = res.runs
    assert page.model == "local/gemma3-270m" and page.manifest["model"] == "local/gemma3-270m"
    assert page.out_dir == book / "runs" / "local--gemma3-270m" / "default" / "quickstart"
    assert [(r.model, r.profile) for r in res.companion_runs] == [("local/smollm2-135m-instruct", "default")]


def test_a_chapter_whose_inputs_did_not_change_is_not_executed_again(book):
    shutil.copy(FIXTURES / "fixture_stored.md", book / "notebooks" / "quickstart.md")
    page = book / "book" / "executed" / "quickstart.ipynb"
    first = build_book(root=book, build=False, progress=False, log=lambda s: None, jobs=1).runs[0]
    assert not first.reused and first.manifest["usage"]["by_source"] == {"store": 1}
    assert set(first.manifest["inputs"]) >= {"source", "parameters", "code", "store", "data_manifest", "versions"}
    stamp = page.stat().st_mtime_ns

    lines: list[str] = []
    again = build_book(root=book, build=False, progress=False, log=lines.append, jobs=1).runs[0]
    assert again.reused and again.manifest["finished"] == first.manifest["finished"]
    assert any("quickstart: unchanged since its run of" in line for line in lines)
    assert page.stat().st_mtime_ns == stamp  # the page is not rewritten: Sphinx does not read it again

    with open(book / "notebooks" / "quickstart.md", "a", encoding="utf-8") as fh:
        fh.write("\nOne more sentence of prose.\n")
    edited = build_book(root=book, build=False, progress=False, log=lambda s: None, jobs=1).runs[0]
    assert not edited.reused and edited.manifest["finished"] > first.manifest["finished"]
    assert "One more sentence of prose." in page.read_text()

    (book / "notebooks" / "profiles.yml").write_text("quickstart:\n  default: {n_items: 2}\n", encoding="utf-8")
    assert not build_book(root=book, build=False, progress=False, log=lambda s: None, jobs=1).runs[0].reused
    assert build_book(root=book, build=False, progress=False, log=lambda s: None, jobs=1).runs[0].reused
    forced = build_book(root=book, build=False, progress=False, log=lambda s: None, jobs=1, force=True).runs[0]
    assert not forced.reused

    manifest = book / "runs" / "local--smollm2-135m-instruct" / "default" / "quickstart" / "manifest.json"
    m = json.loads(manifest.read_text())
    m["usage"]["by_source"] = {"store": 1, "disk": 1}  # an answer from the local cache: not in the repository
    manifest.write_text(json.dumps(m))
    assert not build_book(root=book, build=False, progress=False, log=lambda s: None, jobs=1).runs[0].reused


def test_a_chapter_that_called_a_model_is_executed_again(book):
    shutil.copy(FIXTURES / "fixture_ok.md", book / "notebooks" / "quickstart.md")  # its usage says "network"
    for _ in range(2):
        assert not build_book(root=book, build=False, progress=False, log=lambda s: None, jobs=1).runs[0].reused


def test_a_quiet_build_keeps_warnings_fatal(tmp_path):
    from lcrag.book.build import jupyter_book_command

    loud, quiet = jupyter_book_command(tmp_path), jupyter_book_command(tmp_path, quiet=True)
    assert "-q" not in loud and quiet[-1] == "-q" and quiet[:-1] == loud
    assert {"-W", "-n", "--keep-going"} <= set(quiet)
