"""Reusing an executed chapter whose inputs did not change, so that a rebuild only re-executes what it must.

A chapter's execution reads: its notebook source, its parameters (profile, model, overrides), the ``lcrag``
package, the data manifest, the committed response store of its chapter and the committed embeddings, the
installed versions of the libraries it runs on and, for the chapters that read other chapters' tables (the
synthesis), those tables.
:func:`chapter_inputs` digests each of them; the run manifest keeps the digests (``inputs``) and their
fingerprint (``inputs_sha256``). :func:`reusable` says whether an earlier run in the same directory can stand
for a new one: it succeeded, it was made for the book, it has the same fingerprint, its notebook is there, and
every model answer it used came from the committed store (a run that called a model or read the local cache
is not reproducible from the repository, so it is executed again).

Nothing here changes what a chapter computes: a reused run is the very notebook an execution produced with
the same inputs. ``lcrag book --rerun`` (``force``) executes every chapter regardless.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lcrag.book import manifest as mf
from lcrag.models.cache import code_sha256, file_sha256, tree_sha256

INPUTS_SHA_KEY = "inputs_sha256"
INPUTS_KEY = "inputs"
def store_sha256(store_dir: Path, chapter: str, skip: Iterable[str] = ()) -> dict[str, str]:
    """``{file name: sha256}`` of the chapter's store files, but those named in ``skip`` (model slugs)."""
    folder = Path(store_dir) / chapter
    skip = set(skip)
    return {f.name: file_sha256(f) for f in sorted(folder.glob("*.jsonl")) if f.stem not in skip}


def embeddings_sha256(store_dir: Path) -> str:
    """The committed embedding store (:mod:`lcrag.models.embedding_store`): vectors any chapter may read."""
    folder = Path(store_dir) / "embeddings"
    return tree_sha256(folder, [p for p in folder.rglob("*") if p.suffix in (".keys", ".f32", ".json")])


def tables_sha256(runs_root: Path, run_dirs: Iterable[Path]) -> str:
    """The tables (``*.csv``) of other chapters' runs under ``runs_root``, for a chapter that reads them."""
    return tree_sha256(Path(runs_root), [f for d in sorted({Path(d) for d in run_dirs}) for f in d.glob("*.csv")])


def chapter_inputs(
    *,
    source: Path,
    parameters: dict[str, Any],
    profile: str,
    model: str,
    store_mode: str,
    package_dir: Path,
    data_manifest: Path,
    store_dir: Path,
    chapter: str,
    skip_store: Iterable[str] = (),
    runs_root: Path | None = None,
    upstream_runs: Iterable[Path] | None = None,
) -> dict[str, Any]:
    """The digests of everything the execution of one chapter reads (see the module docstring)."""
    inputs: dict[str, Any] = {
        "source": file_sha256(source),
        "parameters": json.loads(json.dumps(parameters, sort_keys=True, default=str)),
        "profile": profile,
        "model": model,
        "store_mode": store_mode,
        "code": code_sha256(package_dir),
        "data_manifest": file_sha256(data_manifest) if Path(data_manifest).exists() else None,
        "store": store_sha256(store_dir, chapter, skip_store),
        "embeddings": embeddings_sha256(store_dir),
        "versions": mf.package_versions(),
    }
    if upstream_runs is not None:
        inputs["upstream_tables"] = tables_sha256(Path(runs_root or "/"), upstream_runs)
    return inputs


def fingerprint(inputs: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()


def reusable(out_dir: Path, chapter: str, fp: str) -> dict[str, Any] | None:
    """The manifest of the run in ``out_dir`` if it can stand for a new execution with fingerprint ``fp``."""
    m_path, notebook = Path(out_dir) / mf.MANIFEST_FILE, Path(out_dir) / f"{chapter}.ipynb"
    if not (m_path.exists() and notebook.exists()):
        return None
    try:
        m = mf.read_manifest(m_path)
    except ValueError:
        return None
    if m.get("status") != "ok" or not m.get("book") or m.get(INPUTS_SHA_KEY) != fp:
        return None
    sources = set((m.get("usage") or {}).get("by_source") or {})
    if sources - {"store"}:  # a model call or a local-cache answer: not reproducible from the repository
        return None
    return m
