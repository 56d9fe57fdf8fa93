"""Shared helpers for the tests (no side effects: ``conftest.py`` sets the environment up, once).

Test modules import these as ``from helpers import ...`` (``conftest.py`` puts ``tests/`` on ``sys.path``).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import pandas as pd

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


def rendered_text(markdown: str) -> str:
    """``markdown`` as the book prints it, as text: parsed by MyST into docutils with smart quotes on, as Sphinx
    does (so ``F--`` prints "F–" unless it is code); Sphinx's own roles and directives are left unresolved."""
    pytest.importorskip("myst_parser")
    from docutils.core import publish_doctree
    from myst_parser.parsers.docutils_ import Parser

    settings = {"smart_quotes": True, "report_level": 5, "halt_level": 5, "myst_enable_extensions": ["dollarmath"]}
    return publish_doctree(markdown, parser=Parser(), settings_overrides=settings).astext()


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


# ------------------------------------------------------------------ the thesis chapter (tests/papers/thesis)

MQ_REMOVED = [5, 16, 21, 27, 31, 41, 58, 59, 62, 81, 82, 84, 85, 96, 97, 100]  # thesis Table 6.2


def thesis_shaped(counts: dict[str, int] | None = None, raw_wrong: int = 8) -> pd.DataFrame:
    """A scored table whose Full / RAG(CQT) / Evidence correctness reproduces ``counts`` (BAMBOO prompt; the
    thesis's Fig. 6.3 counts by default)."""
    import pandas as pd

    from lcrag.papers.thesis import numbers

    counts = numbers.THESIS_FIG_6_3 if counts is None else counts
    rows, case = [], 0
    for pattern, n in counts.items():
        for _ in range(n):
            case += 1
            task = "meetingqa" if case <= 84 else "paperqa"
            for setting, pipeline, ok in (
                ("full", "-", pattern[0] == "F"),
                ("rag", "CQT", pattern[1] == "R"),
                ("evidence", "-", pattern[2] == "E"),
            ):
                rows.append(
                    {
                        "task": task,
                        "case": case,
                        "setting": setting,
                        "pipeline": pipeline,
                        "prompt": "BAMBOO",
                        "kept": True,
                        "answer": "A",
                        "correct": ok,
                        "correct_raw": ok and not (setting == "full" and case <= raw_wrong),
                        "correct_logprob": False,
                        "pred_logprob": None,
                        "pred_lenient": "A" if ok else "B",
                        "status": "letter",
                        "prompt_tokens": 3000 if setting == "full" else 700,
                        "completion_tokens": 2,
                        "context_chars": 12000 if setting == "full" else 2500,
                        "truncated": False,
                    }
                )
    return pd.DataFrame(rows)


def with_grid(base: pd.DataFrame, runs: dict[tuple[str, str, str], list[bool]]) -> pd.DataFrame:
    """``base`` plus grid runs ``(setting, pipeline, prompt) -> correctness`` on its first cases, in case order."""
    import pandas as pd

    cases = base.drop_duplicates("case")[["task", "case"]].reset_index(drop=True)
    template = base.iloc[0].to_dict()
    rows = [{**template, "task": cases.loc[i, "task"], "case": cases.loc[i, "case"], "setting": st, "pipeline": pl,
             "prompt": pr, "correct": ok, "correct_raw": ok} for (st, pl, pr), oks in runs.items()
            for i, ok in enumerate(oks)]
    return pd.concat([base, pd.DataFrame(rows)], ignore_index=True)


def kinds_confounded(n: int = 20) -> pd.DataFrame:
    """Long²RAG per-response KPR rows (one judge ``j``, variants ``none`` and ``trunc2048``, ``n`` news and ``n``
    conversation items) as the book's runs are in miniature: the conversation items have both longer inputs and
    lower KPR than the news items in every variant; within a kind, input length and KPR are unrelated (rho -0.04)."""
    import pandas as pd

    perm = [(7 * i + 3) % n for i in range(n)]
    return pd.DataFrame([{"judge": "j", "question_id": f"{kind}{i % 5 + 1}/s{i}", "variant": v,
                          "input_tokens": base + shift + 10 * i, "completion_tokens": 50, "recall": level + 0.01 * perm[i]}
                         for kind, base, level in (("news", 1800, 0.35), ("conv", 2200, 0.10))
                         for v, shift in (("none", 3000), ("trunc2048", 0)) for i in range(n)])


def meetingqa_case(n: int) -> tuple[list[str], str]:
    """512/50 chunks and evidence of 1-based MeetingQA case ``n`` (the thesis's rankers' input), read from the data
    mirror; skips without it."""
    import json
    import os

    from lcrag.text.chunking import recursive_split

    path = Path(os.environ.get("LCRAG_DATA_MIRROR", "/work/shared/data")) / "bamboo" / "meetingqa_4k.jsonl"
    if not path.exists():
        pytest.skip(f"data mirror not found: {path}")
    record = json.loads(path.read_text(encoding="utf-8").splitlines()[n - 1])
    return recursive_split(record["content"], 512, 50), record["evidence"]


def chunk_numbers(hits) -> list[int]:
    """The thesis's 1-based chunk numbers of ranked hits."""
    return [h.index + 1 for h in hits]


def write_lines(path: Path, lines: list[bytes]) -> Path:
    """A JSONL-like file of ``lines`` (bytes, each ended by a newline), for a loader's tests."""
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path
