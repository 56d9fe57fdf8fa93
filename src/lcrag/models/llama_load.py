"""Loading a llama.cpp model so that it cannot crash on this CPU: the repacked-weight ("extra buffer") check.

Why. llama.cpp's CPU backend may load a model's weights into *extra buffer types*: copies repacked for a faster
kernel (AMX tiles on Intel Xeons with ``amx_int8``, interleaved 4/8-row blocks with AVX2/AVX-512). On an Intel
Xeon with AMX, llama-cpp-python 0.3.36 crashes (``general protection fault`` in ``libggml-cpu.so``) in
``llama_decode`` on every embedded GGUF (SmolLM2 Q4_1, Gemma-3 and Qwen2.5 Q4_K_M) for any batch of two or more
tokens, while one-token batches work; loading with ``llama_model_params.use_extra_bufts = False`` (plain CPU
buffers) makes every batch work. On CPUs without AMX the repacked buffers work and may be faster, so they are
kept there.

How. :func:`extra_bufts_safe` decides per machine, llama.cpp build and model file, by *probing*: a subprocess
(``python -m lcrag.models.llama_load probe <gguf>``) loads the model with the extra buffers and decodes a batch
of 16 tokens; the model is safe with them when the probe exits cleanly and its logits match a probe without
them. The verdict is cached in ``config.models_dir()/llama_probes.json``, beside the fetched models and shared by
every state dir on the machine (key: CPU model and flags, llama.cpp build, file path, size and mtime), so each
model is probed once per machine. A crash in the probe costs a subprocess, never the caller.
``LCRAG_EXTRA_BUFTS=0`` / ``=1`` skips the probe and forces the setting (``auto``, like unset, probes).

Every ``Llama`` the project creates (the embedded server, the split prefill, the tokenizer helpers, benchmarks,
tests) is built through :func:`load` (or inside :func:`model_params`), and the server records the setting it
used in each response's ``serving`` record (``use_extra_bufts``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import sys
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from lcrag import config

PROBE_TOKENS = 16  # a batch this size crashed on every embedded GGUF on an AMX CPU (1 token does not)
PROBE_TIMEOUT_S = 300.0
PROBE_VERSION = 1  # bump when the probe changes: old verdicts are then probed again
ENV_FORCE = "LCRAG_EXTRA_BUFTS"
_PATCH_LOCK = threading.RLock()


class LlamaLoadError(RuntimeError):
    """A model could not be loaded (or probed) by llama.cpp."""


# --------------------------------------------------------------------------- the CPU


def cpu_flags() -> set[str]:
    """The CPU's feature flags (``/proc/cpuinfo``; empty where it cannot be read)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_model() -> str:
    """The CPU's model name, as ``lscpu`` prints it (benchmarks print it with every table)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


def has_amx() -> bool:
    """True on a CPU with AMX integer tiles (where the repacked buffers crashed)."""
    return "amx_int8" in cpu_flags()


def cpu_signature() -> str:
    """What a probe verdict depends on about the machine: CPU model and a hash of its flags."""
    flags = " ".join(sorted(cpu_flags()))
    return f"{cpu_model()}|{hashlib.sha256(flags.encode()).hexdigest()[:12]}"


# --------------------------------------------------------------------------- loading


@contextlib.contextmanager
def model_params(use_extra_bufts: bool):
    """Every ``llama_cpp.Llama`` built inside this block loads with ``use_extra_bufts`` as given.

    llama-cpp-python exposes no argument for it: ``Llama.__init__`` takes its model parameters from
    ``llama_model_default_params()``, so the block wraps that function (under a lock: one block at a time).
    """
    import llama_cpp.llama_cpp as low

    with _PATCH_LOCK:
        original = low.llama_model_default_params

        def patched():
            params = original()
            params.use_extra_bufts = bool(use_extra_bufts)
            return params

        low.llama_model_default_params = patched
        try:
            yield
        finally:
            low.llama_model_default_params = original


def load(path: str | os.PathLike, *, use_extra_bufts: bool | None = None, cls=None, **kwargs):
    """A ``llama_cpp.Llama`` (or ``cls``) for ``path`` with the extra buffers only where they are safe.

    ``use_extra_bufts=None`` decides with :func:`extra_bufts_safe` (vocabulary-only loads need no decision)."""
    import llama_cpp

    if use_extra_bufts is None:
        use_extra_bufts = True if kwargs.get("vocab_only") else extra_bufts_safe(path).use_extra_bufts
    quiet = contextlib.nullcontext()
    if kwargs.get("vocab_only") and not kwargs.get("verbose", True):
        # a vocabulary-only model has no training window, and llama.cpp says so on stderr at every load
        # ("n_ctx_seq (512) > n_ctx_train (0)"), which landed on every page that counts tokens
        from llama_cpp._utils import suppress_stdout_stderr

        quiet = suppress_stdout_stderr(disable=False)
    with model_params(use_extra_bufts), quiet:
        return (cls or llama_cpp.Llama)(str(path), **kwargs)


# --------------------------------------------------------------------------- the probe


@dataclass(frozen=True)
class Verdict:
    """Whether a model file may load with the extra buffers on this machine, and how that was decided."""

    use_extra_bufts: bool
    how: str  # "probe", "env" (LCRAG_EXTRA_BUFTS) or "cache"
    detail: str  # the probe's outcome: "ok", "crashed with signal 11", "logits differ by 3.2", ...

    def as_dict(self) -> dict:
        return asdict(self)


def forced() -> bool | None:
    """``LCRAG_EXTRA_BUFTS``: True (``1``) or False (``0``) forces the setting, None (unset or ``auto``) probes;
    anything else is a :class:`~lcrag.config.SettingError`."""
    value = os.environ.get(ENV_FORCE, "").strip().lower()
    if value in ("", "auto"):
        return None
    if value in ("0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    raise config.SettingError(f"{ENV_FORCE} must be 0, 1 or auto, not {value!r}")


def _llama_cpp_build() -> str:
    import llama_cpp

    return getattr(llama_cpp, "__version__", "?")


def _probe_key(path: Path) -> str:
    st = path.stat()
    return f"v{PROBE_VERSION}|{cpu_signature()}|llama-cpp-python {_llama_cpp_build()}|{path.resolve()}|" \
           f"{st.st_size}|{int(st.st_mtime)}"


def _memo_path() -> Path:
    return config.models_dir() / "llama_probes.json"


def extra_bufts_safe(path: str | os.PathLike) -> Verdict:
    """Whether ``path`` may load with llama.cpp's extra buffer types here (probed once per machine and file)."""
    setting = forced()
    if setting is not None:
        return Verdict(setting, "env", f"{ENV_FORCE}={int(setting)}")
    path = Path(path)
    from lcrag.models.cache import json_memo

    probed: list[Verdict] = []

    def fresh() -> dict:
        probed.append(probe(path))
        return {"use_extra_bufts": probed[0].use_extra_bufts, "detail": probed[0].detail}

    memo = json_memo(_memo_path(), _probe_key(path), fresh, timeout=PROBE_TIMEOUT_S * 3, error=LlamaLoadError)
    return probed[0] if probed else Verdict(memo["use_extra_bufts"], "cache", memo["detail"])


def run_probe(path: str | os.PathLike, use_extra_bufts: bool, timeout: float = PROBE_TIMEOUT_S) -> dict:
    """A batched decode of ``path`` in a subprocess: ``{"rc", "signal", "top", "logits", "stderr"}``.

    ``rc`` is the exit code (negative: killed by that signal); ``top`` and ``logits`` are the last token's
    argmax and first logits when the decode finished."""
    cmd = [sys.executable, "-X", "faulthandler", "-m", "lcrag.models.llama_load", "probe", str(path),
           "--extra-bufts", "1" if use_extra_bufts else "0"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"rc": None, "signal": None, "top": None, "logits": None, "stderr": f"timed out after {timeout} s"}
    out = {"rc": proc.returncode, "signal": -proc.returncode if proc.returncode < 0 else None,
           "top": None, "logits": None, "stderr": "\n".join(proc.stderr.splitlines()[-15:])}
    if proc.returncode == 0:
        try:
            out.update(json.loads(proc.stdout.strip().splitlines()[-1]))
        except (ValueError, IndexError):
            out["rc"] = 1
            out["stderr"] += "\n(probe printed no result)"
    return out


def probe(path: Path, tolerance: float = 0.5) -> Verdict:
    """Decide by running the batched decode with and without the extra buffers (see the module docstring)."""
    plain = run_probe(path, False)
    if plain["rc"] != 0:
        raise LlamaLoadError(
            f"llama.cpp cannot evaluate {path} even without repacked weights (exit {plain['rc']}):\n"
            + plain["stderr"]
        )
    extra = run_probe(path, True)
    if extra["rc"] is None or extra["signal"] == 9:  # a timeout or an out-of-memory kill says nothing: once more
        extra = run_probe(path, True)
    if extra["rc"] != 0:
        how = f"crashed with signal {extra['signal']}" if extra["signal"] else f"failed (exit {extra['rc']})"
        return Verdict(False, "probe", how)
    diff = max(abs(a - b) for a, b in zip(plain["logits"], extra["logits"], strict=True))
    if extra["top"] != plain["top"] or diff > tolerance:
        return Verdict(False, "probe", f"logits differ from plain buffers by {diff:.3g}")
    return Verdict(True, "probe", f"ok (logits within {diff:.3g} of plain buffers)")


def _probe_main(path: str, use_extra_bufts: bool) -> None:
    """The probe's body: load, decode one batch of PROBE_TOKENS tokens, print the last token's logits."""
    import llama_cpp
    import numpy as np

    with model_params(use_extra_bufts):
        llm = llama_cpp.Llama(path, n_ctx=256, n_batch=64, n_threads=min(2, config.available_cpus()),
                              verbose=False)
    text = "The quick brown fox jumps over the lazy dog. " * 4
    tokens = llm.tokenize(text.encode(), add_bos=True)[:PROBE_TOKENS]
    llm.eval(tokens)  # one batch of PROBE_TOKENS tokens
    last = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))  # the batch's last token
    logits = last.astype(np.float64)
    print(json.dumps({"top": int(np.argmax(logits)), "logits": [round(float(v), 4) for v in logits[:64]]}))


def main(argv: list[str] | None = None) -> None:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m lcrag.models.llama_load")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("probe", help="decode one batch in this process (may crash: run it as a subprocess)")
    p.add_argument("gguf")
    p.add_argument("--extra-bufts", choices=("0", "1"), default="1")
    c = sub.add_parser("check", help="the verdict for a GGUF on this machine (probing it if needed)")
    c.add_argument("gguf")
    args = ap.parse_args(argv)
    if args.cmd == "probe":
        _probe_main(args.gguf, args.extra_bufts == "1")
    else:
        print(json.dumps({"cpu": cpu_model(), "amx": has_amx(), **extra_bufts_safe(args.gguf).as_dict()}))


if __name__ == "__main__":
    main()
