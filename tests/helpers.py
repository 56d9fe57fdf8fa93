"""Shared helpers for the tests (no side effects: ``conftest.py`` sets the environment up, once).

Test modules import these as ``from helpers import ...`` (``conftest.py`` puts ``tests/`` on ``sys.path``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]  # the checkout
FIXTURES = ROOT / "tests" / "fixtures"
SHARED = ROOT.parent / "shared"  # the papers and the data mirror beside the checkout (CI has them there)


MYST_HEADER = """\
---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""


def myst_notebook(parameters: str, *cells: str, title: str = "") -> str:
    """A jupytext MyST notebook: ``title`` (a markdown line), a parameters cell holding ``parameters``, then one
    code cell per entry of ``cells``."""
    def cell(source: str, tags: str = "") -> str:
        return f"```{{code-cell}} ipython3\n{tags}{source.strip()}\n```\n"

    head = MYST_HEADER + (f"\n{title}\n" if title else "")
    return "\n".join([head, cell(parameters, ":tags: [parameters]\n\n"), *map(cell, cells)])


def fetched_data_dir(mirror: Path, tmp_path_factory, datasets: list[str]):
    """Generator for a module fixture: LCRAG_DATA_DIR -> a fresh tmp dir holding ``datasets`` copied from the
    mirror (a clean clone has no ``data/files``)."""
    from lcrag.data.fetch import fetch

    dest = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCRAG_DATA_DIR", str(dest))
        report = fetch(datasets=datasets, mirror=mirror, download=False)
        assert report.ok, report.summary()
        yield dest


def notebook_errors(notebook: Path) -> list[dict]:
    """The error outputs of an executed notebook's code cells."""
    import json

    nb = json.loads(Path(notebook).read_text())
    return [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
            if o.get("output_type") == "error"]


def copy_book(dest: Path) -> Path:
    """The real _config.yml, _toc.yml, book pages, styles and bibliography, without any executed output."""
    root = ROOT
    dest.mkdir(parents=True)
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(root / name, dest / name)
    (dest / "book").mkdir()
    for page in [*(root / "book").glob("*.md"), *(root / "book").glob("*.bib")]:
        shutil.copy(page, dest / "book" / page.name)
    shutil.copytree(root / "book" / "_static", dest / "book" / "_static")
    (dest / "notebooks").mkdir()
    (dest / "notebooks" / "profiles.yml").write_text("quickstart:\n  default: {}\n", encoding="utf-8")
    return dest
