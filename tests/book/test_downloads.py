"""The "Downloads" section of each chapter page (lcrag.book.downloads): the run's tables, manifest and notebook
are copied beside the page without the build machine's paths, and linked with Sphinx's download role."""

from __future__ import annotations

import json
from pathlib import Path

from lcrag.book.build import _place
from lcrag.book.downloads import FILES_SUFFIX, TITLE, page_with_downloads, portable


def _run(root: Path, chapter: str = "demo") -> Path:
    run = root / "runs" / "local--m" / "default" / chapter
    run.mkdir(parents=True)
    (run / "accuracy.csv").write_text("arm,accuracy\nfull,0.5\nrag,0.25\n")
    (run / "claims.csv").write_text("id,verdict\nH1,inconclusive\n")
    (run / "usage.jsonl").write_text("{}\n")  # not a table: not offered
    (run / "manifest.json").write_text(json.dumps({"source": f"{root}/notebooks/{chapter}.md", "run_dir": str(run)}))
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"papermill": {"input_path": f"{root}/notebooks/x.md"}},
          "cells": [{"cell_type": "markdown", "id": "a1", "metadata": {}, "source": "# Demo"}]}
    (run / f"{chapter}.ipynb").write_text(json.dumps(nb))
    return run / f"{chapter}.ipynb"


def test_the_page_links_every_table_the_manifest_and_the_notebook(tmp_path):
    notebook = _run(tmp_path)
    executed = tmp_path / "book" / "executed"
    executed.mkdir(parents=True)
    assert _place(executed, "demo", notebook) == "executed"

    page = json.loads((executed / "demo.ipynb").read_text())
    assert [c["source"] for c in page["cells"]][0] == "# Demo"
    last = page["cells"][-1]["source"]
    assert last.startswith(TITLE)
    for name in ("accuracy.csv", "claims.csv"):  # the tables in a folded list, under their count and size
        assert f"- {{download}}`{name} <demo{FILES_SUFFIX}/{name}>`" in last
    assert "```{admonition} 2 result tables (1 kB)\n:class: dropdown\n" in last
    assert f"{{download}}`the run manifest <demo{FILES_SUFFIX}/manifest.json>`" in last
    assert f"{{download}}`the executed notebook <demo{FILES_SUFFIX}/demo.ipynb>`" in last
    assert "usage.jsonl" not in last
    files = executed / f"demo{FILES_SUFFIX}"
    assert sorted(p.name for p in files.iterdir()) == ["accuracy.csv", "claims.csv", "demo.ipynb", "manifest.json"]
    assert (files / "accuracy.csv").read_text() == "arm,accuracy\nfull,0.5\nrag,0.25\n"
    # no path of the machine that built the book in what readers download
    for name in ("manifest.json", "demo.ipynb"):
        assert str(tmp_path) not in (files / name).read_text(), name
    assert json.loads((files / "manifest.json").read_text())["source"] == "notebooks/demo.md"


def test_placing_again_changes_nothing_and_drops_stale_files(tmp_path):
    notebook = _run(tmp_path)
    executed = tmp_path / "book" / "executed"
    executed.mkdir(parents=True)
    _place(executed, "demo", notebook)
    first = (executed / "demo.ipynb").read_bytes()
    mtime = (executed / "demo.ipynb").stat().st_mtime_ns
    _place(executed, "demo", notebook)
    assert (executed / "demo.ipynb").read_bytes() == first
    assert (executed / "demo.ipynb").stat().st_mtime_ns == mtime  # Sphinx would re-read a touched page
    assert first.count(TITLE.encode()) == 1

    (notebook.parent / "claims.csv").unlink()
    page = page_with_downloads(executed, "demo", notebook).decode()
    assert "claims.csv" not in page and not (executed / f"demo{FILES_SUFFIX}" / "claims.csv").exists()

    _place(executed, "demo", None)  # the chapter's notebook is gone: placeholder, no files left behind
    assert not (executed / f"demo{FILES_SUFFIX}").exists()


def test_a_run_without_tables_gets_no_download_section(tmp_path):
    notebook = _run(tmp_path)
    for csv in notebook.parent.glob("*.csv"):
        csv.unlink()
    executed = tmp_path / "book" / "executed"
    executed.mkdir(parents=True)
    assert page_with_downloads(executed, "demo", notebook) == notebook.read_bytes()


def test_portable_paths():
    root = Path("/home/u/lcrag")
    assert portable('{"a": "/home/u/lcrag/runs/x", "b": "/home/u/lcrag"}', root) == '{"a": "runs/x", "b": "."}'


def test_a_table_without_columns_is_not_written_and_an_old_one_goes(tmp_path, monkeypatch):
    """A skipped section's table (no columns) leaves no headerless file that pandas cannot read; a table with
    columns but no rows keeps its header."""
    import pandas as pd

    from lcrag.book import save_table

    monkeypatch.delenv("LCRAG_RUN_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lrg_calls.csv").write_text("a\n1\n")  # an earlier run's
    path = save_table(pd.DataFrame(), "lrg_calls")
    assert path == tmp_path / "lrg_calls.csv" and not path.exists()
    kept = save_table(pd.DataFrame(columns=["pipeline", "jaccard"]), "fe_jaccard")
    assert list(pd.read_csv(kept).columns) == ["pipeline", "jaccard"]


def test_a_saved_table_writes_no_negative_zero(tmp_path, monkeypatch):
    """A bound just below 0 that rounds to -0.0 (the thesis's Full vs RAG interval on its own counts) is written 0.0:
    a reader of the CSV sees no "-0.0"; other values and the caller's frame are unchanged."""
    import pandas as pd

    from lcrag.book import save_table

    monkeypatch.delenv("LCRAG_RUN_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    df = pd.DataFrame({"comparison": ["Full vs RAG"], "ci_low": [-0.0], "ci_high": [-0.25], "n": [158]})
    text = save_table(df, "paired_from_patterns").read_text()
    assert "-0.0" not in text and "0.0,-0.25,158" in text and str(df.loc[0, "ci_low"]) == "-0.0"
