"""The run plan: which (case, setting, pipeline, prompt) to ask (:func:`plan_runs`), and the user prompt of each
(:func:`build_prompts`), from the cases, the retrieval and the prompts.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from lcrag.papers.thesis.numbers import NO_PIPELINE, THESIS_PIPELINES
from lcrag.papers.thesis.pipelines import parse_pipeline, retrieve
from lcrag.papers.thesis.prompts import PromptBuilder, build_prompt


def plan_runs(
    main_cases: pd.DataFrame,
    grid_cases: pd.DataFrame | None = None,
    *,
    main_prompt: str = "BAMBOO",
    main_pipelines: Sequence[str] = ("CQT",),
    grid_prompts: Sequence[str] = ("BAMBOO", "CTX1", "CTX2"),
    grid_pipelines: Sequence[str] = THESIS_PIPELINES,
    extra_full: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Which (case, setting, pipeline, prompt) to ask: one row each, no duplicates.

    - ``main_cases``: Full, Evidence and each of ``main_pipelines`` under ``main_prompt``;
    - ``grid_cases``: Full, Evidence and every ``grid_pipelines`` × ``grid_prompts``;
    - ``extra_full``: Full under ``main_prompt`` only (the removed cases: the 100 + 100 before cleaning, as Table 6.1 row 1).
    """
    rows = []

    def add(cases, settings_pipelines, prompts):
        for item in cases.itertuples(index=False):
            for prompt in prompts:
                for setting, pipeline in settings_pipelines:
                    rows.append(
                        {
                            "task": item.task,
                            "case": item.case,
                            "setting": setting,
                            "pipeline": pipeline,
                            "prompt": prompt,
                        }
                    )

    def runs(pipelines):
        return [
            ("full", NO_PIPELINE),
            ("evidence", NO_PIPELINE),
            *(("rag", parse_pipeline(p).code) for p in pipelines),
        ]

    add(main_cases, runs(main_pipelines), [main_prompt])
    if grid_cases is not None and len(grid_cases):
        add(grid_cases, runs(grid_pipelines), grid_prompts)
    if extra_full is not None and len(extra_full):
        add(extra_full, [("full", NO_PIPELINE)], [main_prompt])
    plan = pd.DataFrame(rows, columns=["task", "case", "setting", "pipeline", "prompt"])
    return plan.drop_duplicates().reset_index(drop=True)


def retrieve_for(plan: pd.DataFrame, kept: pd.DataFrame, embedder=None, **retrieval: object) -> pd.DataFrame:
    """The retrieval every RAG row of ``plan`` needs: each of its cases (found in ``kept``) through each pipeline
    the plan uses (:func:`~lcrag.papers.thesis.pipelines.retrieve`, ``retrieval`` its keyword arguments)."""
    rag = plan[plan["setting"] == "rag"]
    cases = rag[["task", "case"]].drop_duplicates().merge(kept, on=["task", "case"])
    return retrieve(cases, sorted(set(rag["pipeline"])), embedder, **retrieval)


def build_prompts(
    plan: pd.DataFrame,
    cases: pd.DataFrame,
    retrieval: pd.DataFrame | None = None,
    *,
    options_format: str = "tab",
    builders: dict[str, PromptBuilder] | None = None,
) -> pd.DataFrame:
    """The plan with its user prompts: ``prompt_text``, the retrieved ``chunks`` (RAG), ``context_chars``,
    the correct ``answer`` and ``kept``."""
    # plain dicts: a DataFrame lookup per plan row (thousands) took seconds
    by_case = {(c["task"], c["case"]): c for c in cases.to_dict("records")}
    ret = ({(r["task"], r["case"], r["pipeline"]): r for r in retrieval.to_dict("records")}
           if retrieval is not None and len(retrieval) else None)
    out = []
    for row in plan.itertuples(index=False):
        item = by_case[(row.task, row.case)]
        chunks: list[int] = []
        if row.setting == "full":
            parts = [item["content"]]
        elif row.setting == "evidence":
            parts = [item["evidence"]]
        else:
            if ret is None or (row.task, row.case, row.pipeline) not in ret:
                raise ValueError(f"no retrieval for {row.task} case {row.case} pipeline {row.pipeline}")
            r = ret[(row.task, row.case, row.pipeline)]
            parts, chunks = list(r["parts"]), list(r["chunks"])
        text = build_prompt(
            row.prompt,
            item["question"],
            list(item["options"]),
            parts,
            setting=row.setting,
            options_format=options_format,
            builders=builders,
        )
        out.append(
            {
                **row._asdict(),
                "answer": item["answer"],
                "kept": bool(item.get("kept", True)),
                "chunks": chunks,
                "context_chars": sum(len(p) for p in parts),
                "prompt_text": text,
            }
        )
    return pd.DataFrame(out)
