"""lcrag.config: the CPUs a process may use follow its affinity mask (taskset, a container's cpuset)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from lcrag import config


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no affinity masks on this platform")
def test_available_cpus_follow_the_affinity_mask():
    one = sorted(os.sched_getaffinity(0))[:1]
    code = ("import os; from lcrag import config; from lcrag.book.build import default_jobs; "
            "from lcrag.models import registry, server_settings; "
            "info = registry.LOCAL_MODELS['smollm2-135m-instruct']; "
            "print(config.available_cpus(), default_jobs(), server_settings.serving_settings(info)['n_threads'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "LCRAG_JOBS": ""}, preexec_fn=lambda: os.sched_setaffinity(0, one))
    assert out.stdout.split() == ["1", "1", "1"]  # one core: one chapter at a time, one server thread
    assert config.available_cpus() == len(os.sched_getaffinity(0))


def test_server_idle_seconds_default_never_and_bad_values(monkeypatch):
    monkeypatch.delenv("LCRAG_SERVER_IDLE_S", raising=False)
    assert config.server_idle_s() == 1800.0
    monkeypatch.setenv("LCRAG_SERVER_IDLE_S", "0")
    assert config.server_idle_s() == 0.0
    monkeypatch.setenv("LCRAG_SERVER_IDLE_S", " 90 ")
    assert config.server_idle_s() == 90.0
    for bad, says in (("soon", "is not a number of seconds"), ("-5", "at least 0")):
        monkeypatch.setenv("LCRAG_SERVER_IDLE_S", bad)
        with pytest.raises(config.SettingError, match=f"LCRAG_SERVER_IDLE_S='{bad}'.*{says}"):
            config.server_idle_s()


@pytest.mark.parametrize(("name", "value", "says"), [
    ("LCRAG_TIMEOUT_S", "ten", "LCRAG_TIMEOUT_S='ten' is not a number of seconds"),
    ("LCRAG_DEADLINE_S", "0", "LCRAG_DEADLINE_S='0': a number of seconds of at least 0.001"),
    ("LCRAG_MAX_CONCURRENCY", "2.5", "LCRAG_MAX_CONCURRENCY='2.5' is not a number of requests"),
    ("LCRAG_CONTEXT_WINDOW", "0", "LCRAG_CONTEXT_WINDOW='0': a number of tokens of at least 1"),
])
def test_a_bad_numeric_setting_names_its_variable(monkeypatch, name, value, says):
    from lcrag.models import client, registry, retry

    monkeypatch.setenv(name, value)
    with pytest.raises(config.SettingError) as exc:
        retry.RetryPolicy()
        client.get_model("openai/gpt-4o-mini")
        registry.parse_spec("openai-compatible/m@http://127.0.0.1:9/v1")
    assert str(exc.value).startswith(says)


def test_the_how_to_run_page_documents_every_variable_and_local_model():
    """book/how-to-run.md's tables name every LCRAG_* variable the package reads and every local model the
    registry knows (issue 20: the page had missed LCRAG_CONTEXT_WINDOW, LCRAG_MODEL_KIND, LCRAG_BASE_URL and
    local/gemma3-270m)."""
    import re

    from lcrag.models.registry import LOCAL_MODELS

    root = config.project_root()
    page = (root / "book" / "how-to-run.md").read_text(encoding="utf-8")
    read = {v for p in (root / "src" / "lcrag").rglob("*.py") for v in re.findall(r"LCRAG_[A-Z_]+[A-Z]", p.read_text())}
    assert len(read) > 20
    assert sorted(v for v in read if v not in page) == []
    assert sorted(f"local/{m}" for m in LOCAL_MODELS if f"local/{m}" not in page) == []


def test_a_child_in_another_directory_gets_absolute_paths_and_this_package_first(tmp_path, monkeypatch):
    from pathlib import Path

    import lcrag

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LCRAG_CACHE_DIR", "cache")
    monkeypatch.setenv("LCRAG_STATE_DIR", "~/state")
    monkeypatch.setenv("PYTHONPATH", "src" + os.pathsep + "/opt/x")
    monkeypatch.delenv("LCRAG_DATA_DIR", raising=False)
    env = config.child_environment()
    assert env["LCRAG_CACHE_DIR"] == str(tmp_path / "cache")
    assert env["LCRAG_STATE_DIR"] == str(Path.home() / "state")
    assert "LCRAG_DATA_DIR" not in env
    paths = env["PYTHONPATH"].split(os.pathsep)
    assert paths == [str(Path(lcrag.__file__).resolve().parents[1]), str(tmp_path / "src"), "/opt/x"]
    assert os.environ["LCRAG_CACHE_DIR"] == "cache"  # this process's own environment is left as it was
