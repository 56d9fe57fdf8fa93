"""The embedded model server: llama-cpp-python's OpenAI-compatible server on a free loopback port.

One server per model per machine, reused across notebooks and processes:

- machine-wide state in ``config.state_dir()/servers/<slug>.{json,lock,log}`` (pid, port, settings, log file),
  and ``<slug>.kv``, the KV cache of the model's latest long prompt (:mod:`lcrag.models.prefix_snapshot`);
- a file lock serialises starts, so two notebooks never start the same model twice;
- a health check (``GET /v1/models``) decides whether a recorded server is still usable;
- ``stop()`` ends it cleanly (SIGTERM, then SIGKILL after a grace period); unused for ``LCRAG_SERVER_IDLE_S``
  (half an hour) it ends itself, and the next call starts it again (:func:`death` tells that from a crash);
- prompt (KV) caching: calls that share a long prefix with the previous call only evaluate the new tokens; so
  does, after a restart, a long prompt that shares a long prefix with the snapshot ``<slug>.kv``.

What it serves: the model's GGUF files (:mod:`lcrag.models.model_files`) with the settings of
:func:`lcrag.models.server_settings.serving_settings`, recorded in each run manifest and overridable with the
environment variable ``LCRAG_SERVING``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from lcrag import config
from lcrag.models.cache import atomic_write_bytes, file_lock
from lcrag.models.model_files import ServerError, gguf_path
from lcrag.models.registry import ModelInfo, parse_spec
from lcrag.models.server_settings import _server_args, logprobs_ctx, serving_model_paths, serving_settings

START_TIMEOUT_S = 180.0
BUSY_GRACE_S = 30.0  # a recorded server that is alive but slow to answer its health check gets this long
LOGPROBS_SUFFIX = "+logprobs"


class ServerDied(ServerError):
    """The embedded server's process ended while it was recorded as serving (a crash, a kill)."""


_CHILDREN: dict[int, subprocess.Popen] = {}  # servers started by this process: their exit status is known here


@dataclass(frozen=True)
class ServerHandle:
    spec: str
    base_url: str  # ends with /v1
    pid: int
    port: int
    settings: dict
    log: str


def _paths(info: ModelInfo, logits_all: bool = False) -> tuple[Path, Path, Path, Path]:
    """The server's state, lock, log and KV snapshot files (the logprobs server has its own: another window)."""
    root = config.state_dir() / "servers"
    root.mkdir(parents=True, exist_ok=True)
    name = info.slug + (LOGPROBS_SUFFIX if logits_all else "")
    return root / f"{name}.json", root / f"{name}.lock", root / f"{name}.log", root / f"{name}.kv"


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
    only computes them when logits are kept for every token the shipped model evaluates, which costs memory
    (``n_ctx x vocabulary`` floats), so the window of that server is capped (:func:`logprobs_ctx`). Its long
    prompt segments go through the split prefill as on the other server (``lcrag.models.prefill``): a needle
    judge's 300-token prompt took SmolLM2 2-6 s on one core of an Intel Xeon with AMX evaluated by llama.cpp.
    """
    info = parse_spec(spec)
    if not info.is_local:
        raise ServerError(f"{spec} is not a local model; nothing to serve")
    settings = serving_settings(info)
    config.server_idle_s()  # a malformed LCRAG_SERVER_IDLE_S fails here, not in the server's log
    if logits_all:
        settings.update(logits_all=True, n_ctx=logprobs_ctx(gguf_path(info), settings["n_ctx"]))
    path, prefill = serving_model_paths(info, settings)
    state_path, lock_path, log_path, snapshot = _paths(info, logits_all)
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
            # a server outlives the run that starts it (the next run finds it), so it must not depend on that
            # run's working directory, which may be gone by then (torch then fails in os.getcwd()): it runs in
            # the state directory, its paths absolute (config.child_environment)
            proc = subprocess.Popen(
                _server_args(path, port, settings, prefill, snapshot), stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True, cwd=log_path.parent,
                env=config.child_environment(),
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
    when it stopped on purpose: none recorded, or it stopped itself unused, ``LCRAG_SERVER_IDLE_S``). Names the
    signal where it is known (a server this process started, or the faulthandler's line in the log) and quotes
    the log of its last start."""
    state_path, lock_path, log_path, _ = _paths(parse_spec(spec), logits_all)
    state = _read_state(state_path)
    if not state or _alive(state["pid"]):
        return None
    if config.SERVER_IDLE_MARK in _log_tail(log_path, 400).split("=== lcrag: starting")[-1]:  # stopped itself
        with _locked(lock_path):
            if (_read_state(state_path) or {}).get("pid") == state["pid"]:
                state_path.unlink(missing_ok=True)
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
        with contextlib.suppress(ChildProcessError, AttributeError):  # AttributeError: no WNOHANG on Windows
            os.waitpid(pid, os.WNOHANG)
        if not _alive(pid):
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))  # Windows has no SIGKILL: TerminateProcess


def stop(spec: str | None = None) -> list[str]:
    """Stop the server for ``spec`` (all embedded servers when None); return the specs stopped."""
    targets = [(s["spec"], bool(s.get("logits_all"))) for s in status() if spec in (None, s["spec"])]
    stopped = []
    for s, logits_all in targets:
        state_path, lock_path, _, _ = _paths(parse_spec(s), logits_all)
        with _locked(lock_path):
            state = _read_state(state_path)
            if state:
                _terminate(state["pid"])
                state_path.unlink(missing_ok=True)
                stopped.append(s + (LOGPROBS_SUFFIX if logits_all else ""))
    return stopped


def status() -> list[dict]:
    """Every recorded embedded server with ``alive`` and ``healthy`` flags (one that stopped itself unused is no
    longer recorded; one that died is listed, not alive)."""
    root = config.state_dir() / "servers"
    out = []
    for state_path in sorted(root.glob("*.json")) if root.exists() else []:
        state = _read_state(state_path)
        if not state:
            continue
        alive = _alive(state["pid"])
        if not alive and death(state["spec"], bool(state.get("logits_all"))) is None:
            continue
        out.append({**state, "alive": alive, "healthy": alive and healthy(state["base_url"])})
    return out
