"""pip users (pyproject.toml) and conda users (environment.yml) get the same dependencies."""

from __future__ import annotations

import tomllib
import yaml
from conftest import ROOT


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
