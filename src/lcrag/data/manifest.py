"""The data manifest: which files the book reads, where they come from, and how to check them.

``data/manifest.json`` (committed) lists every dataset file with its relative path (the same layout as
the data directory and the mirror), canonical URL (GitHub raw at a fixed commit), sha256, size, git blob
id, licence and citation. This module loads it, validates it, and hashes files against it.

A file is checked by sha256 when the manifest has one, and by git blob id (``git hash-object``) as well
when it has one; a file upstream publishes only a blob id for (BAMBOO ``meetingqa_16k``) is checked by that.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from lcrag import config

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_REQUIRED_KEYS = ("dataset", "path", "url", "license", "citation", "optional")


class DataError(RuntimeError):
    """A data file is missing, or is not the file the manifest describes."""


class DataNotFoundError(DataError, FileNotFoundError):
    """A data file has not been fetched."""


class ChecksumError(DataError):
    """A file's bytes do not match the manifest (the message names the file, expected and actual hash)."""


class ManifestError(ValueError):
    """The manifest file itself is malformed."""


@dataclass(frozen=True)
class ManifestEntry:
    """One data file: where it lives under the data directory, where it comes from, how to check it."""

    dataset: str
    path: str
    url: str
    sha256: str | None
    size: int | None
    git_blob: str | None
    license: str
    citation: str
    optional: bool
    repo: str | None = None
    commit: str | None = None
    repo_path: str | None = None
    records: str | None = None
    note: str | None = None
    archive_member: str | None = None
    alternative: str | None = None
    alternative_member: str | None = None

    @property
    def name(self) -> str:
        return PurePosixPath(self.path).name


@dataclass(frozen=True)
class Manifest:
    """The parsed manifest: dataset descriptions, alternative sources, and the file entries."""

    datasets: dict[str, dict[str, Any]]
    alternatives: dict[str, dict[str, Any]]
    entries: tuple[ManifestEntry, ...]
    source: Path

    def entry(self, rel: str) -> ManifestEntry:
        """The entry for relative path ``rel``; a clear ``KeyError`` naming close matches if unknown."""
        rel = str(PurePosixPath(rel))
        for e in self.entries:
            if e.path == rel:
                return e
        stem = PurePosixPath(rel).name.split(".")[0]
        close = [e.path for e in self.entries if stem and stem in e.path][:5]
        hint = f"; did you mean one of {close}?" if close else ""
        raise KeyError(f"{rel!r} is not in the data manifest {self.source}{hint}")

    def select(
        self, datasets: str | list[str] | tuple[str, ...] | None = None, include_optional: bool = False
    ):
        """Entries of the given dataset ids (all if None), without the optional files unless asked."""
        wanted = _dataset_list(datasets, self.datasets)
        return [e for e in self.entries if e.dataset in wanted and (include_optional or not e.optional)]


def _dataset_list(datasets, known: dict) -> set[str]:
    if datasets is None:
        return set(known)
    names = {datasets} if isinstance(datasets, str) else set(datasets)
    unknown = names - set(known)
    if unknown:
        raise ValueError(f"unknown dataset id(s) {sorted(unknown)}; the manifest has {sorted(known)}")
    return names


def manifest_path() -> Path:
    """``<project root>/data/manifest.json``, else the copy in the checkout this package lives in."""
    candidate = config.project_root() / "data" / "manifest.json"
    if candidate.exists():
        return candidate
    return Path(__file__).resolve().parents[3] / "data" / "manifest.json"


def load_manifest(path: Path | str | None = None) -> Manifest:
    """Read and validate the manifest (cached per path)."""
    return _load_cached(Path(path).resolve() if path else manifest_path().resolve())


@lru_cache(maxsize=8)
def _load_cached(path: Path) -> Manifest:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ManifestError(f"data manifest not found at {path}") from exc
    except json.JSONDecodeError as exc:
        raise ManifestError(f"data manifest {path} is not valid JSON: {exc}") from exc
    datasets = raw.get("datasets") or {}
    alternatives = raw.get("alternatives") or {}
    entries = tuple(
        _entry(item, i, path, datasets, alternatives) for i, item in enumerate(raw.get("files", []))
    )
    _check_unique(entries, path)
    return Manifest(datasets=datasets, alternatives=alternatives, entries=entries, source=path)


def _entry(item: dict, index: int, source: Path, datasets: dict, alternatives: dict) -> ManifestEntry:
    where = f"{source}: files[{index}] ({item.get('path', '?')})"
    missing = [k for k in _REQUIRED_KEYS if k not in item]
    if missing:
        raise ManifestError(f"{where}: missing keys {missing}")
    fields = {k: item.get(k) for k in ManifestEntry.__dataclass_fields__}
    entry = ManifestEntry(**fields)
    problem = _entry_problem(entry, datasets, alternatives)
    if problem:
        raise ManifestError(f"{where}: {problem}")
    return entry


def _entry_problem(e: ManifestEntry, datasets: dict, alternatives: dict) -> str | None:
    rel = PurePosixPath(e.path)
    if rel.is_absolute() or ".." in rel.parts or not e.path:
        return "path must be relative, without '..'"
    if e.dataset not in datasets:
        return f"dataset {e.dataset!r} is not described under 'datasets'"
    if not str(e.url).startswith("https://"):
        return f"url must be https, got {e.url!r}"
    if e.sha256 is None and e.git_blob is None:
        return "needs a sha256 or a git_blob to be checked against"
    if e.sha256 is not None and not _HEX64.match(e.sha256):
        return f"sha256 {e.sha256!r} is not 64 lowercase hex digits"
    if e.git_blob is not None and not _HEX40.match(e.git_blob):
        return f"git_blob {e.git_blob!r} is not 40 lowercase hex digits"
    if e.size is not None and (not isinstance(e.size, int) or e.size < 0):
        return f"size must be a non-negative int, got {e.size!r}"
    if not isinstance(e.optional, bool):
        return "optional must be true or false"
    if e.alternative is not None and e.alternative not in alternatives:
        return f"alternative {e.alternative!r} is not described under 'alternatives'"
    return None


def _check_unique(entries: tuple[ManifestEntry, ...], source: Path) -> None:
    seen: set[str] = set()
    for e in entries:
        if e.path in seen:
            raise ManifestError(f"{source}: path {e.path!r} is listed twice")
        seen.add(e.path)


# --- hashing ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Digest:
    """What a file hashes to: sha256, git blob id (``git hash-object``) and size in bytes."""

    sha256: str
    git_blob: str
    size: int


def digest_bytes(data: bytes) -> Digest:
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    return Digest(hashlib.sha256(data).hexdigest(), blob, len(data))


def digest_file(path: Path | str, chunk: int = 1 << 20) -> Digest:
    """Hash ``path`` in one streaming pass (sha256 and the git blob id at once)."""
    path = Path(path)
    size = path.stat().st_size
    sha256, sha1 = hashlib.sha256(), hashlib.sha1(b"blob %d\0" % size)
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            sha256.update(block)
            sha1.update(block)
    return Digest(sha256.hexdigest(), sha1.hexdigest(), size)


def mismatch(entry: ManifestEntry, digest: Digest) -> str | None:
    """``None`` when ``digest`` matches the entry, else a message with the expected and actual values."""
    if entry.sha256 is not None and digest.sha256 != entry.sha256:
        return f"sha256 mismatch for {entry.path}: expected {entry.sha256}, got {digest.sha256}"
    if entry.git_blob is not None and digest.git_blob != entry.git_blob:
        return f"git blob id mismatch for {entry.path}: expected {entry.git_blob}, got {digest.git_blob}"
    if entry.size is not None and digest.size != entry.size:
        return f"size mismatch for {entry.path}: expected {entry.size} B, got {digest.size} B"
    return None
