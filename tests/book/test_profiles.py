"""Profiles: notebook defaults < profile < overrides, and clear errors for anything unknown."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from helpers import myst_notebook

from lcrag import config
from lcrag.book.profiles import (
    PROFILES,
    ProfileError,
    UsageError,
    chapter_profiles,
    load_profiles,
    notebook_defaults,
    parse_cli_params,
    parse_parameters,
    resolve,
)

PARAMS = """\
model = None
profile = "default"
n = 10
rate = 0.5
name = "bm25"
flag = False
sizes = [512, 1024]
"""


def make_project(root: Path, params: str = PARAMS, profiles: str | None = None, chapter: str = "ch") -> Path:
    nb_dir = root / "notebooks"
    nb_dir.mkdir(parents=True, exist_ok=True)
    (nb_dir / f"{chapter}.md").write_text(myst_notebook(params, "print(n)", title="# A chapter"), encoding="utf-8")
    if profiles is not None:
        (nb_dir / "profiles.yml").write_text(textwrap.dedent(profiles), encoding="utf-8")
    return root


PROFILES_YML = """\
ch:
  smoke: {n: 1, name: dense}
  quick: {n: 3}
  default: {}
  paper: {n: 200, rate: 1}
"""


def test_defaults_are_read_from_the_parameters_cell(tmp_path):
    make_project(tmp_path)
    assert notebook_defaults("ch", root=tmp_path) == {
        "model": None,
        "profile": "default",
        "n": 10,
        "rate": 0.5,
        "name": "bm25",
        "flag": False,
        "sizes": [512, 1024],
    }


def test_resolve_merges_defaults_then_profile_then_overrides(tmp_path):
    make_project(tmp_path, profiles=PROFILES_YML)
    base = {"n": 10, "rate": 0.5, "name": "bm25", "flag": False, "sizes": [512, 1024]}
    assert resolve("ch", "default", {}, root=tmp_path) == base
    assert resolve("ch", "smoke", {}, root=tmp_path) == {**base, "n": 1, "name": "dense"}
    assert resolve("ch", "smoke", {"n": 2, "flag": True}, root=tmp_path) == {
        **base,
        "n": 2,
        "name": "dense",
        "flag": True,
    }
    paper = resolve("ch", "paper", None, root=tmp_path)
    assert paper["n"] == 200 and paper["rate"] == 1  # an int is accepted for a float parameter


def test_model_and_profile_are_not_parameters_of_the_result(tmp_path):
    make_project(tmp_path, profiles=PROFILES_YML)
    assert "model" not in resolve("ch", "quick", {}, root=tmp_path)
    with pytest.raises(ProfileError, match="--model"):
        resolve("ch", "quick", {"model": "openai/gpt-4o"}, root=tmp_path)


def test_unknown_profile_lists_the_valid_ones(tmp_path):
    make_project(tmp_path, profiles=PROFILES_YML)
    with pytest.raises(ProfileError) as exc:
        resolve("ch", "huge", {}, root=tmp_path)
    msg = str(exc.value)
    assert "'huge'" in msg and "smoke, quick, default, paper" in msg


def test_a_chapter_missing_from_profiles_yml_has_only_default(tmp_path):
    make_project(tmp_path, profiles="other: {smoke: {}}\n")
    assert list(chapter_profiles("ch", tmp_path)) == ["default"]
    with pytest.raises(ProfileError, match="its profiles are: default"):
        resolve("ch", "smoke", {}, root=tmp_path)


def test_unknown_parameter_lists_the_notebooks_parameters(tmp_path):
    make_project(tmp_path, profiles=PROFILES_YML)
    with pytest.raises(ProfileError) as exc:
        resolve("ch", "default", {"top_k": 5}, root=tmp_path)
    msg = str(exc.value)
    assert "'top_k'" in msg and "n, rate, name, flag, sizes" in msg


def test_unknown_parameter_in_profiles_yml_is_reported(tmp_path):
    make_project(tmp_path, profiles="ch:\n  smoke: {n_items: 1}\n")
    with pytest.raises(
        ProfileError, match=r"profile 'smoke' in profiles.yml: chapter 'ch' has no parameter 'n_items'"
    ):
        resolve("ch", "smoke", {}, root=tmp_path)


def test_wrong_type_is_reported_with_the_default(tmp_path):
    make_project(tmp_path)
    with pytest.raises(ProfileError, match=r"'n' of chapter 'ch' expects int \(default 10\), got str 'ten'"):
        resolve("ch", "default", {"n": "ten"}, root=tmp_path)
    with pytest.raises(ProfileError, match="expects bool"):
        resolve("ch", "default", {"flag": 1}, root=tmp_path)
    assert resolve("ch", "default", {"n": None}, root=tmp_path)["n"] is None


def test_unknown_profile_name_in_profiles_yml(tmp_path):
    make_project(tmp_path, profiles="ch:\n  fast: {n: 1}\n")
    with pytest.raises(ProfileError, match="unknown profile 'fast'"):
        load_profiles(tmp_path)


def test_invalid_profiles_yml_names_the_file(tmp_path):
    make_project(tmp_path, profiles="ch: [unclosed\n")
    with pytest.raises(ProfileError, match="profiles.yml: not valid YAML"):
        load_profiles(tmp_path)


def test_missing_chapter_lists_the_chapters(tmp_path):
    make_project(tmp_path)
    with pytest.raises(UsageError, match=r"no chapter 'nope'.*chapters: ch"):
        resolve("nope", "default", {}, root=tmp_path)


def test_non_literal_parameter_names_the_line():
    with pytest.raises(ProfileError, match=r"line 2: parameter 'k' must be a literal"):
        parse_parameters("n = 1\nk = list(range(3))\n")
    with pytest.raises(ProfileError, match=r"line 1: only `name = literal`"):
        parse_parameters("import os\n")
    assert parse_parameters('"""doc"""\nx: int = -3\n# comment\n') == {"x": -3}


def test_cli_values_are_yaml_scalars():
    assert parse_cli_params(
        [
            "n=5",
            "rate=0.25",
            "flag=true",
            "name=bm25",
            "none=null",
            "sizes=[1, 2]",
            "empty=",
            "s='5'",
            "eq=a=b",
        ]
    ) == {
        "n": 5,
        "rate": 0.25,
        "flag": True,
        "name": "bm25",
        "none": None,
        "sizes": [1, 2],
        "empty": "",
        "s": "5",
        "eq": "a=b",
    }


@pytest.mark.parametrize("bad", ["n", "=5", "two words=1", "1n=2"])
def test_malformed_cli_params(bad):
    with pytest.raises(ProfileError, match="name=value"):
        parse_cli_params([bad])


def test_the_projects_profiles_fit_its_notebooks():
    """Every chapter in notebooks/ defines every profile, each valid for its notebook."""
    root = config.project_root()
    profiles = load_profiles(root)
    for source in sorted((root / "notebooks").glob("*.md")):
        chapter = source.stem
        assert chapter in profiles, f"{chapter} has no entry in notebooks/profiles.yml"
        assert set(profiles[chapter]) == set(PROFILES), f"{chapter}: profiles {sorted(profiles[chapter])}"
        for profile in PROFILES:
            resolve(chapter, profile, {}, root=root)


def test_the_intro_and_the_cli_name_every_profile(capsys):
    """The book's introduction and `lcrag run --help` list the profiles the code knows, all of them."""
    from lcrag.cli import build_parser

    text = (config.project_root() / "book" / "intro.md").read_text(encoding="utf-8")
    block = " ".join(text.split("\nProfiles\n: ")[1].split("\n\n")[0].split())
    number = {4: "four", 5: "five", 6: "six", 7: "seven"}[len(PROFILES)]
    assert f"Each chapter has {number} sizes" in block
    assert [p for p in PROFILES if f"`{p}`" not in block] == []
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--help"])
    assert " | ".join(PROFILES) in " ".join(capsys.readouterr().out.split())
