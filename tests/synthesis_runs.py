"""Run directories laid out as the runner writes them, with tables in the chapters' formats (thesis tables made by
the thesis pipeline's own functions), for the synthesis's tests.

Test modules import these as ``from synthesis_runs import ...`` (``conftest.py`` puts ``tests/`` on ``sys.path``);
``tests/synthesis/conftest.py`` makes :func:`write_book_runs` its ``book_runs`` fixture.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from lcrag import synthesis as S
from lcrag.papers.thesis import accuracy as thesis_accuracy

SMOL, GEMMA = "local/smollm2-135m-instruct", "local/gemma3-270m"
TITLES = {f.name: f.title for f in S.families()}  # the registered families, in the synthesis's order


def write_run(
    root: Path,
    chapter: str,
    model: str,
    tables: dict[str, pd.DataFrame],
    *,
    profile: str = "default",
    status: str = "ok",
    finished: str = "2026-01-01T00:00:00+00:00",
    usage: dict | None = None,
) -> Path:
    """A run directory as ``lcrag run`` leaves it: manifest.json and the chapter's CSV tables."""
    d = root / "runs" / model.replace("/", "--") / profile / chapter
    d.mkdir(parents=True, exist_ok=True)
    manifest = {
        "chapter": chapter,
        "status": status,
        "profile": profile,
        "model": model,
        "book": True,
        "finished": finished,
        "usage": usage or {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0},
    }
    (d / "manifest.json").write_text(json.dumps(manifest))
    for name, df in tables.items():
        df.to_csv(d / f"{name}.csv", index=False)
    return d


def needle_answers(model: str, full: list[float], rag: list[float]) -> pd.DataFrame:
    """Full at 2 lengths x 2 depths, RAG at the longest length (as the chapter's default grid)."""
    rows = [
        {"model": model, "needle": "simple", "setting": "full", "context_tokens": t, "depth": d, "recall": r}
        for (t, d), r in zip([(1000, 0), (1000, 100), (2000, 0), (2000, 100)], full, strict=True)
    ]
    rows += [
        {
            "model": model,
            "needle": "simple",
            "setting": "rag",
            "context_tokens": 2000,
            "depth": d,
            "recall": r,
        }
        for d, r in zip([0, 100], rag, strict=True)
    ]
    return pd.DataFrame(rows)


def thesis_tables(n: int = 40, seed: int = 1, rag: float = 0.5) -> dict[str, pd.DataFrame]:
    """accuracy and paired_tests made by the thesis pipeline from scored answers (Full right more often; RAG
    right with probability ``rag``: 0.25 is a guess among four options)."""
    rng = np.random.default_rng(seed)
    p = {("full", "-"): 0.8, ("rag", "CQT"): rag, ("evidence", "-"): 0.7}
    rows = []
    for case in range(n):
        for (setting, pipeline), pr in p.items():
            ok = bool(rng.random() < pr)
            rows.append(
                {
                    "task": "meetingqa",
                    "case": case,
                    "setting": setting,
                    "pipeline": pipeline,
                    "prompt": "BAMBOO",
                    "answer": "A",
                    "pred_lenient": "A" if ok else "B",
                    "correct": ok,
                    "correct_raw": ok,
                    "pred_logprob": np.nan,
                    "correct_logprob": np.nan,
                    "status": "letter",
                    "prompt_tokens": 100,
                    "truncated": False,
                }
            )
    scored = pd.DataFrame(rows)
    return {
        "accuracy": thesis_accuracy.accuracy_table(scored, n_boot=500),
        "paired_tests": thesis_accuracy.paired_tests(scored, thesis_accuracy.standard_pairs(scored), n_boot=500),
    }


def longrag_answers(model: str) -> pd.DataFrame:
    f1 = {
        "Full": [1.0, 1.0, 0.5, 1.0, 1.0, 1.0],
        "R&B": [0.0, 0.0, 0.5, 0.0, 0.0, 0.5],  # above the floor on both datasets: both decide
        "E&F": [1.0, 0.0, 0.5, 1.0, 0.0, 0.0],
        "Closed": [0.0] * 6,
    }
    return pd.DataFrame(
        [
            {
                "dataset": "2wikimqa" if q < 3 else "musique",
                "question_id": f"q{q}",
                "generator": model,
                "strategy": s,
                "f1": v,
            }
            for s, vs in f1.items()
            for q, v in enumerate(vs)
        ]
    )


def long2rag_tables() -> dict[str, pd.DataFrame]:
    rows = []
    for judge in ("lexical", SMOL):
        for q, (whole, cut) in enumerate([(2, 1), (2, 0), (1, 1), (2, 0)]):
            for variant, hits in (("none", whole), ("trunc512", cut)):
                rows += [
                    {
                        "question_id": f"q{q}",
                        "variant": variant,
                        "key_point_id": f"k{k}",
                        "judge": judge,
                        "value": float(k < hits) if judge == "lexical" else np.nan,
                    }
                    for k in range(2)
                ]
    agreement = pd.DataFrame(
        [
            {"judge": "lexical", "half": "sample fit", "n": 99, "kappa": 0.57},
            {"judge": SMOL, "half": "sample fit", "n": 40, "kappa": 0.0},
        ]
    )
    lengths = pd.DataFrame([{"question_id": f"q{q}", "variant": v, "completion_tokens": 100}
                            for q in range(4) for v in ("none", "trunc512")])  # alike: the lexical judge decides
    return {"judgments": pd.DataFrame(rows), "judge_agreement": agreement, "responses": lengths}


def summhay_live() -> pd.DataFrame:
    rows = [
        ("retrieval", "random", 2.0),
        ("retrieval", "keywords", 8.0),
        ("retrieval", "oracle", 12.0),
        ("retrieval", "full", 5.0),
        ("position", "pos-top", 20.0),
    ]
    return pd.DataFrame(
        [
            {
                "judge": "lexical",
                "kind": k,
                "setting": s,
                "coverage": 2 * j,
                "citation": 50.0,
                "joint": j,
                "n_insights": 25,
                "summaries": 3,
            }
            for k, s, j in rows
        ]
    )


def write_book_runs(root: Path) -> Path:
    """One run of each chapter under ``root``: SmolLM2's, with Gemma-3's needle rows inside SmolLM2's needle run."""
    write_run(
        root,
        "needle",
        SMOL,
        {
            "answers": pd.concat(
                [needle_answers(SMOL, [1, 1, 1, 0], [1, 1]), needle_answers(GEMMA, [1, 0, 0.5, 0], [0, 1])]
            )
        },
    )
    write_run(root, "thesis", SMOL, thesis_tables())
    write_run(root, "longrag", SMOL, {"answers": longrag_answers(SMOL)})
    write_run(root, "long2rag", SMOL, long2rag_tables())
    write_run(root, "summhay", SMOL, {"live_results": summhay_live()})
    return root
