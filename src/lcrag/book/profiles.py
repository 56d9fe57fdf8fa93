"""Run profiles: named sets of parameter overrides for each chapter.

A chapter is a jupytext MyST notebook ``notebooks/<chapter>.md`` whose cell tagged ``parameters``
assigns literal defaults (papermill's convention). ``notebooks/profiles.yml`` maps each chapter to
profiles that override some of them::

    quickstart:
      smoke:   {n_questions: 2}      # seconds, for CI
      quick:   {n_questions: 20}     # <= 5 min cold on a 2-core laptop
      companion: {}                  # another model on the synthesis's size axis: its headline items
      default: {}                    # the published book, on the embedded model
      paper:   {n_questions: 200}    # the paper's full scale

:func:`resolve` merges ``notebook defaults < profile < overrides`` and rejects unknown profiles and
unknown parameter names with the list of valid ones, so a typo never runs silently at the default.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import yaml

from lcrag import config

#: The profile names a chapter may define, from cheapest to most expensive.
PROFILES: tuple[str, ...] = ("smoke", "quick", "companion", "default", "paper")

#: Parameters the runner injects itself (``--model``, ``--profile``); never overridden with ``-p``.
RESERVED: tuple[str, ...] = ("model", "profile")


class UsageError(Exception):
    """The user asked for something that does not exist (a profile, a chapter, a parameter).

    The CLI reports it in one line and exits with status 2.
    """


class ProfileError(UsageError):
    """An unknown profile or parameter, a malformed ``profiles.yml`` or parameters cell."""


def notebooks_dir(root: Path | None = None) -> Path:
    """Where chapter sources live: ``<project root>/notebooks``."""
    return (Path(root) if root else config.project_root()) / "notebooks"


def profiles_path(root: Path | None = None) -> Path:
    return notebooks_dir(root) / "profiles.yml"


def chapter_source(chapter: str, root: Path | None = None) -> Path:
    """Path of the jupytext source of ``chapter`` (which need not exist)."""
    return notebooks_dir(root) / f"{chapter}.md"


def available_chapters(root: Path | None = None) -> list[str]:
    """Chapter names with a source in ``notebooks/``."""
    d = notebooks_dir(root)
    return sorted(p.stem for p in d.glob("*.md")) if d.exists() else []


def missing_chapter(chapter: str, source: Path, root: Path | None = None) -> UsageError:
    """The error for a chapter without a source: the chapters there are, and the closest name if one is close."""
    import difflib

    names = available_chapters(root)
    close = difflib.get_close_matches(chapter, names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return UsageError(f"no chapter {chapter!r}: {source} does not exist (chapters: {', '.join(names) or 'none'}){hint}")


# --------------------------------------------------------------------------------------------
# notebook defaults


def read_notebook(source: Path):
    """Read a chapter source as a NotebookNode.

    ``.md`` files are read as MyST notebooks even when their header does not spell out the
    format in full (jupytext would otherwise read them as plain markdown, losing the code cells).
    """
    import jupytext

    source = Path(source)
    return jupytext.read(str(source), fmt="md:myst" if source.suffix == ".md" else None)


def parameters_cell(nb) -> str | None:
    """Source of the first code cell tagged ``parameters``, or None if there is none."""
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            return cell.source
    return None


def parse_parameters(source: str, where: str = "parameters cell") -> dict[str, Any]:
    """The ``name = literal`` assignments of a parameters cell, in order.

    Only literals (numbers, strings, booleans, None, lists, tuples, dicts) are allowed: the value is
    what a profile overrides and what the run manifest records, so it must be known without running
    the notebook. Anything else raises :class:`ProfileError` naming the line.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ProfileError(f"{where}: line {exc.lineno}: not valid Python: {exc.msg}") from None
    params: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring or bare string: documentation
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name, value = node.target.id, node.value
        else:
            raise ProfileError(
                f"{where}: line {node.lineno}: only `name = literal` assignments are allowed, "
                f"found {ast.get_source_segment(source, node)!r}"
            )
        try:
            params[name] = ast.literal_eval(value)
        except ValueError:
            raise ProfileError(
                f"{where}: line {node.lineno}: parameter {name!r} must be a literal "
                f"(number, string, bool, None, list, dict), not {ast.get_source_segment(source, value)!r}"
            ) from None
    return params


def notebook_defaults(chapter: str, root: Path | None = None, source: Path | None = None) -> dict[str, Any]:
    """Parameter defaults declared in the chapter's parameters cell ({} if it has none)."""
    source = Path(source) if source else chapter_source(chapter, root)
    if not source.exists():
        raise missing_chapter(chapter, source, root)
    cell = parameters_cell(read_notebook(source))
    if cell is None:
        return {}
    return parse_parameters(cell, where=f"{source.name}, parameters cell")


# --------------------------------------------------------------------------------------------
# profiles.yml


def load_profiles(root: Path | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """Read and validate ``notebooks/profiles.yml``: ``{chapter: {profile: {param: value}}}``.

    A missing file means no chapter defines profiles (only ``default`` exists, empty).
    """
    path = profiles_path(root)
    if not path.exists():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ProfileError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: expected a mapping of chapter -> profiles, got {type(data).__name__}")
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for chapter, profiles in data.items():
        profiles = profiles or {}
        if not isinstance(profiles, dict):
            raise ProfileError(f"{path}: chapter {chapter!r}: expected a mapping of profile -> parameters")
        out[str(chapter)] = {}
        for name, params in profiles.items():
            if name not in PROFILES:
                raise ProfileError(
                    f"{path}: chapter {chapter!r}: unknown profile {name!r}; profiles are {', '.join(PROFILES)}"
                )
            params = params or {}
            if not isinstance(params, dict):
                raise ProfileError(f"{path}: {chapter}.{name}: expected a mapping of parameter -> value")
            out[str(chapter)][name] = dict(params)
    return out


def chapter_profiles(chapter: str, root: Path | None = None) -> dict[str, dict[str, Any]]:
    """The profiles valid for ``chapter``, in :data:`PROFILES` order. ``default`` always exists."""
    defined = load_profiles(root).get(chapter, {})
    return {name: dict(defined.get(name, {})) for name in PROFILES if name in defined or name == "default"}


# --------------------------------------------------------------------------------------------
# merging


def parse_cli_params(items: list[str] | None) -> dict[str, Any]:
    """``["k=v", ...]`` from ``lcrag run -p`` to a dict; each value is parsed as a YAML scalar.

    ``n=5`` -> 5, ``x=0.5`` -> 0.5, ``flag=true`` -> True, ``s=abc`` -> "abc", ``v=null`` -> None,
    ``l=[1, 2]`` -> [1, 2], ``s=`` -> "". Quote to keep a string: ``s='5'``.
    """
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ProfileError(f"parameter {item!r} is not of the form name=value")
        if raw.strip() == "":
            out[key] = ""
            continue
        try:
            out[key] = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            raise ProfileError(f"parameter {key}: value {raw!r} is not a YAML scalar: {exc}") from None
    return out


def _type_ok(default: Any, value: Any) -> bool:
    """Whether ``value`` may replace ``default``: same kind, ints allowed for floats, None always."""
    if default is None or value is None:
        return True
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple))
    return isinstance(value, type(default))


def _check(chapter: str, origin: str, params: dict[str, Any], defaults: dict[str, Any]) -> None:
    valid = [k for k in defaults if k not in RESERVED]
    for key, value in params.items():
        if key in RESERVED:
            raise ProfileError(f"{origin}: {key!r} is set with --{key}, not as a parameter")
        if key not in defaults:
            raise ProfileError(
                f"{origin}: chapter {chapter!r} has no parameter {key!r}; "
                f"its parameters are: {', '.join(valid) or 'none (no parameters cell)'}"
            )
        if not _type_ok(defaults[key], value):
            raise ProfileError(
                f"{origin}: parameter {key!r} of chapter {chapter!r} expects "
                f"{type(defaults[key]).__name__} (default {defaults[key]!r}), got {type(value).__name__} {value!r}"
            )


def resolve(
    chapter: str,
    profile: str = "default",
    overrides: dict[str, Any] | None = None,
    *,
    root: Path | None = None,
    source: Path | None = None,
) -> dict[str, Any]:
    """Effective parameters of a run: notebook defaults < profile < overrides.

    Raises :class:`ProfileError` for an unknown profile (listing the chapter's profiles) or a
    parameter the notebook does not declare (listing its parameters), or a value of the wrong type.
    ``model`` and ``profile`` are not part of the result: the runner sets them.
    """
    defaults = notebook_defaults(chapter, root=root, source=source)
    profiles = chapter_profiles(chapter, root)
    if profile not in profiles:
        raise ProfileError(
            f"chapter {chapter!r} has no profile {profile!r}; its profiles are: {', '.join(profiles)} "
            f"(defined in {profiles_path(root)})"
        )
    _check(chapter, f"profile {profile!r} in {profiles_path(root).name}", profiles[profile], defaults)
    overrides = dict(overrides or {})
    _check(chapter, "override", overrides, defaults)
    merged = {k: v for k, v in defaults.items() if k not in RESERVED}
    merged.update(profiles[profile])
    merged.update(overrides)
    return merged
