"""lcrag.synthesis.size_axis: each headline against model size (with the items a row would need to decide), the
claims' verdicts by size, where an experiment's arms differ between models (length, other arm), and a figure that
shows every family."""

from __future__ import annotations

import itertools
import math

import matplotlib
import pandas as pd
from synthesis_runs import longrag_answers, thesis_tables, write_run

from lcrag import synthesis as S
from lcrag.papers.summhay.comparison import FAMILY as SUMMHAY
from lcrag.papers.thesis.needle.comparison import FAMILY as NEEDLE
from lcrag.papers.thesis.needle.comparison import comparisons as needle_comparisons

matplotlib.use("Agg")
SMOL, GEMMA = "local/smollm2-135m-instruct", "local/gemma3-270m"
Q05, Q15 = "local/qwen2.5-coder-0.5b-instruct", "local/qwen2.5-coder-1.5b-instruct"


def _cells(model: str, length: int, full: list[float], rag: list[float]) -> pd.DataFrame:
    """The needle grid's cells at the model's longest length: Full and RAG at depths 0 and 100."""
    return pd.DataFrame([{"model": model, "needle": "simple", "setting": s, "context_tokens": length, "depth": d,
                          "recall": r, "source": "run"}
                         for s, rs in (("full", full), ("rag", rag)) for d, r in zip((0, 100), rs, strict=True)])


def _summhay(model: str, other: str) -> dict:
    return S.comparison("summhay", model, f"Full vs {other} (best retriever) (Joint)", "Full", 0.0, other, 0.0, 0.0,
                        float("nan"), float("nan"), 1, "summaries", "micro-averages only", "run",
                        floor="Full: 0.0 points, below 5")


def _syn() -> S.Synthesis:
    """The book's needle grid (8000 tokens for the 8K-window models, 32000 for the 32K ones) and SummHay with a
    different best retriever per model, both of its models at the floor."""
    cells = pd.concat([_cells(SMOL, 8000, [0.0, 1.0], [1.0, 1.0]), _cells(GEMMA, 8000, [1.0, 0.5], [0.5, 1.0]),
                       _cells(Q05, 32000, [1.0, 1.0], [1.0, 1.0]), _cells(Q15, 32000, [1.0, 0.5], [1.0, 1.0])])
    rows = needle_comparisons(cells, n_boot=200) + [_summhay(SMOL, "keywords"), _summhay(GEMMA, "random")]
    tables = {"needle_cells": cells, "summhay": pd.DataFrame({"model": [SMOL, GEMMA], "source": "run"})}
    return S.Synthesis(runs=pd.DataFrame(columns=list(S.RUN_COLUMNS)), tables=tables,
                       comparisons=pd.DataFrame(rows, columns=list(S.COMPARISON_COLUMNS)), families=[NEEDLE, SUMMHAY])


def test_the_needle_comparison_says_how_long_its_haystack_was():
    t = S.size_table(_syn()).set_index(["family", "model"])
    assert t.loc[("needle", SMOL), "long_context"] == "8000 tokens"
    assert t.loc[("needle", Q15), "long_context"] == "32000 tokens"


def test_the_text_says_which_experiments_mix_model_size_with_context_length():
    note = S.length_note(_syn())
    assert note.startswith("The long-context arm is not the same length for every model in the needle-in-a-haystack test "
                           "(8000 tokens at 135M, 270M; 32000 tokens at 0.5B, 1.5B)")
    assert "mixes model size with context length" in note
    assert note.endswith("The tables of Summary of a Haystack do not say how long it was.")
    assert "items compared differ" not in note  # every model's needle row holds its whole grid


def test_the_text_says_where_the_floor_rule_left_items_out_for_some_models():
    syn = _syn()
    c = syn.comparisons.copy()
    c.loc[(c["family"] == "needle") & (c["model"] == SMOL), "scope"] = "the simple needle only"
    note = S.length_note(S.Synthesis(runs=syn.runs, tables=syn.tables, comparisons=c, families=syn.families))
    assert note.endswith("Where a chapter's floor rule left some items out, the items compared differ between "
                         "models, in the needle-in-a-haystack test (the simple needle only at 135M; all items at 270M, 0.5B, "
                         "1.5B): there, a difference between sizes also mixes in the items.")


def test_the_figure_labels_what_differs_between_models_and_shows_every_family():
    fig = S.plot_size_axis(_syn())
    needle, summhay, together = fig.axes[:3]
    assert [t.get_text() for t in needle.texts] == ["8k tokens", "8k tokens", "32k tokens", "32k tokens"]
    # SummHay's headline is the best retriever of each model: the title says so, each point says which
    assert summhay.get_title() == "summhay: Full − best retriever"
    assert [t.get_text() for t in summhay.texts] == ["keywords", "random"]
    # a family whose points are all at the floor is in the legend too
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert {"needle", "summhay"} <= set(labels)
    assert needle.get_title() == "needle: Full − RAG"


def test_the_labels_stay_inside_their_panel_and_the_legend_outside_every_panel():
    """The 1.5B needle point sits near the right edge: its label goes left of it, not past the panel; the legend
    lies under the panels (a figure legend), so it hides no point of the "every experiment" panel."""
    from lcrag import plots

    fig = S.plot_size_axis(_syn())
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    panels = [ax for ax in fig.axes if ax.get_title()]
    for ax in panels:
        inside = ax.get_window_extent(renderer)
        for text in ax.texts:
            box = plots.text_box(text, renderer)  # the text (its line runs to its point, inside)
            assert inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1, (
                ax.get_title(), text.get_text())
    assert panels[-1].get_title() == "every experiment" and panels[-1].get_legend() is None
    (legend,) = fig.legends
    box = legend.get_window_extent(renderer)
    assert not any(box.overlaps(ax.get_window_extent(renderer)) for ax in panels)
    assert box.y1 <= min(ax.get_tightbbox(renderer).y0 for ax in panels) + 1  # under the panels' tick labels too


def _annotated(part: pd.DataFrame, ylim: tuple[float, float]):
    """One size-axis panel with ``part``'s points labelled (lcrag.synthesis.size_axis._annotate), drawn; and the
    labels' text boxes."""
    import matplotlib.pyplot as plt

    from lcrag import plots
    from lcrag.synthesis import size_axis

    fig, ax = plt.subplots(figsize=(4.3, 3.6))
    ax.set_xscale("log")
    ax.set(xlim=(0.9e8, 2.3e9), ylim=ylim)
    size_axis._annotate(ax, part)
    fig.canvas.draw()
    boxes = [plots.text_box(t, fig.canvas.get_renderer()) for t in ax.texts]  # the texts, not their lines
    plt.close(fig)
    return ax, boxes


def test_the_size_axis_labels_do_not_overlap():
    part = pd.DataFrame({"parameters": [1.35e8, 2.7e8, 5e8, 1.5e9], "diff": [0.01, 0.012, 0.011, 0.013],
                         "other_arm": ["R&B", "R&L", "E&F", "Ext"],
                         "long_context": ["2wikimqa only, Full cut in 10 of 30", "2wikimqa only", "60 questions",
                                          "60 questions of 2wikimqa and musique"]})
    ax, boxes = _annotated(part, (-10, 10))
    assert len(boxes) == 4 and not any(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))
    # each label has a line to its own point: moved clear of the others, it cannot read as its neighbour's
    assert [t.xy for t in ax.texts] == [(p, 100 * d) for p, d in zip(part["parameters"], part["diff"], strict=True)]
    assert all(t.arrow_patch is not None for t in ax.texts)


def test_no_label_sits_on_a_point_or_its_whisker():
    """The book's LongRAG panel: the 135M label "cut to the window in 10 of 30 questions" ran through the 0.5B
    point's whisker; labels now keep clear of every point and whisker (a cross has none)."""
    from lcrag.synthesis import size_axis

    part = pd.DataFrame({"parameters": [1.35e8, 2.7e8, 5e8, 1.5e9], "diff": [-0.071, 0.017, -0.059, 0.003],
                         "ci_low": [-0.142, -0.011, -0.196, -0.078], "ci_high": [-0.019, 0.053, 0.043, 0.087],
                         "reading": ["R&B better", "no clear difference", "no clear difference", "no clear difference"],
                         "other_arm": ["R&B"] * 4,
                         "long_context": ["cut to the window in 10 of 30 questions", "whole context", "whole context",
                                          "whole context (96 questions)"]})
    ax, boxes = _annotated(part, (-21, 10))
    marks = [size_axis._marks(ax, r) for r in part.itertuples()]
    assert len(boxes) == 4 and not any(b.overlaps(m) for b in boxes for m in marks)


def test_a_label_says_how_many_items_its_point_pairs_where_the_models_differ():
    """The book's needle panel labelled 135M and 270M alike ("1k-8k tokens") although their grids held 96 and 48
    cells: where the models' item counts differ, each label gives its own."""
    part = pd.DataFrame({"parameters": [1.35e8, 2.7e8, 1.5e9], "diff": [-0.37, 0.07, -0.01],
                         "other_arm": ["RAG"] * 3, "long_context": ["1k-8k tokens", "1k-8k tokens", "1k-32k tokens"],
                         "n": [96, 48, 84], "units": ["cells"] * 3})
    ax, _ = _annotated(part, (-50, 30))
    assert [t.get_text().replace("\n", " ") for t in ax.texts] == [
        "1k-8k tokens, 96 cells", "1k-8k tokens, 48 cells", "1k-32k tokens, 84 cells"]
    same = part.assign(n=84)
    ax, _ = _annotated(same, (-50, 30))
    assert all("cells" not in t.get_text() for t in ax.texts)
    cut = part.assign(long_context=["cut to the window in 10 of 96 cells", "1k-8k tokens", "1k-32k tokens"])
    ax, _ = _annotated(cut, (-50, 30))
    assert ax.texts[0].get_text().replace("\n", " ") == "cut to the window in 10 of 96 cells"  # the count once


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


def test_a_needle_grid_is_labelled_by_its_range_of_lengths():
    from lcrag.synthesis.size_axis import _label

    assert _label("1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000 tokens") == "1k–8k tokens"
    assert _label("1000, 2000, 4000, 8000, 16000, 24000, 32000 tokens") == "1k–32k tokens"
    assert _label("4000 tokens") == "4k tokens" and _label("7.3 documents (as many as fit)") == "7.3 documents"
    assert _label("cut to the window in 10 of 30 questions") == "cut to the window in 10 of 30 questions"
