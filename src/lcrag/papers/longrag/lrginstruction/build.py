"""LRGinstruction's construction, one record at a time: the model calls, the candidate instructions, the output.

:func:`build_record` runs one prepared record (:func:`lcrag.papers.longrag.lrginstruction.records.prepare`)
through all four constructions (ext, cot, fil, rag), :func:`build_dataset` walks a dataset's records until enough
are built; :func:`summary` counts what was kept beside the paper's Table 15, :func:`write_jsonl` writes the kept
records in LLaMA-Factory's format. Every other step is a small pure function in the sibling modules.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import pandas as pd

from lcrag import config
from lcrag.papers.longrag.lrginstruction.judgement import Judgement, parse_judgement, rejection
from lcrag.papers.longrag.lrginstruction.prompts import (
    cot_instruction,
    cot_step1_prompt,
    cot_step2_prompt,
    ext_instruction,
    ext_step1_prompt,
    ext_step2_prompt,
    fil_instruction,
    rag_instruction,
    record,
)
from lcrag.papers.longrag.lrginstruction.records import Settings, prepare
from lcrag.papers.longrag.published import paper_table15

TASKS = ("ext", "cot", "fil", "rag")

#: Each task's row of Table 15 (the paper's "data type").
TABLE15_DATA_TYPES = {"ext": "long-context extractor", "cot": "CoT-guiding", "fil": "filtering",
                      "rag": "task-oriented"}


def _call(model, step: str, task: str, prompt: str, max_tokens: int) -> tuple[dict, str]:
    out = model.ask(prompt, max_tokens=max_tokens, temperature=0.0, context_policy="truncate_middle")
    row = {
        "task": task,
        "step": step,
        "prompt_tokens": out.prompt_tokens,
        "completion_tokens": out.completion_tokens,
        "finish_reason": out.finish_reason,
        "input_truncated": bool(out.truncation),
        "latency_s": out.latency_s,
        "source": out.source,
        "response": out.text,
    }
    return row, out.text



def _judge(model, task: str, prompt: str, settings: Settings) -> tuple[dict, Judgement]:
    row, answer = _call(model, "STEP-2", task, prompt, settings.judge_tokens)
    j = parse_judgement(answer)
    row.update(
        judge_form=j.form,
        judge_status=j.status,
        judge_code_true=j.code_true,
        verdict=rejection(j, settings.rule) or "accepted",
    )
    return row, j


def _generate_and_judge(
    model, task: str, step1: str, judge: Callable[[str], str], settings: Settings
) -> tuple[list[dict], str, Judgement | None, bool]:
    """[STEP-1], then [STEP-2] when the output is long enough: the call rows, the output, the judgement (None
    when not asked) and whether the output was too short."""
    row1, output = _call(model, "STEP-1", task, step1, settings.step1_tokens)
    output = output.strip()
    row1["response_tokens"] = model.count_tokens(output)
    if row1["response_tokens"] < settings.min_response_tokens:
        row1["verdict"] = f"too short (< {settings.min_response_tokens} tokens)"
        return [row1], output, None, True
    row1["verdict"] = "long enough"
    row2, j = _judge(model, task, judge(output), settings)
    return [row1, row2], output, j, False


def build_record(prepared: dict, model, settings: Settings | None = None) -> tuple[list[dict], list[dict]]:
    """Run one prepared record through all four constructions: ``(call rows, instruction rows)``.

    Four model calls (ext STEP-1/2, cot STEP-1/2; a fifth when the CoT is too short for the cot task). The
    filtering records reuse the cot task's thought process: the code's filter builder sends the very same
    [STEP-1]/[STEP-2] prompts (without the length test), so with greedy decoding its calls return the same text.
    Every candidate instruction gets a row, kept or not, with the reason under ``settings.rule`` and whether
    each rule (``kept_strict``, ``kept_code``) would keep it.
    """
    settings = settings or Settings()
    q, a, content = prepared["question"], prepared["answer"], prepared["content"]
    ext_calls, info, ext_j, ext_short = _generate_and_judge(
        model, "ext", ext_step1_prompt(prepared["support"], q), lambda o: ext_step2_prompt(q, o, a), settings
    )
    cot_calls, cot, cot_j, cot_short = _generate_and_judge(
        model,
        "cot",
        cot_step1_prompt(prepared["support"], q, a),
        lambda o: cot_step2_prompt(q, o, a),
        settings,
    )
    calls = ext_calls + cot_calls
    fil_j = cot_j
    if cot_short:  # too short for the cot task; the code's filter builder judges it anyway
        row, fil_j = _judge(model, "fil", cot_step2_prompt(q, cot, a), settings)
        calls.append(row)
    rng = random.Random(f"{settings.seed}:{prepared['record_id']}:fil")
    candidates = [
        ("ext", None, ext_instruction(content, q, info), ext_j, ext_short),
        ("cot", None, cot_instruction(content, q, cot), cot_j, cot_short),
    ]
    for supporting, pool in ((True, prepared["support"]), (False, prepared["distractors"])):
        rec = fil_instruction(rng.choice(pool), q, cot, supporting) if pool else None
        candidates.append(("fil", supporting, rec, fil_j, False))
    candidates.append(("rag", None, rag_instruction(content, q, a), None, False))
    rows = []
    for task, label, rec, j, short in candidates:
        if rec is None:
            why = {r: "no paragraph with this label" for r in ("strict", "code")}
        elif task == "rag":
            why = {"strict": "", "code": ""}  # the dataset's own answer: no model, no judgement
        else:
            why = {r: rejection(j, r, short) for r in ("strict", "code")}
        rows.append(
            {
                "dataset": prepared["dataset"],
                "record_id": prepared["record_id"],
                "task": task,
                "fil_label": label,
                "kept": not why[settings.rule],
                "reason": why[settings.rule] or "kept",
                "kept_strict": not why["strict"],
                "kept_code": not why["code"],
                "instruction_tokens": model.count_tokens(rec["instruction"]) if rec else None,
                "output_tokens": model.count_tokens(rec["output"]) if rec else None,
                **(rec or record("", "")),
            }
        )
    for c in calls:
        c.update(dataset=prepared["dataset"], record_id=prepared["record_id"])
    return calls, rows


def build_dataset(
    records: pd.DataFrame, dataset: str, model, n_records: int, settings: Settings | None = None
) -> dict[str, pd.DataFrame]:
    """Walk ``records`` in order until ``n_records`` usable ones have been built; every record looked at is in
    ``records`` (with its skip reason). Returns tidy tables ``records``, ``calls`` and ``instructions``."""
    settings = settings or Settings()
    looked, calls, rows = [], [], []
    built = 0
    for item in records.to_dict("records"):
        if built >= n_records:
            break
        prepared = prepare(item, dataset, model.count_tokens, settings)
        looked.append({k: v for k, v in prepared.items() if k not in ("support", "distractors", "content")})
        if prepared["skip"]:
            continue
        c, r = build_record(prepared, model, settings)
        calls += c
        rows += r
        built += 1
    call_cols = [
        "dataset",
        "record_id",
        "task",
        "step",
        "prompt_tokens",
        "completion_tokens",
        "response_tokens",
        "finish_reason",
        "input_truncated",
        "judge_form",
        "judge_status",
        "judge_code_true",
        "verdict",
        "latency_s",
        "source",
        "response",
    ]
    return {
        "records": pd.DataFrame(looked),
        "calls": pd.DataFrame(calls).reindex(columns=call_cols),
        "instructions": pd.DataFrame(rows),
    }


def build_datasets(records: dict[str, pd.DataFrame], model, n_records: int,
                   settings: Settings | None = None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """:func:`build_dataset` on each dataset's records (``{dataset: records}``), :func:`stack`-ed: (records looked
    at, model calls, candidate instructions)."""
    return stack({ds: build_dataset(r, ds, model, n_records, settings) for ds, r in records.items()})


def stack(built: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The tables of :func:`build_dataset` for several datasets (``{dataset: tables}``), stacked:
    (records looked at, model calls, candidate instructions); empty tables when nothing was built."""
    keys = ("records", "calls", "instructions")
    if not built:
        return pd.DataFrame(), pd.DataFrame(), pd.DataFrame()
    return tuple(pd.concat([b[k] for b in built.values()], ignore_index=True) for k in keys)


def table15_count(task: str, dataset: str) -> int:
    """Table 15's count of ``task`` instructions for ``dataset``; 0 where the paper prints "-" or has none."""
    t15 = paper_table15()
    hit = t15.loc[(t15["data_type"] == TABLE15_DATA_TYPES.get(task)) & (t15["dataset"] == dataset), "paper_value"]
    return 0 if hit.empty or math.isnan(hit.iloc[0]) else int(hit.iloc[0])


def summary(instructions: pd.DataFrame) -> pd.DataFrame:
    """Candidates, kept instructions and the reasons for the rest (under the run's rule), per dataset and task;
    how many each rule would keep; and Table 15's count beside."""
    by = instructions.groupby(["dataset", "task"], sort=False)
    out = by["reason"].value_counts().unstack(fill_value=0)
    if "kept" not in out:
        out["kept"] = 0
    reasons = sorted(c for c in out.columns if c != "kept")  # why the rest were not kept, between the two
    out = out[reasons + ["kept"]]
    out.insert(0, "candidates", out.sum(axis=1))
    out["kept_strict"] = by["kept_strict"].sum()
    out["kept_code"] = by["kept_code"].sum()
    out.columns.name = None
    out = out.reset_index()
    out["paper_table15"] = [table15_count(t, d) for d, t in zip(out["dataset"], out["task"], strict=True)]
    return out


def write_jsonl(rows: Iterable[dict], name: str = "lrginstruction") -> Path:
    """Write training records (``instruction``, ``input``, ``output`` only) as ``<name>.jsonl`` next to the
    executed notebook (the run directory, else the working directory); return the path."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name) or name.endswith(".jsonl"):
        raise ValueError(f"name must be a plain file stem like 'lrginstruction', not {name!r}")
    path = (config.run_dir() or Path.cwd()) / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(
                json.dumps({k: r[k] for k in ("instruction", "input", "output")}, ensure_ascii=False) + "\n"
            )
    return path


def write_kept(instructions: pd.DataFrame, rule: str) -> str:
    """Write the instructions the chosen filter ``rule`` kept (:func:`write_jsonl`) and say how many each rule
    keeps, in one line for the chapter."""
    kept = instructions[instructions["kept"]]
    path = write_jsonl(kept.to_dict("records"))
    code, strict = int(instructions["kept_code"].sum()), int(instructions["kept_strict"].sum())
    other = "code" if rule == "strict" else "strict"
    return (f"{len(kept)} of {len(instructions)} candidate instructions kept ({rule} rule) -> {path.name}; "
            + ("the code's rule and the strict one keep the same number" if code == strict else
               f"the {other} rule would keep {code if other == 'code' else strict}"))


#: The columns of the chapter's table of every LRGinstruction model call (:func:`calls_shown`).
CALL_COLUMNS = ("dataset", "task", "step", "prompt_tokens", "completion_tokens", "judge_form", "judge_code_true",
                "verdict", "latency_s", "response")


def calls_shown(calls: pd.DataFrame, width: int = 90) -> pd.DataFrame:
    """The calls table as the chapter shows it: each response on one line (its line breaks and indentation as
    single spaces, so a fenced ``{"status": ...}`` reads as text, not as ``\\n`` escapes) and cut to ``width``
    characters with an ellipsis; latencies to 0.1 s; a column a step does not fill (the judge's form on a [STEP-1]
    call) left blank rather than NaN."""
    from lcrag.text import one_line

    shown = calls.assign(response=calls["response"].map(lambda r: one_line(r, width)),
                         latency_s=calls["latency_s"].round(1))
    shown = shown[[c for c in CALL_COLUMNS if c in shown]]
    return shown.astype(object).where(shown.notna(), "")
