"""lcrag.synthesis on run directories laid out as the runner writes them, with tables in the chapters' formats
(thesis tables made by the thesis pipeline's own functions)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lcrag import synthesis as S
from lcrag.papers.longrag import differences as longrag_differences
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


@pytest.fixture()
def book_runs(tmp_path) -> Path:
    write_run(
        tmp_path,
        "needle",
        SMOL,
        {
            "answers": pd.concat(
                [needle_answers(SMOL, [1, 1, 1, 0], [1, 1]), needle_answers(GEMMA, [1, 0, 0.5, 0], [0, 1])]
            )
        },
    )
    write_run(tmp_path, "thesis", SMOL, thesis_tables())
    write_run(tmp_path, "longrag", SMOL, {"answers": longrag_answers(SMOL)})
    write_run(tmp_path, "long2rag", SMOL, long2rag_tables())
    write_run(tmp_path, "summhay", SMOL, {"live_results": summhay_live()})
    return tmp_path


def test_reading_needs_an_interval_that_excludes_zero():
    assert S.reading(0.1, 0.02, 0.2, "Full", "RAG") == "Full better"
    assert S.reading(-0.1, -0.2, -0.01, "Full", "RAG") == "RAG better"
    assert S.reading(0.1, -0.02, 0.2, "Full", "RAG") == "no clear difference"
    assert S.reading(0.0, 0.0, 0.0, "Full", "RAG") == "no clear difference"
    assert S.reading(-0.05, float("nan"), float("nan"), "Full", "oracle") == "oracle higher (point estimates)"
    assert S.reading(float("nan"), 0, 0, "Full", "RAG") == S.NOT_RUN
    assert S.format_diff(0.0949, 0.0127, 0.1772) == "+9.5 pp [+1.3, +17.7]"
    assert S.format_diff(-0.008, float("nan"), float("nan")) == "-0.8 pp (no interval)"
    assert S.format_diff(0.25, -0.0001, 0.75) == "+25.0 pp [-0.01, +75.0]"  # no "-0.0": the sign of a bound near 0


def test_a_comparison_with_an_arm_at_the_floor_is_read_only_for_the_arm_above_it(tmp_path):
    """RAG guesses (its interval reaches 1/4) and Full, at 0.8, is clearly above it: the row reads "Full better"
    and says RAG is at the floor; an arm at the floor is never shown equal or better (book/verdicts.md)."""
    write_run(tmp_path, "thesis", SMOL, thesis_tables(rag=0.2))
    write_run(tmp_path, "longrag", SMOL, {"answers": longrag_answers(SMOL)})
    c = S.synthesize(tmp_path, n_boot=500).comparisons.set_index(["family", "other_arm"])
    rag = c.loc[("thesis", "RAG CQT")]
    assert rag["reading"] == "Full better"
    assert "at the floor: RAG CQT: 10 of 40 right (0.25), exact interval [12.7, 41.2] % reaches chance 25 %" in rag["evidence"]
    assert rag["evidence"].endswith("; decided: Full is clearly above the arm at the floor")
    assert c.loc[("thesis", "Evidence"), "reading"] != S.NOT_TESTABLE  # Full 0.8 and Evidence 0.7: above it
    read = S.family.floor_reading
    floor = "RAG: at chance"
    assert read(0.3, 0.1, 0.5, "Full", "RAG", floor, ["RAG"]) == "Full better"
    assert read(-0.3, -0.5, -0.1, "Full", "RAG", floor, ["RAG"]) == S.NOT_TESTABLE  # the floored arm "better"
    assert read(0.1, -0.1, 0.3, "Full", "RAG", floor, ["RAG"]) == S.NOT_TESTABLE  # not clearly above
    assert read(0.3, 0.1, 0.5, "Full", "RAG", floor, ["Full", "RAG"]) == S.NOT_TESTABLE  # both at the floor
    assert read(0.3, 0.1, 0.5, "Full", "RAG", floor) == S.NOT_TESTABLE  # the chapter did not say which arm
    assert read(0.3, 0.1, 0.5, "Full", "RAG", None) == "Full better"


def test_the_synthesis_has_no_floor_rule_of_its_own():
    """Whether an arm is at the floor is each chapter's rule, declared once in its package for its claims and its
    family (e.g. ``lcrag.papers.thesis.accuracy.accuracy_floor``): neither the synthesis nor a family's comparison
    module applies :func:`lcrag.book.verdicts.floor_reason` itself, so a row cannot disagree with its chapter."""
    import inspect
    import sys

    assert not hasattr(S, "score_floor")
    modules = {sys.modules[f.compare.__module__] for f in S.families()} | {
        sys.modules[m] for m in list(sys.modules) if m.startswith("lcrag.synthesis")}
    assert {m.__name__ for m in modules} >= {f"lcrag.papers.{p}.comparison" for p in ("thesis", "long2rag",
                                                                                      "longrag", "summhay")}
    assert [m.__name__ for m in modules if "floor_reason" in inspect.getsource(m)] == []


def test_find_runs_keeps_the_latest_successful_run_of_the_preferred_profile(tmp_path):
    write_run(tmp_path, "thesis", SMOL, {}, profile="quick", finished="2026-01-03T00:00:00+00:00")
    write_run(tmp_path, "thesis", SMOL, {}, profile="default", finished="2026-01-01T00:00:00+00:00")
    write_run(tmp_path, "needle", SMOL, {}, status="failed")
    write_run(tmp_path, "summhay", SMOL, {}, status="interrupted")
    (tmp_path / "runs" / "x" / "default" / "longrag").mkdir(parents=True)  # being recorded: no manifest yet
    write_run(tmp_path, "quickstart", SMOL, {})  # not a family

    runs = S.find_runs(tmp_path, profiles=["default", "quick"])
    assert runs[["chapter", "profile"]].values.tolist() == [["thesis", "default"]]
    runs = S.find_runs(tmp_path, profiles=["quick", "default"])
    assert runs[["chapter", "profile"]].values.tolist() == [["thesis", "quick"]]
    assert S.find_runs(tmp_path, profiles=["smoke"]).empty


def test_find_runs_prefers_the_companion_run_the_book_makes(tmp_path):
    """A run of another profile left in runs/ (an earlier lineup) does not hide the companion run that
    notebooks/companions.yml lists, even when it is the preferred profile and the later one."""
    write_run(tmp_path, "thesis", SMOL, {}, profile="companion", finished="2026-01-01T00:00:00+00:00")
    write_run(tmp_path, "thesis", SMOL, {}, profile="default", finished="2026-01-03T00:00:00+00:00")
    assert S.find_runs(tmp_path, profiles=["default", "companion"])["profile"].tolist() == ["default"]

    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "thesis.md").write_text("# thesis\n", encoding="utf-8")
    (tmp_path / "notebooks" / "companions.yml").write_text(
        f"- model: {SMOL}\n  profile: companion\n  chapters: [thesis]\n", encoding="utf-8")
    assert S.find_runs(tmp_path, profiles=["default", "companion"])["profile"].tolist() == ["companion"]
    # a profile the synthesis does not read stays unread
    assert S.find_runs(tmp_path, profiles=["default"])["profile"].tolist() == ["default"]


def test_nothing_run_yet_is_said_not_raised(tmp_path):
    syn = S.synthesize(tmp_path)
    assert syn.models == [] and syn.comparisons.empty and syn.problems == []
    assert (S.overview(syn).shape[1], len(S.overview(syn))) == (0, len(TITLES))
    assert S.conclusions(syn, SMOL) == [f"{what}: {S.NOT_RUN}." for what in TITLES.values()]
    view = S.model_view(syn, SMOL)
    assert view.index.tolist() == list(TITLES) and set(view["reading"]) == {S.NOT_RUN}
    assert S.detail_table(syn, "longrag")["status"].tolist() == [S.NOT_RUN]


def test_every_family_and_model_from_the_tables(book_runs):
    syn = S.synthesize(book_runs, n_boot=500)
    assert syn.models == [GEMMA, SMOL]  # Gemma-3 ran inside the SmolLM2 needle run; the larger first
    assert syn.problems == []
    c = syn.comparisons.set_index(["family", "model", "other_arm"])

    # needle: the RAG cells (2000 tokens, depths 0 and 100) paired with the same full cells
    smol = c.loc[("needle", SMOL, "RAG")]
    assert (smol["long_value"], smol["other_value"], smol["diff"], smol["n"]) == (0.5, 1.0, -0.5, 2)
    gemma = c.loc[("needle", GEMMA, "RAG")]
    assert (gemma["long_value"], gemma["other_value"], gemma["n"]) == (0.25, 0.5, 2)  # above the floor (0.05)
    assert "inside the local/smollm2-135m-instruct run" in gemma["source"]

    # thesis: exactly the chapter's paired bootstrap row
    paired = pd.read_csv(
        book_runs / "runs" / "local--smollm2-135m-instruct" / "default" / "thesis" / "paired_tests.csv"
    ).set_index(["a", "b"])
    ref = paired.loc[("Full / BAMBOO", "RAG CQT / BAMBOO")]
    rag = c.loc[("thesis", SMOL, "RAG CQT")]
    assert rag[["diff", "ci_low", "ci_high", "n"]].tolist() == pytest.approx(
        [ref["diff"], ref["ci_low"], ref["ci_high"], 40]
    )
    assert rag["reading"] == ("Full better" if ref["ci_low"] > 0 else "no clear difference")
    assert "at the floor" not in rag["evidence"]
    ev_ref = paired.loc[("Evidence / BAMBOO", "Full / BAMBOO")]  # stored as Evidence - Full: flipped
    ev = c.loc[("thesis", SMOL, "Evidence")]
    assert ev[["diff", "ci_low", "ci_high"]].tolist() == pytest.approx(
        [-ev_ref["diff"], -ev_ref["ci_high"], -ev_ref["ci_low"]]
    )
    assert syn.tables["thesis"]["arm"].tolist() == ["Full", "RAG CQT", "Evidence"]
    assert S.detail_table(syn, "thesis").index.tolist() == [
        (SMOL, "Full"),
        (SMOL, "RAG CQT"),
        (SMOL, "Evidence"),
    ]

    # longrag: Full vs each strategy, paired over the 6 questions of both datasets; Closed is not compared
    lr = syn.comparisons[(syn.comparisons["family"] == "longrag")].set_index("other_arm")
    assert sorted(lr.index) == ["E&F", "R&B"]
    assert lr.loc["R&B", "diff"] == pytest.approx((5.5 - 1.0) / 6) and lr.loc["R&B", "n"] == 6
    assert lr.loc["R&B", "reading"] == "Full better"
    assert lr.loc["E&F", "diff"] == pytest.approx((5.5 - 2.5) / 6)

    # long2rag: the lexical judge (best kappa on the judged sample's fit half); whole 7/8 vs truncated 2/8 key points, macro over questions
    k = c.loc[("long2rag", SMOL, "trunc512")]
    assert "lexical judge" in k["comparison"] and k["n"] == 4
    assert (k["long_value"], k["other_value"]) == pytest.approx(
        ((1 + 1 + 0.5 + 1) / 4, (0.5 + 0 + 0.5 + 0) / 4)
    )
    assert k["reading"] != S.NOT_TESTABLE  # whole documents above the floor: the truncated arm may be anywhere
    # the untruncated variant is "whole" for readers (detail table, figure ticks), "none" only in the stored data
    assert set(syn.tables["long2rag"]["variant"]) == {"whole", "trunc512"}
    assert "none" in set(syn.tables["long2rag_questions"]["variant"])
    ticks = [t.get_text() for ax in S.plot_model(syn, SMOL).axes if ax.get_title().startswith("long2rag")
             for t in ax.get_xticklabels()]
    assert ticks == ["whole", "trunc512"]

    # summhay: no interval; the best real retriever is keywords
    sh = syn.comparisons[(syn.comparisons["family"] == "summhay")
                         & syn.comparisons["comparison"].str.endswith("(Joint)")].set_index("other_arm")
    assert sh.loc["oracle", "diff"] == pytest.approx(-0.07) and sh.loc["keywords", "diff"] == pytest.approx(
        -0.03
    )
    assert sh.loc["keywords", "reading"] == "keywords higher (point estimates)"
    assert np.isnan(sh.loc["keywords", "ci_low"])

    over = S.overview(syn)
    assert list(over.columns) == [GEMMA, SMOL]  # the larger first
    assert over.loc[TITLES["thesis"], GEMMA] == S.NOT_RUN
    assert over.loc[TITLES["longrag"], SMOL].startswith("Full better: Full − R&B = +75.0 pp [")
    assert over.loc[TITLES["summhay"], SMOL].startswith(
        "keywords higher (point estimates): Full − keywords"
    )
    lines = S.conclusions(syn, GEMMA)
    assert lines[0].startswith(f"{TITLES['needle']}: **no clear difference**; Full − RAG = ")
    assert lines[1] == f"{TITLES['thesis']}: {S.NOT_RUN}."
    summary = S.model_summary(syn, GEMMA).splitlines()  # the model's name over one bullet per experiment
    assert summary[:2] == [f"**Gemma-3-270M** (`{GEMMA}`)", ""] and summary[2:] == [f"- {line}" for line in lines]
    assert len(lines) == len(syn.families)
    view = S.model_view(syn, SMOL)
    assert view.loc["thesis", "reading"].tolist() == [rag["reading"], ev["reading"]]  # RAG, then Evidence
    assert view.loc["summhay", "difference [95 % CI]"].tolist() == [
        "-7.0 pp (no interval)",
        "-3.0 pp (no interval)",
        "-14.0 pp (no interval)",  # Coverage (twice the Joint in this fixture): the Oracle, the best retriever
        "-6.0 pp (no interval)",
    ]
    cov = S.coverage(syn)
    assert cov.loc["thesis", GEMMA] == S.NOT_RUN and cov.loc["thesis", SMOL].startswith("thesis/")


def test_a_models_own_run_wins_over_rows_inside_another_run(book_runs):
    write_run(
        book_runs,
        "needle",
        GEMMA,
        {"answers": needle_answers(GEMMA, [1, 1, 1, 1], [1, 1])},
        finished="2025-01-01T00:00:00+00:00",
    )  # older, but Gemma's own run
    syn = S.synthesize(book_runs, n_boot=200)
    g = syn.comparisons.set_index(["family", "model"]).loc[("needle", GEMMA)]
    assert g["long_value"] == 1.0 and "inside" not in g["source"]
    assert len(syn.tables["needle_cells"].query("model == @GEMMA")) == 6


def test_a_missing_or_malformed_table_is_reported_and_skipped(book_runs):
    d = book_runs / "runs" / "local--smollm2-135m-instruct" / "default"
    (d / "summhay" / "live_results.csv").unlink()
    pd.DataFrame({"dataset": ["x"], "f1": [1.0]}).to_csv(d / "longrag" / "answers.csv", index=False)
    syn = S.synthesize(book_runs, n_boot=200)
    assert any("summhay/live_results.csv: missing" in p for p in syn.problems)
    assert any(
        "longrag/answers.csv: no column(s) ['question_id', 'generator', 'strategy']" in p
        for p in syn.problems
    )
    assert set(syn.comparisons["family"]) == {"needle", "thesis", "long2rag"}
    assert S.coverage(syn).loc["longrag", SMOL] == S.NOT_RUN


def test_longrag_columns_match_the_pipelines_results():
    needed = {"dataset", "question_id", "generator", "strategy", "f1"}
    assert needed <= set(longrag_differences.RESULT_COLUMNS)


def test_plot_model_has_a_panel_per_family(book_runs):
    import matplotlib

    matplotlib.use("Agg")
    syn = S.synthesize(book_runs, n_boot=200)
    fig = S.plot_model(syn, GEMMA)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert sum("not run yet" in t for t in texts) == 4  # thesis, long2rag, longrag, summhay
    assert fig.axes[0].get_title().startswith("needle (simple)")
    # the needle chapter's orientation (plots.needle_heatmap): depth down the side, context length across
    assert (fig.axes[0].get_ylabel(), fig.axes[0].get_xlabel()) == ("needle depth (%)", "context length (tokens)")
    fig = S.plot_model(syn, SMOL)
    assert not any("not run yet" in t for ax in fig.axes for t in (x.get_text() for x in ax.texts))


def test_the_size_axis_puts_each_headline_against_model_size(book_runs):
    import matplotlib

    matplotlib.use("Agg")
    qwen = "local/qwen2.5-coder-1.5b-instruct"
    write_run(book_runs, "longrag", qwen, {"answers": longrag_answers(qwen)})
    write_run(book_runs, "longrag", "openai/gpt-4o-mini", {"answers": longrag_answers("openai/gpt-4o-mini")})
    syn = S.synthesize(book_runs, n_boot=300)
    t = S.size_table(syn)
    # one row per family x model of known size, families in their order, models smallest first
    assert list(zip(t["family"], t["model"], strict=True)) == [
        ("needle", SMOL), ("needle", GEMMA), ("thesis", SMOL), ("long2rag", SMOL), ("longrag", SMOL),
        ("longrag", qwen), ("summhay", SMOL),
    ]
    assert t.loc[t["model"] == qwen, "parameters"].tolist() == [1.5e9]
    # n_to_decide only where the interval contains 0: a decided row, a row at the floor and one whose bound toward 0
    # is exact (no item favoured the arm behind: the needle's SmolLM2 row here) have none
    from lcrag.synthesis.size_axis import exact_toward_zero

    exact = t.apply(exact_toward_zero, axis=1)
    assert exact.sum() == 1 and t.loc[exact, "n_to_decide"].isna().all()
    open_ = (t["reading"] == S.UNCLEAR) & (t["diff"] != 0) & t["ci_low"].notna() & ~exact
    assert open_.any() and t.loc[open_, "n_to_decide"].notna().all()
    assert t.loc[~open_, "n_to_decide"].isna().all()
    assert str(t["n_to_decide"].dtype) == "Int64"  # a count: 98, never 98.0 on the page
    shown = S.size_view(t)
    assert set(shown["n_to_decide"]) - {"—"} == {f"{k:,}" for k in t["n_to_decide"].dropna()}
    assert S.unsized_models(syn) == ["openai/gpt-4o-mini"]
    # each row is the family's headline comparison
    h = S.headline(syn).set_index(["family", "model"])
    for r in t.itertuples():
        assert (r.diff, r.reading) == (h.loc[(r.family, r.model), "diff"], h.loc[(r.family, r.model), "reading"])

    fig = S.plot_size_axis(syn)
    titled = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title().split(":")[0] for ax in titled] == [
        "needle", "thesis", "long2rag", "longrag", "summhay", "every experiment"]
    longrag_ax = titled[3]
    assert [tick.get_text() for tick in longrag_ax.get_xticklabels()] == ["135M", "270M", "1.5B"]
    assert longrag_ax.get_xscale() == "log"


def _claims(model: str, verdicts: dict[str, str], source: str = "our run",
            evidence: dict[str, str] | None = None, chapter: str = "thesis") -> pd.DataFrame:
    return pd.DataFrame([
        {"chapter": chapter, "claim_id": cid, "paper": chapter, "text": f"claim {cid}", "paper_value": "",
         "our_value": "", "model": model, "source": source, "verdict": v, "evidence": (evidence or {}).get(cid, ""),
         "anchor": ""}
        for cid, v in verdicts.items()
    ])  # fmt: skip


def test_claims_by_size_reads_each_models_verdicts(tmp_path):
    qwen = "local/qwen2.5-coder-1.5b-instruct"
    base = thesis_tables()
    write_run(tmp_path, "thesis", SMOL, {**base, "claims": pd.concat([
        _claims(SMOL, {"A": "reproduced", "B": "not testable with this model", "C": "reproduced",
                       "D": "not testable with this model", "E": "not testable with this model",
                       "F": "not testable with this model", "G": "not testable with this model"},
                evidence={"B": "paired bootstrap; at the floor: Full: 41 of 158 right (0.26), interval reaches chance",
                          "F": "paired bootstrap; at the floor: RAG", "G": "paired bootstrap; at the floor: RAG",
                          "D": "paired bootstrap; not run: E&F (the run has R&B)",
                          "E": "not testable: the thesis's embedding model is not ours"}),
        _claims("the paper's published tables", {"P": "reproduced", "U": "not testable (data not released)"},
                source="paper tables"),
        _claims(SMOL, {"V": "not testable (data not released)"}, evidence={"V": "not released: the human labels"}),
    ])})
    write_run(tmp_path, "thesis", GEMMA, {**base, "claims": _claims(f"{GEMMA} (our runs)", {
        "A": "reproduced", "B": "inconclusive", "C": "not reproduced", "D": "reproduced",
        "F": "not testable with this model", "G": "reproduced"}, evidence={"F": "at the floor: RAG"})}, profile="quick")
    write_run(tmp_path, "thesis", qwen, {**base, "claims": _claims(qwen, {
        "A": "reproduced", "B": "reproduced", "C": "reproduced", "D": "reproduced", "F": "reproduced",
        "G": "reproduced"})})
    syn = S.synthesize(tmp_path, n_boot=100, profiles=["default", "quick"])
    t = S.claims_by_size(syn).set_index("claim_id")
    assert list(t.columns) == ["chapter", "the paper's claim", "135M", "270M", "1.5B", "reproduced from"]
    assert "P" not in t.index  # the paper's tables need no model: not a size question
    # a claim whose data were never released was checked on no run, whatever its ledger: no row
    assert "U" not in t.index and "V" not in t.index
    assert t.loc["A", "reproduced from"] == "135M"
    # inconclusive at 270M: where the finding starts is unknown, so no size is named
    assert t.loc["B", "reproduced from"] == "" and t.loc["B", "270M"] == "inconclusive"
    assert t.loc["C", "reproduced from"] == "1.5B"  # not reproduced at 270M, reproduced at 1.5B
    # why a model could not test a claim: at the floor, a run that left its arms out (no verdict), another reason
    assert (t.loc["B", "135M"], t.loc["D", "135M"], t.loc["E", "135M"]) == (
        "not testable with this model (floor)", "not testable with this model (arm not run)",
        "not testable with this model")
    # SmolLM2's run did not test it: no verdict below 270M, where the finding may start
    assert t.loc["D", "reproduced from"] == "270M (no smaller size tests it)"
    assert t.loc["E", "reproduced from"] == "" and t.loc["E", "1.5B"] == "not checked"  # its run has no claim E
    # a model at the floor cannot test the claim: it does not mark where the finding starts (not "absent" there)
    assert (t.loc["F", "135M"], t.loc["F", "270M"]) == ("not testable with this model (floor)",) * 2
    assert t.loc["F", "reproduced from"] == ""  # reproduced on the 1.5B alone, the smaller sizes at the floor
    # the smallest of two sizes that reproduce it, none failing; the 135M at the floor cannot say whether it starts lower
    assert t.loc["G", "reproduced from"] == "270M (no smaller size tests it)"


def test_claims_by_size_has_no_blank_cell_and_its_legend_covers_every_value(tmp_path):
    """A model without a verdict of its own says why: its run checks the claim on another model (SummHay's C15 asks
    the 1.5B judge whichever model summarizes), its run does not check the claim, or it did not run the chapter."""
    qwen = "local/qwen2.5-coder-1.5b-instruct"
    base = thesis_tables()
    write_run(tmp_path, "thesis", SMOL, {**base, "claims": pd.concat([
        _claims(SMOL, {"A": "reproduced"}), _claims(qwen, {"J": "not reproduced"})])})
    write_run(tmp_path, "thesis", qwen, {**base, "claims": _claims(qwen, {"A": "inconclusive", "J": "not reproduced"})})
    write_run(tmp_path, "thesis", GEMMA, {**base, "claims": _claims(GEMMA, {"A": "inconclusive"})})
    write_run(tmp_path, "longrag", SMOL, {"answers": longrag_answers(SMOL),
                                          "claims": _claims(SMOL, {"L": "reproduced"}, chapter="longrag")})
    t = S.claims_by_size(S.synthesize(tmp_path, n_boot=100)).set_index("claim_id")
    assert t.loc["J", "135M"] == "checked on 1.5B" and t.loc["J", "1.5B"] == "not reproduced"
    assert t.loc["J", "270M"] == "not checked"  # Gemma-3's thesis run does not check J
    assert (t.loc["L", "270M"], t.loc["L", "1.5B"]) == (S.NOT_RUN, S.NOT_RUN)  # no longrag run of these models
    assert t.loc["L", "reproduced from"] == "" and t.loc["J", "reproduced from"] == ""  # one size shows no threshold
    cells = t[["135M", "270M", "1.5B"]].to_numpy().ravel()
    assert "" not in cells
    legend = S.claims_legend()
    defined = {line.split("*")[1] for line in legend.splitlines()}
    assert all(c in defined or c.startswith("checked on ") for c in cells), set(cells) - defined
    assert "checked on 1.5B" in defined and S.NOT_RUN in defined
    assert "<" not in legend  # markdown: a placeholder in angle brackets would be an HTML tag, shown as nothing


def test_items_to_decide_scales_the_interval_by_one_over_root_n():
    from lcrag.synthesis.size_axis import items_to_decide

    assert items_to_decide(0.05, -0.05, 0.15, 40) == 160  # half-width 0.10 to 0.05: four times the items
    assert items_to_decide(0.10, 0.02, 0.18, 40) == 26  # already clear of 0: fewer would do
    assert items_to_decide(0.01, -0.09, 0.11, 96) == 9600  # 100 times the items: exactly 9,600
    assert items_to_decide(0.002754, -0.077951, 0.086779, 96) == 86000  # 85,877 up to two significant figures
    assert math.isnan(items_to_decide(0.0, -0.1, 0.1, 40)) and math.isnan(items_to_decide(0.1, float("nan"), 0.2, 9))


def test_no_model_of_known_size_no_size_axis(tmp_path):
    write_run(tmp_path, "longrag", "openai/gpt-4o-mini", {"answers": longrag_answers("openai/gpt-4o-mini")})
    syn = S.synthesize(tmp_path, n_boot=100)
    assert S.size_table(syn).empty and S.plot_size_axis(syn) is None


@pytest.mark.slow
def test_the_synthesis_notebook_runs_on_the_fixture_runs(book_runs):
    """The chapter itself, executed by the runner against a project root holding only these runs."""
    import nbformat

    from lcrag import config
    from lcrag.book.runner import run_chapter

    root = config.project_root()
    (book_runs / "notebooks").mkdir()
    shutil.copy(root / "notebooks" / "profiles.yml", book_runs / "notebooks" / "profiles.yml")
    shutil.copy(root / "notebooks" / "synthesis.md", book_runs / "notebooks" / "synthesis.md")
    shutil.rmtree(book_runs / "runs" / "local--smollm2-135m-instruct" / "default" / "longrag")  # not run yet
    res = run_chapter(
        "synthesis",
        "smoke",
        SMOL,
        root=book_runs,
        progress=False,
        out_dir=book_runs / "runs" / "local--smollm2-135m-instruct" / "smoke" / "synthesis",
        params={"profiles": ["default"]},
    )
    assert res.ok, res.error
    nb = nbformat.read(res.notebook, as_version=4)
    outputs = json.dumps([c.get("outputs", []) for c in nb.cells])
    assert "image/png" in outputs and S.NOT_RUN in outputs and GEMMA in outputs
    assert "The RAG setting ran only at some lengths" in outputs  # these runs' needle RAG: the longest length only
    assert res.manifest["usage"]["calls"] == 0
    comparisons = pd.read_csv(res.out_dir / "comparisons.csv")
    assert set(comparisons["family"]) == {"needle", "thesis", "long2rag", "summhay"}


@pytest.mark.slow
def test_the_book_runs_the_synthesis_after_the_chapters_and_with_any_chapter(tmp_path, monkeypatch, mirror):
    """`lcrag book --chapter quickstart` re-runs the synthesis too, after the chapter, into the book."""
    from helpers import FIXTURES, copy_book

    from lcrag import config
    from lcrag.book.build import build_book

    for var in ("LCRAG_STORE", "LCRAG_STORE_DIR", "LCRAG_RUN_DIR", "LCRAG_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LCRAG_DATA_DIR", str(mirror))  # laid out alike: the runner checks the quickstart's data
    book = copy_book(tmp_path / "book")
    shutil.copy(FIXTURES / "notebooks" / "fixture_ok.md", book / "notebooks" / "quickstart.md")
    shutil.copy(config.project_root() / "notebooks" / "synthesis.md", book / "notebooks" / "synthesis.md")
    res = build_book(["quickstart"], root=book, build=False, progress=False, log=lambda s: None)
    assert [r.chapter for r in res.runs] == ["quickstart", "synthesis"]
    assert res.pages["synthesis"] == "executed" and res.ok
    assert (book / "book" / "executed" / "synthesis.ipynb").exists()


def test_a_run_without_the_long_context_arm_is_not_called_not_run(book_runs):
    """Long²RAG run with truncated documents only (its smoke profile): run, but nothing to compare."""
    tables = long2rag_tables()
    tables["judgments"] = tables["judgments"][tables["judgments"]["variant"] != "none"]
    write_run(book_runs, "long2rag", SMOL, tables)
    syn = S.synthesize(book_runs, n_boot=200)
    assert "long2rag" not in set(syn.comparisons["family"])
    assert S.coverage(syn).loc["long2rag", SMOL].endswith(f"; {S.NO_COMPARISON}")
    assert S.overview(syn).loc[TITLES["long2rag"], SMOL] == S.NO_COMPARISON
    assert S.model_view(syn, SMOL).loc["long2rag", "reading"] == S.NO_COMPARISON
    assert f"{TITLES['long2rag']}: {S.NO_COMPARISON}." in S.conclusions(syn, SMOL)
    assert S.coverage(syn).loc["long2rag", GEMMA] == S.NOT_RUN


def test_profiles_read_are_the_run_profile_then_the_cheaper_ones_but_smoke():
    assert S.profiles_to_read("default") == ["default", "companion", "quick"]
    assert S.profiles_to_read("paper") == ["paper", "default", "companion", "quick"]
    assert S.profiles_to_read("companion") == ["companion", "quick"]
    assert S.profiles_to_read("quick") == ["quick"]
    assert S.profiles_to_read("smoke") == ["smoke"]
    assert S.profiles_to_read("default", ["quick", "quick", "paper"]) == ["quick", "paper"]
    with pytest.raises(ValueError, match="unknown profile 'fast'"):
        S.profiles_to_read("fast")


def test_truncating_to_the_floor_is_the_long2rag_effect_not_a_floor(book_runs):
    """Long²RAG compares whole documents with truncated ones (the claim: truncating lowers KPR): a truncated arm at
    the floor is the effect measured; only whole documents at the floor make it not testable (book/verdicts.md)."""
    tables = long2rag_tables()
    j = tables["judgments"]
    j.loc[j["variant"] == "trunc512", "value"] = j.loc[j["variant"] == "trunc512", "value"] * 0.0
    write_run(book_runs, "long2rag", SMOL, tables)
    row = S.synthesize(book_runs, n_boot=200).comparisons.set_index("family").loc["long2rag"]
    assert row["other_value"] == 0.0 and row["reading"] == "whole better"
    j.loc[j["variant"] == "none", "value"] = j.loc[j["variant"] == "none", "value"] * 0.0
    write_run(book_runs, "long2rag", SMOL, tables)
    row = S.synthesize(book_runs, n_boot=200).comparisons.set_index("family").loc["long2rag"]
    assert row["reading"] == S.NOT_TESTABLE and "whole (mean KPR): 0.0 points, below 5" in row["evidence"]


def test_the_written_answer_follows_the_headlines_largest_model_first(book_runs):
    from lcrag.synthesis.answer import OUTCOMES, across_sizes, model_outcomes, outcome, written_answer

    assert outcome("Full better", "Full", "RAG") == "long" and outcome("RAG better", "Full", "RAG") == "other"
    assert outcome(S.NOT_TESTABLE, "Full", "RAG") == "floor" and outcome("no clear difference", "a", "b") == "unclear"
    assert outcome("oracle higher (point estimates)", "Full", "oracle") == "points"
    qwen = "local/qwen2.5-coder-1.5b-instruct"
    write_run(book_runs, "longrag", qwen, {"answers": longrag_answers(qwen)})
    write_run(book_runs, "longrag", "openai/gpt-4o-mini", {"answers": longrag_answers("openai/gpt-4o-mini")})
    syn = S.synthesize(book_runs, n_boot=300)
    o = model_outcomes(syn)
    assert len(o) == len(syn.models) * len(TITLES)
    h = S.headline(syn).set_index(["model", "family"])
    for r in o[o["outcome"] != "not run"].itertuples():  # each outcome is its headline's reading
        family = next(f for f in syn.families if f.in_prose == r.family)
        row = h.loc[(r.model, family.name)]
        assert r.outcome == outcome(row["reading"], row["long_arm"], row["other_arm"])
        # the long-context arm as its family names it in prose (SummHay's Full: what it read)
        assert r.evidence.startswith(f"{family.arm_label(row)} − {row['other_arm']} ") and r.evidence.endswith(row["units"])
        assert family.arm_label(row) == row["long_arm"] or family.name == "summhay"
    text = written_answer(syn)
    paragraphs, summary = text.split("\n\n")[0].split("\n"), text.split("\n\n")[1]
    assert [p.split("**")[1] for p in paragraphs] == [  # by size, then unsized; the model card's name, else the spec
        "Qwen2.5-Coder-1.5B-Instruct", "Gemma-3-270M", "SmolLM2-135M-Instruct", "openai/gpt-4o-mini"]
    assert paragraphs[0].startswith(
        "- **Qwen2.5-Coder-1.5B-Instruct** (1.5B parameters): long context beats retrieval in LongRAG (Full − R&B +75.0 pp [")
    assert paragraphs[0].endswith(
        "; not run yet: the needle-in-a-haystack test, BAMBOO multiple choice, Long²RAG and Summary of a Haystack.")
    smol = paragraphs[2]
    assert smol.startswith("- **SmolLM2-135M-Instruct** (135M parameters): long context beats retrieval in BAMBOO multiple choice "
                           "(Full − RAG CQT +25.0 pp [")
    for part in (" and LongRAG (Full − R&B ", "; whole documents beat truncated ones in Long²RAG (whole − trunc512 ",
                 "; no clear difference in the needle-in-a-haystack test (Full − RAG -50.0 pp [", "; only point estimates (no "
                 "interval) in Summary of a Haystack (Full (the haystack's first documents in stored order, as many as "
                 "fit the context budget) − keywords -3.0 pp (no interval), 3 summaries)."):
        assert part in smol
    assert "parameters" not in paragraphs[3]
    write_run(book_runs, "thesis", GEMMA, thesis_tables(rag=0.2))  # RAG at chance, Full clearly above it
    gemma = written_answer(S.synthesize(book_runs, n_boot=300)).split("\n")[1]
    assert "long context beats retrieval in BAMBOO multiple choice (Full − RAG CQT " in gemma
    assert "40 cases; RAG CQT at the floor)" in gemma
    assert summary == across_sizes(o) == (
        "Long context beats retrieval with an interval that excludes zero in BAMBOO multiple choice (135M) and "
        "LongRAG (135M, 1.5B). Whole documents beat truncated ones with an interval that excludes zero in Long²RAG "
        "(135M). That is 4 of the 7 model × experiment pairs run; in 2 the interval contains zero, in 1 only point "
        "estimates.")
    assert list(OUTCOMES)[-1] == "not run"
    nothing = S.synthesize(book_runs / "empty")
    assert across_sizes(model_outcomes(nothing)).startswith("On the models of known size, no experiment")


def test_a_needle_grid_is_labelled_by_its_range_of_lengths():
    from lcrag.synthesis.size_axis import _label

    assert _label("1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000 tokens") == "1k–8k tokens"
    assert _label("1000, 2000, 4000, 8000, 16000, 24000, 32000 tokens") == "1k–32k tokens"
    assert _label("4000 tokens") == "4k tokens" and _label("7.3 documents (as many as fit)") == "7.3 documents"
    assert _label("cut to the window in 10 of 30 questions") == "cut to the window in 10 of 30 questions"


def test_models_are_ordered_page_model_first_then_largest_first():
    models = ["local/smollm2-135m-instruct", "local/gemma3-270m", "openai/gpt-4o",
              "local/qwen2.5-coder-0.5b-instruct", "local/qwen2.5-coder-1.5b-instruct"]
    assert S.size_order(models) == ["local/qwen2.5-coder-1.5b-instruct", "local/qwen2.5-coder-0.5b-instruct",
                                    "local/gemma3-270m", "local/smollm2-135m-instruct", "openai/gpt-4o"]
    assert S.size_order(models, first="local/gemma3-270m")[:3] == [
        "local/gemma3-270m", "local/qwen2.5-coder-1.5b-instruct", "local/qwen2.5-coder-0.5b-instruct"]
    assert S.size_order(models, first="nope/x") == S.size_order(models)


def test_a_value_the_run_could_not_compute_stays_missing_in_the_detail_table_and_its_page_shows_a_dash():
    """SummHay's citation is scored over covered insights: a run that covers none has no citation value, left
    missing (the page shows a dash: lcrag.book.reading), not zero; the other values keep their 3 places."""
    import pandas as pd

    from lcrag.book.reading import fold_cell

    fam = S.families()[0]
    t = pd.DataFrame({c: ["m"] for c in fam.detail_index}).assign(score=[float("nan")], other=[0.12345])
    syn = S.Synthesis(runs=pd.DataFrame({"model": []}), tables={fam.name: t}, comparisons=pd.DataFrame(),
                      families=[fam])
    shown = S.detail_table(syn, fam.name)
    assert shown["score"].isna().all() and shown["other"].tolist() == [0.123]
    cell = {"cell_type": "code", "source": "", "metadata": {"tags": ["show-output"]},
            "outputs": [{"output_type": "execute_result", "data": {"text/html": shown._repr_html_()}}]}
    html = "".join(fold_cell(cell)["outputs"][0]["data"]["text/html"])
    assert "<td>—</td>" in html and "NaN" not in html and "<td>0.123</td>" in html


def test_the_needle_detail_note_follows_the_runs(book_runs, tmp_path):
    """The book_runs needle ran RAG at its longest length only: the page says so; a run with RAG at every length
    says nothing; a family without a note says nothing."""
    syn = S.synthesize(book_runs, n_boot=50)
    assert S.detail_note(syn, "needle").startswith("The RAG setting ran only at some lengths")
    assert "on 2 of its 4 cells" in S.detail_note(syn, "needle") and S.detail_note(syn, "thesis") == ""
    every = needle_answers(SMOL, [1, 1, 1, 0], [1, 1])
    every = pd.concat([every, every[every["setting"] == "rag"].assign(context_tokens=1000)])
    write_run(tmp_path / "all", "needle", SMOL, {"answers": every})
    every_syn = S.synthesize(tmp_path / "all", n_boot=50)
    assert S.detail_note(every_syn, "needle") == ""
    # what the page displays: the note above the table, and no empty markdown (it would print the object's name)
    shown = S.detail(syn, "needle")
    assert [type(x).__name__ for x in shown] == ["Markdown", "DataFrame"] and shown[0].data.startswith("The RAG")
    assert [type(x).__name__ for x in S.detail(every_syn, "needle")] == ["DataFrame"]


def test_how_to_read_states_when_an_arm_at_the_floor_makes_a_row_not_testable():
    """The page's reading rules say the floor's exception in one clear clause (the thesis's, the needle's and
    Long²RAG's rows are read when the other arm is itself above the floor and clearly above the floored one:
    family.floor_reading; both arms at the floor, however far apart, are not testable), as book/verdicts.md does."""
    from lcrag import config

    text = " ".join((config.project_root() / "notebooks" / "synthesis.md").read_text(encoding="utf-8").split())
    assert ("in the thesis's, the needle's and Long²RAG's rows, unless the other arm is itself above the floor and "
            "clearly above the floored one") in text
    assert ": and the other arm" not in text and "not clearly above the floored one" not in text
    verdicts = " ".join((config.project_root() / "book" / "verdicts.md").read_text(encoding="utf-8").split())
    assert ("with the whole documents at the floor, a cut decides only when it is itself above the floor and clearly "
            "above them, and a cut at the floor too leaves the row *not testable*") in verdicts
    assert "so a cut clearly above whole documents at the floor decides" not in verdicts
    read = S.family.floor_reading
    assert read(0.3, 0.1, 0.5, "Full", "RAG", "RAG: at chance", ["RAG"]) == "Full better"
    assert read(0.1, -0.1, 0.3, "Full", "RAG", "RAG: at chance", ["RAG"]) == S.NOT_TESTABLE
    assert read(0.3, 0.1, 0.5, "Full", "RAG", "both at chance", ["Full", "RAG"]) == S.NOT_TESTABLE  # both floored
