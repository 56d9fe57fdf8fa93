"""The LongRAG chapter as a whole: its smoke profile executed, with one LRGinstruction record built by the embedded
model (its modules are tested in tests/papers/longrag/test_<module>.py and tests/papers/longrag/lrginstruction/,
the released chunker in tests/text/test_chunking.py, LongBench's F1 in tests/metrics/test_qa.py)."""

from __future__ import annotations

import pandas as pd
import pytest


@pytest.fixture(scope="module")
def smoke_run(longbench_data, tmp_path_factory):
    from lcrag.book.runner import run_chapter

    return run_chapter("longrag", profile="smoke", out_dir=tmp_path_factory.mktemp("run"), progress=False)


@pytest.mark.slow
def test_the_chapter_runs_in_the_smoke_profile(smoke_run):
    import json

    assert smoke_run.ok, smoke_run.error
    answers = pd.read_csv(smoke_run.out_dir / "answers.csv")
    assert len(answers) == 3 and set(answers["strategy"]) == {"R&B"} and set(answers["dataset"]) == {"2wikimqa"}
    assert answers["f1"].between(0, 1).all()
    corpus = pd.read_csv(smoke_run.out_dir / "corpus.csv").set_index("dataset")
    assert corpus.loc["2wikimqa", "records"] == 100 and corpus.loc["2wikimqa", "paper_paragraphs"] == 1464
    checks = pd.read_csv(smoke_run.out_dir / "paper_checks.csv")
    assert len(checks) >= 20
    manifest = json.loads((smoke_run.out_dir / "manifest.json").read_text())
    assert manifest["status"] == "ok" and manifest["parameters"]["strategies"] == ["R&B"]


@pytest.mark.slow
def test_the_smoke_run_builds_one_lrginstruction_record_with_the_embedded_model(smoke_run):
    """Section 9 on one real 2WikiMQA record (the smoke profile's ``lrg_records: 1``), SmolLM2 as the teacher:
    [STEP-1] answered, each [STEP-2] judgement read in one of the known forms, the five instruction rows."""
    from lcrag.papers.longrag.lrginstruction import records

    read = lambda name: pd.read_csv(smoke_run.out_dir / f"{name}.csv", keep_default_na=False)  # noqa: E731
    seen, calls, rows = read("lrg_records"), read("lrg_calls"), read("lrg_instructions")
    assert len(seen) == 1 and seen["skip"].tolist() == [""]
    assert calls["step"].tolist()[:1] == ["STEP-1"] and 2 <= len(calls) <= 5
    assert (calls["prompt_tokens"] > 0).all() and (calls["source"] == "network").all()
    assert calls.loc[calls.step == "STEP-2", "judge_form"].isin(["json", "embedded_json", "status_line", "malformed"]).all()
    assert rows["task"].tolist() == ["ext", "cot", "fil", "fil", "rag"]
    assert rows.loc[rows.task == "rag", ["kept", "output"]].values.tolist() == [[True, "John the Baptist"]]
    assert (rows["kept_code"] | ~rows["kept_strict"]).all()  # whatever strict keeps, the code keeps
    assert rows.loc[~rows.kept, "reason"].isin(["too short", "judgement malformed", "judged False"]).all()
    assert (rows["instruction_tokens"] <= records.MAX_INSTRUCTION_TOKENS).all()
