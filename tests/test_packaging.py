"""pip users (pyproject.toml) and conda users (environment.yml) get the same dependencies."""

from __future__ import annotations

import ast
import re
from pathlib import Path

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


#: Tests of the built book, of whole chapter runs and of the scripts in benchmarks/, kept apart from the package's
#: unit tests (issue 19).
APART = {"built_book", "chapters", "notebooks", "fixtures", "benchmarks"}
#: Test files that span several modules of their subpackage (named for what they cover), and this one.
CROSS_MODULE = {"test_packaging.py", "book/test_typed_once.py", "test_prompt_digests.py"}


def test_the_tests_mirror_the_package():
    """tests/<subpackage>/test_<module>.py: each test folder is a subpackage of lcrag, each test file names a module
    (or a subpackage) of it, or is one of the few that span a subpackage. A folder's own file,
    tests/<subpackage>/test_<subpackage>.py, tests the subpackage as a whole: its ``__init__``'s own code, what spans
    its modules, its chapter's run (e.g. tests/papers/thesis/test_thesis.py)."""
    tests, package = ROOT / "tests", ROOT / "src" / "lcrag"
    strays = []
    for path in sorted(tests.rglob("test_*.py")):
        rel = path.relative_to(tests)
        if rel.parts[0] in APART or rel.as_posix() in CROSS_MODULE:
            continue
        folder, name = package.joinpath(*rel.parts[:-1]), rel.name.removeprefix("test_").removesuffix(".py")
        target = folder / name
        own = len(rel.parts) > 1 and name == rel.parts[-2] and (folder / "__init__.py").is_file()
        if not (own or target.with_suffix(".py").is_file() or (target / "__init__.py").is_file()):
            strays.append(rel.as_posix())
    assert not strays, f"no lcrag module for {strays}: name a test file after the module it tests"
    missing = [p for p in CROSS_MODULE if not (tests / p).is_file()]
    assert not missing, f"CROSS_MODULE lists files that do not exist: {missing}"


# ------------------------------------------------------------------ the package's shape (issue 19)

MAX_MODULE_LINES = 400


def _module_name(package: Path, path: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Imports run when the module is imported: top level, inside if/try, not under ``if TYPE_CHECKING`` and not
    inside functions (a function's import is a deliberate late one)."""
    found: list = []

    def visit(statements):
        for node in statements:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append(node)
            elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                for block in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                    visit(block)

    visit(tree.body)
    return found


def import_graph(package: Path) -> dict[str, set[str]]:
    """``module -> the package's modules it imports at import time`` (``from a import b`` names the submodule
    ``a.b`` when there is one, else ``a``)."""
    root = package.name
    modules = {_module_name(package, p): p for p in package.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        edges = set()
        for node in _module_level_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
                    for _ in range(node.level - 1):
                        pkg = pkg.rsplit(".", 1)[0]
                    base = f"{pkg}.{base}" if base else pkg
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            edges |= {t for t in targets if t.split(".")[0] == root}
        graph[name] = {e if e in modules else e.rsplit(".", 1)[0] for e in edges} - {name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while component[-1:] != [v]:
                component.append(stack.pop())
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_the_import_graph_finds_a_cycle_and_ignores_late_imports(tmp_path):
    pkg = tmp_path / "toy"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from toy.sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from ..a import f\n")  # b -> a
    (pkg / "a.py").write_text("from toy import sub\nfrom toy.sub import b\ndef f():\n    from toy import c\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from toy import a\n")
    graph = import_graph(pkg)
    assert graph["toy.a"] == {"toy.sub", "toy.sub.b"} and graph["toy.sub.b"] == {"toy.a"}
    assert graph["toy.c"] == set() and graph["toy"] == {"toy.sub.b"}
    assert import_cycles(graph) == [["toy.a", "toy.sub.b"]]


def test_the_package_has_no_import_cycle():
    graph = import_graph(ROOT / "src" / "lcrag")
    assert graph["lcrag.book.runner"] >= {"lcrag.book.manifest"}  # the graph sees the package's imports
    assert import_cycles(graph) == []


def test_no_module_is_longer_than_400_lines():
    long = {p.relative_to(ROOT).as_posix(): n for p in (ROOT / "src" / "lcrag").rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert long == {}, "split these modules by concept"


# ------------------------------------------------------------------ the slow lanes (tests/slow_lanes.py)


def test_the_slow_lanes_split_the_cores_and_keep_the_book_in_lane_one():
    from conftest import LANE_ONE, in_lane
    from slow_lanes import lane_cpus

    assert lane_cpus([0, 1]) == ([0], [1]) and lane_cpus([0, 1, 2]) == ([0], [1, 2])
    assert lane_cpus(list(range(8))) == ([0, 1, 2, 3], [4, 5, 6, 7])
    users = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py")
                   if re.search(r"def test_\w+\([^)]*\bbuilt_book\b", p.read_text()))
    assert users and all(in_lane(f"{u}::test", "1") for u in users), f"built_book users outside LANE_ONE: {users}"
    assert not any(in_lane(f"{u}::test", "2") for u in users)
    assert all((ROOT / p).exists() for p in LANE_ONE), "LANE_ONE names a path that does not exist"
