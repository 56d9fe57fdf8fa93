"""``lcrag sweep``: grid expansion, planning, lanes (fast); and a real sweep of two chapters' smoke profiles on
a Dask LocalCluster started here, whose result tables must equal those of the sequential run (slow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from helpers import fetched_data_dir

from lcrag.book import sweep
from lcrag.book.profiles import UsageError
from lcrag.book.sweep import SweepSpec, Task

SMOL = "local/smollm2-135m-instruct"
GEMMA = "local/gemma3-270m"
# Two points of the cheapest smoke profile (about 13 s each, warm): two tasks on one local model.
# The two points' BAMBOO prompts differ; their needle prompts are the same, so which point answers those from the
# sweep's cache depends on the order the lanes run in (compared over the whole sweep below).
SWEPT = {"quickstart": {"max_context_tokens": [400, 300]}}
TIMING_COLUMNS = ["latency_s"]  # measured per call: differs between two uncached runs by nature
# Two lanes on one llama.cpp server: a prompt reuses the longest prefix the server's context shares with the last
# prompt it evaluated, which the other lane may have sent, so it is evaluated in other batch splits than alone; the
# logits differ in their last bits and a greedy continuation may part at a near tie (an Intel Xeon with AMX: the
# same first line, then other words; on an AMD EPYC the same first sentence, then a line break against two spaces).
# Compared by their first sentences; the scores must be equal.
CONCURRENT_TEXT = ["response", "completion_tokens"]


# ---------------------------------------------------------------------------------------------- the grid


def test_expand_grid_is_the_cartesian_product_in_order():
    assert sweep.expand_grid({"a": [1, 2], "b": ["x", "y"]}) == [
        {"a": 1, "b": "x"},
        {"a": 1, "b": "y"},
        {"a": 2, "b": "x"},
        {"a": 2, "b": "y"},
    ]
    assert sweep.expand_grid({}) == [{}]
    assert sweep.expand_grid({"depths": [[0, 50], [100]]}) == [{"depths": [0, 50]}, {"depths": [100]}]
    with pytest.raises(UsageError, match="'a'.*non-empty list"):
        sweep.expand_grid({"a": []})
    with pytest.raises(UsageError, match="'a'"):
        sweep.expand_grid({"a": 3})


def test_cli_params_become_a_grid():
    grid = sweep.parse_grid_params(["n_items=[5, 10]", "top_k=3", "needle_depths=[[0, 50]]", "task=x"])
    assert grid == {"n_items": [5, 10], "top_k": [3], "needle_depths": [[0, 50]], "task": ["x"]}
    with pytest.raises(UsageError, match="name=value"):
        sweep.parse_grid_params(["n_items"])


def test_point_ids_are_readable_safe_and_distinct():
    assert sweep.point_id({}) == ""
    assert sweep.point_id({"n_items": 5, "top_k": 2}) == "n_items=5,top_k=2"
    assert sweep.point_id({"depths": [0, 50], "rate": 0.5, "flag": True}) == "depths=0+50,rate=0.5,flag=true"
    a, b = sweep.point_id({"s": "a b"}), sweep.point_id({"s": "a_b"})
    assert a.startswith("s=a_b-") and b == "s=a_b" and a != b  # sanitised ids get a hash: no collision
    long = sweep.point_id({"lengths": list(range(1000, 1100))})
    assert len(long) <= 89 and "/" not in long


# ---------------------------------------------------------------------------------------------- planning


def test_plan_orders_tasks_and_lays_out_run_dirs(tmp_path):
    spec = SweepSpec(
        chapters={"quickstart": {"n_items": [2, 3]}, "long2rag": {}}, models=[SMOL, GEMMA], profile="smoke"
    )
    tasks = sweep.plan(spec, tmp_path)
    got = [(t.index, t.chapter, t.model, t.point) for t in tasks]
    assert got == [
        (0, "quickstart", SMOL, "n_items=2"),
        (1, "quickstart", SMOL, "n_items=3"),
        (2, "quickstart", GEMMA, "n_items=2"),
        (3, "quickstart", GEMMA, "n_items=3"),
        (4, "long2rag", SMOL, ""),
        (5, "long2rag", GEMMA, ""),
    ]
    assert (
        tasks[1].out_dir == tmp_path / "local--smollm2-135m-instruct" / "smoke" / "quickstart" / "n_items=3"
    )
    assert tasks[1].params == {"n_items": 3}
    # no grid: the run lands where `lcrag run` puts it
    assert tasks[5].out_dir == tmp_path / "local--gemma3-270m" / "smoke" / "long2rag"


def test_plan_rejects_bad_tasks_before_running_any(tmp_path):
    ok = {"quickstart": {}}
    with pytest.raises(UsageError, match="quickstart.*no parameter 'n_itemz'"):
        sweep.plan(SweepSpec(chapters=ok, models=[SMOL], grid={"n_itemz": [1]}), tmp_path)
    with pytest.raises(UsageError, match="expects int"):
        sweep.plan(SweepSpec(chapters={"quickstart": {"n_items": ["many"]}}, models=[SMOL]), tmp_path)
    with pytest.raises(UsageError, match="unknown provider"):
        sweep.plan(SweepSpec(chapters=ok, models=["hf/some-model"]), tmp_path)
    with pytest.raises(UsageError, match="no chapter 'nope'"):
        sweep.plan(SweepSpec(chapters={"nope": {}}, models=[SMOL]), tmp_path)
    with pytest.raises(UsageError, match="unknown profile"):
        sweep.plan(SweepSpec(chapters=ok, models=[SMOL], profile="huge"), tmp_path)
    with pytest.raises(UsageError, match="at least one chapter"):
        sweep.plan(SweepSpec(chapters={}, models=[SMOL]), tmp_path)


def test_read_spec(tmp_path):
    f = tmp_path / "sweep.yml"
    f.write_text(
        "profile: quick\nmodels: local/gemma3-270m\nchapters: [quickstart, thesis]\ngrid: {top_k: [1, 2]}\n"
    )
    assert sweep.read_spec(f) == SweepSpec(
        chapters={"quickstart": {}, "thesis": {}}, models=[GEMMA], profile="quick", grid={"top_k": [1, 2]}
    )
    f.write_text("chapters: {quickstart: {n_items: [2, 4]}}\nmodel: x\n")
    with pytest.raises(UsageError, match=r"sweep\.yml: unknown keys \['model'\]"):
        sweep.read_spec(f)
    f.write_text("chapters: [quickstart\n")
    with pytest.raises(UsageError, match="sweep.yml: cannot read it"):
        sweep.read_spec(f)


def test_cli_sweep_reports_a_bad_task_as_a_usage_error(tmp_path, capsys):
    from lcrag.cli import main

    out = tmp_path / "runs"
    assert main(["sweep", "quickstart", "--profile", "smoke", "-p", "n_itemz=[1, 2]", "--out", str(out)]) == 2
    assert "no parameter 'n_itemz'" in capsys.readouterr().err
    assert not out.exists()  # nothing ran, nothing written


# ---------------------------------------------------------------------------------------------- lanes


def _tasks(models: list[str]) -> list[Task]:
    return [Task("quickstart", m, "smoke", index=i) for i, m in enumerate(models)]


def test_tasks_of_one_local_model_share_one_lane():
    tasks = _tasks([SMOL, GEMMA, SMOL, SMOL, GEMMA])
    lanes = [[t.index for t in lane] for lane in sweep.assign_lanes(tasks, max_concurrency=8)]
    assert lanes == [[0, 2, 3], [1, 4]]  # one lane per embedded model, whatever max_concurrency says
    lanes = [[t.index for t in lane] for lane in sweep.assign_lanes(tasks, local_lanes=2)]
    assert lanes == [[0, 3], [1], [2], [4]]


def test_remote_endpoints_get_at_most_max_concurrency_lanes():
    vllm = "openai-compatible/qwen@http://gpu1:8000/v1"
    vllm_other_name = "openai-compatible/llama@http://gpu1:8000/v1"  # same server: same endpoint
    ollama = "openai-compatible/llama@http://gpu2:11434/v1"
    tasks = _tasks([vllm, vllm_other_name, vllm, ollama, vllm, "openai/gpt-4o-mini", SMOL])
    lanes = sweep.assign_lanes(tasks, max_concurrency=2)
    assert [[t.index for t in lane] for lane in lanes] == [[0, 2], [1, 4], [3], [5], [6]]
    per_endpoint: dict[str, int] = {}
    for lane in lanes:
        assert len({sweep.endpoint(t.model) for t in lane}) == 1
        ep = sweep.endpoint(lane[0].model)
        per_endpoint[ep] = per_endpoint.get(ep, 0) + 1
    assert per_endpoint == {
        "http://gpu1:8000/v1": 2,
        "http://gpu2:11434/v1": 1,
        "https://api.openai.com/v1": 1,
        f"local:{SMOL}": 1,
    }
    assert len(sweep.assign_lanes(tasks, max_concurrency=1)) == 4
    with pytest.raises(UsageError):
        sweep.assign_lanes(tasks, max_concurrency=0)


def test_local_model_lock_makes_two_processes_take_turns(tmp_path):
    """Two processes on one machine (one state dir) holding the same local model's lock never overlap."""
    code = textwrap.dedent(
        """
        import sys, time
        from lcrag.book.sweep import local_model_lock
        with local_model_lock(sys.argv[1]):
            t0 = time.time(); time.sleep(1.0); print(t0, time.time())
        """
    )
    env = {**os.environ, "LCRAG_STATE_DIR": str(tmp_path / "state")}
    procs = [
        subprocess.Popen([sys.executable, "-c", code, SMOL], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    (a0, a1), (b0, b1) = sorted(tuple(map(float, p.communicate()[0].split())) for p in procs)
    assert b0 >= a1  # the second started after the first let go
    assert (tmp_path / "state" / "sweep" / "local--smollm2-135m-instruct.lock").exists()


def test_workers_get_lcrag_variables_but_no_secrets():
    env = {
        "LCRAG_DATA_DIR": "/d",
        "LCRAG_CACHE_DIR": "/c",
        "LCRAG_API_KEY": "sk-1",
        "OPENAI_API_KEY": "sk-2",
        "OPENAI_BASE_URL": "http://x/v1",
        "LCRAG_RUN_DIR": "/r",
        "HOME": "/h",
    }
    assert sweep.worker_environment(env) == {
        "LCRAG_DATA_DIR": "/d",
        "LCRAG_CACHE_DIR": "/c",
        "OPENAI_BASE_URL": "http://x/v1",
    }


# ---------------------------------------------------------------------------------------------- a real sweep


@pytest.fixture(scope="module")
def sweep_data(mirror, tmp_path_factory):
    yield from fetched_data_dir(mirror, tmp_path_factory, ["bamboo", "paul_graham_essays"])


def _tables(out_dir: str) -> dict[str, pd.DataFrame]:
    return {p.name: pd.read_csv(p) for p in sorted(Path(out_dir).glob("*.csv"))}


def _manifest(out_dir: str) -> dict:
    return json.loads((Path(out_dir) / "manifest.json").read_text())


@pytest.mark.slow
def test_dask_cluster_sweep_equals_the_sequential_sweep(sweep_data, tmp_path, monkeypatch, report):
    from distributed import LocalCluster

    from lcrag.models import server

    spec = SweepSpec(chapters=SWEPT, models=[SMOL], profile="smoke")
    server.start(SMOL)  # started once, outside both timings (the two sweeps share this machine's server)

    # sequential: joblib, n_jobs=1, in this process, with its own empty response cache
    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path / "cache-seq"))
    t0 = time.monotonic()
    seq = sweep.run_sweep(sweep.plan(spec, tmp_path / "seq"), n_jobs=1)
    t_seq = time.monotonic() - t0
    assert seq["ok"].all(), seq["error"].tolist()
    assert (seq["pid"] == os.getpid()).all()

    # Dask: two worker processes; two lanes for the one local model, so the machine-wide lock must make them
    # take turns on the shared server. The sequential sweep's cache: every answer is read back from disk in the
    # workers, none is computed again (that the same request gives the same answer computed twice is
    # tests/test_local_server.py's; computing them again here cost a minute of CI).
    t0 = time.monotonic()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        t_cluster = time.monotonic() - t0
        t0 = time.monotonic()
        dsk = sweep.run_sweep(
            sweep.plan(spec, tmp_path / "dask"), cluster=cluster.scheduler_address, local_lanes=2
        )
        t_dask = time.monotonic() - t0
    report.append(
        f"sweep of {SWEPT} (smoke, {SMOL}): sequential {t_seq:.1f} s, dask {t_dask:.1f} s "
        f"(+ {t_cluster:.1f} s cluster start); per task seq {seq['wall_s'].tolist()} dask {dsk['wall_s'].tolist()} "
        f"(of which waiting for the other lane's run {dsk['wait_s'].tolist()})"
    )

    assert dsk["ok"].all(), dsk["error"].tolist()
    assert os.getpid() not in set(dsk["pid"]) and dsk["pid"].nunique() == 2  # both workers ran a task
    assert sorted(dsk["lane"]) == [0, 1]
    first, second = sorted((_manifest(d)["started"], _manifest(d)["finished"]) for d in dsk["out_dir"])
    assert second[0] >= first[1]  # the lock: never two runs on one local model at once

    key = ["chapter", "model", "profile", "point", "params", "status", "calls"]
    assert seq[key].equals(dsk[key])
    s_sources = [_manifest(d)["usage"]["by_source"] for d in seq["out_dir"]]
    d_sources = [_manifest(d)["usage"]["by_source"] for d in dsk["out_dir"]]
    assert [sum(s.values()) for s in s_sources] == [sum(d.values()) for d in d_sources]  # calls per point
    assert sum(s.get("network", 0) for s in s_sources) > 0  # the sequential sweep computed its answers
    assert all(set(d) <= {"disk"} for d in d_sources)  # and the workers read every one of them from its cache
    for s_dir, d_dir in zip(seq["out_dir"], dsk["out_dir"], strict=True):
        s_tables, d_tables = _tables(s_dir), _tables(d_dir)
        assert len(s_tables) >= 3 and set(s_tables) == set(d_tables)
        for name, df in s_tables.items():
            drop = [c for c in TIMING_COLUMNS if c in df.columns]
            pd.testing.assert_frame_equal(
                d_tables[name].drop(columns=drop), df.drop(columns=drop), check_exact=True, obj=name
            )


@pytest.mark.slow
def test_a_remote_endpoint_sweep_runs_max_concurrency_lanes_at_once(sweep_data, tmp_path, monkeypatch, report):
    """Two tasks on one OpenAI-compatible endpoint, reached over HTTP as any remote server is (here the real
    llama.cpp server of SmolLM2, under two model names), with ``max_concurrency=2``: two lanes, on two joblib
    workers, whose runs overlap in time, and whose scores are equal (one model, greedy decoding)."""
    from lcrag.models import server

    url = server.start(SMOL).base_url  # started outside the timing
    models = [f"openai-compatible/smollm2-{name}@{url}" for name in ("a", "b")]
    tasks = sweep.plan(SweepSpec(chapters={"quickstart": {}}, models=models, profile="smoke"), tmp_path / "runs")
    assert {sweep.endpoint(t.model) for t in tasks} == {url}
    assert len(sweep.assign_lanes(tasks, max_concurrency=1)) == 1  # the bound: one lane, one task at a time

    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path / "cache"))  # empty: every answer comes from the server
    t0 = time.monotonic()
    table = sweep.run_sweep(tasks, n_jobs=2, max_concurrency=2)
    wall = time.monotonic() - t0
    report.append(
        f"remote-endpoint sweep (quickstart smoke x 2 model names on {url}, max_concurrency=2): {wall:.1f} s; "
        f"per task {table['wall_s'].tolist()}"
    )

    assert table["ok"].all(), table["error"].tolist()
    assert sorted(table["lane"]) == [0, 1] and table["pid"].nunique() == 2 and os.getpid() not in set(table["pid"])
    first, second = sorted((_manifest(d)["started"], _manifest(d)["finished"]) for d in table["out_dir"])
    assert second[0] < first[1]  # both lanes talked to the endpoint at the same time
    a_dir, b_dir = table["out_dir"]
    for d in (a_dir, b_dir):
        by_source = _manifest(d)["usage"]["by_source"]
        assert by_source.get("network", 0) > 0 and not by_source.get("store"), by_source
    a_tables, b_tables = _tables(a_dir), _tables(b_dir)
    assert len(a_tables) >= 3 and set(a_tables) == set(b_tables)
    for name, df in a_tables.items():  # the scores are equal; the free text up to a near tie (CONCURRENT_TEXT)
        drop = [c for c in [*TIMING_COLUMNS, *CONCURRENT_TEXT, "model"] if c in df.columns]
        pd.testing.assert_frame_equal(b_tables[name].drop(columns=drop), df.drop(columns=drop), obj=name)
        if "response" in df:
            first = [t.str.split(r"(?<=[.!?])\s|\n", n=1, regex=True).str[0]
                     for t in (df["response"], b_tables[name]["response"])]
            assert first[0].equals(first[1]), name
