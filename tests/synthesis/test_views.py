"""The synthesis's views (lcrag.synthesis.views) on run directories laid out as the runner writes them
(``tests/synthesis_runs.py``): every family and model from the tables, what is not run or not comparable, the
models' order, the detail tables and their notes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from synthesis_runs import GEMMA, SMOL, TITLES, long2rag_tables, needle_answers, write_run

from lcrag import synthesis as S


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
