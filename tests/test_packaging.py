"""pip users (pyproject.toml) and conda users (environment.yml) get the same dependencies."""

from __future__ import annotations

import tomllib
import yaml
from helpers import ROOT


def _pip_list() -> set[str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    return {p for p in pip if not p.startswith(("-", "--"))}


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert _pip_list() == set(project["dependencies"])


def test_torch_is_pinned_to_the_cpu_wheel():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "torch==2.13.0" in project["dependencies"]


#: Tests of the built book and of whole chapter runs, kept apart from the package's unit tests (issue 19).
APART = {"built_book", "chapters", "notebooks", "fixtures"}
#: Test files that span several modules of their subpackage (named for what they cover), and this one.
CROSS_MODULE = {"test_packaging.py", "data/test_loaders.py", "metrics/test_missing_answers.py", "retrieval/test_retrievers.py",
                "synthesis/test_synthesis.py", "papers/long2rag/test_long2rag.py", "papers/longrag/test_pipeline.py",
                "papers/thesis/test_thesis.py"}


def test_the_tests_mirror_the_package():
    """tests/<subpackage>/test_<module>.py: each test folder is a subpackage of lcrag, each test file names a module
    (or a subpackage) of it, or is one of the few that span a subpackage."""
    tests, package = ROOT / "tests", ROOT / "src" / "lcrag"
    strays = []
    for path in sorted(tests.rglob("test_*.py")):
        rel = path.relative_to(tests)
        if rel.parts[0] in APART or rel.as_posix() in CROSS_MODULE:
            continue
        target = package.joinpath(*rel.parts[:-1], rel.name.removeprefix("test_").removesuffix(".py"))
        if not (target.with_suffix(".py").is_file() or (target / "__init__.py").is_file()):
            strays.append(rel.as_posix())
    assert not strays, f"no lcrag module for {strays}: name a test file after the module it tests"
    missing = [p for p in CROSS_MODULE if not (tests / p).is_file()]
    assert not missing, f"CROSS_MODULE lists files that do not exist: {missing}"
