"""Which runs the book makes: each page's model (notebooks/pages.yml) and the companion runs."""

from __future__ import annotations

import pytest

from lcrag import config
from lcrag.book.lineup import page_models, read_companions
from lcrag.book.profiles import UsageError

CHAPTERS = ["quickstart", "needle", "thesis", "synthesis"]


def test_pages_take_their_listed_model_and_the_default_otherwise(tmp_path, monkeypatch):
    monkeypatch.delenv("LCRAG_MODEL", raising=False)
    assert page_models(CHAPTERS, root=tmp_path) == dict.fromkeys(CHAPTERS, config.DEFAULT_MODEL)  # no pages.yml
    (tmp_path / "notebooks").mkdir()
    pages = tmp_path / "notebooks" / "pages.yml"
    pages.write_text("# comment\nthesis: local/qwen2.5-coder-1.5b-instruct\n")
    got = page_models(CHAPTERS, root=tmp_path)
    assert got["thesis"] == "local/qwen2.5-coder-1.5b-instruct"
    assert {got[c] for c in CHAPTERS if c != "thesis"} == {config.DEFAULT_MODEL}
    # one model for every page: --model, else $LCRAG_MODEL, both over pages.yml
    assert page_models(CHAPTERS, "openai/gpt-4o-mini", root=tmp_path) == dict.fromkeys(CHAPTERS, "openai/gpt-4o-mini")
    monkeypatch.setenv("LCRAG_MODEL", "local/gemma3-270m")
    assert page_models(CHAPTERS, root=tmp_path) == dict.fromkeys(CHAPTERS, "local/gemma3-270m")
    monkeypatch.delenv("LCRAG_MODEL")
    for text, match in [
        ("thesys: local/gemma3-270m\n", "not chapters of the book: thesys"),
        ("thesis: nope\n", "pages.yml: thesis: .*provider/name"),
        ("- thesis\n", "expected `chapter: model spec` lines"),
        ("thesis: [\n", "not valid YAML"),
    ]:
        pages.write_text(text)
        with pytest.raises(UsageError, match=match):
            page_models(CHAPTERS, root=tmp_path)


def test_companions_file_is_read_and_checked(tmp_path):
    assert read_companions(tmp_path) == []
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "thesis.md").write_text("# t\n")
    comp = tmp_path / "notebooks" / "companions.yml"
    comp.write_text("- model: local/gemma3-270m\n  profile: quick\n  chapters: [thesis]\n")
    (c,) = read_companions(tmp_path)
    assert (c.model, c.profile, c.chapters, c.parameters) == ("local/gemma3-270m", "quick", ("thesis",), {})
    comp.write_text("- model: local/gemma3-270m\n  chapters: [thesis]\n  parameters:\n    thesis: {n_per_task: 3}\n")
    (c,) = read_companions(tmp_path)
    assert c.profile == "default" and c.parameters == {"thesis": {"n_per_task": 3}}
    # without a chapter list: every registered chapter with an experiment family, in the registry's order
    for name in ("needle", "longrag", "summhay", "long2rag"):
        (tmp_path / "notebooks" / f"{name}.md").write_text("# t\n")
    comp.write_text("- model: local/qwen2.5-coder-0.5b-instruct\n  profile: quick\n")
    (c,) = read_companions(tmp_path)
    assert c.chapters == ("needle", "thesis", "long2rag", "longrag", "summhay")
    for text, match in [
        ("- model: local/gemma3-270m\n  profile: fast\n  chapters: [thesis]\n", "unknown profile 'fast'"),
        ("- model: local/gemma3-270m\n  chapters: [nochapter]\n", "no notebooks/<chapter>.md for nochapter"),
        ("- model: nope\n  chapters: [thesis]\n", "entry 1: .*provider/name"),
        ("- model: local/gemma3-270m\n  chapter: [thesis]\n", "entry 1: expected keys"),
        ("- model: local/gemma3-270m\n  chapters: [thesis]\n  parameters: {needle: {x: 1}}\n",
         "parameters for chapters it does not run: needle"),
        ("- model: local/gemma3-270m\n  chapters: [thesis]\n  parameters: {thesis: 3}\n", "must map a chapter"),
        ("model: x\n", "expected a list"),
    ]:
        comp.write_text(text)
        with pytest.raises(UsageError, match=match):
            read_companions(tmp_path)
