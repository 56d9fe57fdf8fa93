"""lcrag.synthesis.figure: a model's panels say what they draw."""

from __future__ import annotations

import matplotlib
import pandas as pd
from synthesis_runs import GEMMA, SMOL

from lcrag import synthesis as S
from lcrag.papers.summhay.comparison import FAMILY as SUMMHAY
from lcrag.papers.thesis.comparison import FAMILY as THESIS

matplotlib.use("Agg")
M = "local/smollm2-135m-instruct"


def _whiskers(ax) -> bool:
    return any(getattr(c, "errorbar", None) is not None for c in ax.containers)


def test_a_panel_claims_an_interval_only_where_it_draws_whiskers():
    """SummHay's bars are micro-averages without an interval (its paired interval over subtopics is the
    difference's, in the comparisons): its panel must not say it shows one; the thesis's bars have whiskers."""
    summhay = pd.DataFrame({"model": M, "setting": ["full", "oracle", "keywords"], "joint": [0.3, 0.5, 0.2],
                            "coverage": [0.4, 0.6, 0.3], "source": "run"})
    thesis = pd.DataFrame({"model": M, "arm": ["Full", "RAG CQT"], "accuracy": [0.6, 0.5], "ci_low": [0.5, 0.4],
                           "ci_high": [0.7, 0.6], "source": "run"})
    syn = S.Synthesis(runs=pd.DataFrame(columns=list(S.RUN_COLUMNS)), tables={"summhay": summhay, "thesis": thesis},
                      comparisons=pd.DataFrame(columns=list(S.COMPARISON_COLUMNS)), families=[THESIS, SUMMHAY])
    fig = S.plot_model(syn, M)
    drawn = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title().split(":")[0] for ax in drawn] == ["thesis", "summhay"]
    for ax in drawn:
        title = ax.get_title()
        says_interval = "interval" in title and "no interval" not in title
        assert not says_interval or _whiskers(ax), title
    thesis_ax, summhay_ax = drawn
    assert _whiskers(thesis_ax) and not _whiskers(summhay_ax)
    assert "no interval" in summhay_ax.get_title()
    # Coverage beside Joint (a Joint at the floor leaves Coverage to read), and the thesis's chance line at 25 %
    heights = sorted(round(p.get_height(), 2) for p in summhay_ax.patches)
    assert heights == [0.2, 0.3, 0.3, 0.4, 0.5, 0.6] and [t.get_text() for t in summhay_ax.get_legend().texts] == [
        "coverage", "joint"]
    assert [tuple(line.get_ydata()) for line in thesis_ax.lines if line.get_linestyle() == "--"] == [(0.25, 0.25)]


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
