"""Cross-chapter synthesis: one model through every experiment family of the book.

The chapters save tidy tables next to their executed notebooks (``runs/<model>/<profile>/<chapter>/*.csv``). This
package reads those tables back, never a model and never a paper's number, and puts each model through the
comparisons of "more context" against "less, retrieved context" that the registered chapters declare
(:mod:`lcrag.chapters`): each chapter's :class:`Family`, written in its paper's package
(``lcrag.papers.<paper>.comparison``), in the chapters' order. Today:

- needle: the whole haystack vs BM25's top chunks (``answers.csv``);
- thesis: the Full document vs RAG (the main pipeline) and the gold Evidence, BAMBOO's prompt
  (``accuracy.csv``, ``paired_tests.csv``);
- long2rag: the five documents whole vs cut to their first N characters (``judgments.csv``);
- longrag: the Full LongBench context vs the paper's RAG strategies (``answers.csv``);
- summhay: Full (the haystack, as far as the context budget holds it) vs the Oracle and the best real retriever
  (``live_results.csv``).

Each comparison is a difference of the long-context arm minus the other arm on a 0-1 scale, with a paired
95 % bootstrap interval where the tables keep per-item values (needle, thesis, long2rag, longrag, and SummHay
where the run saved its per-summary scores; older SummHay runs keep micro-averages only, so their differences
have no interval and say so).

A model appears as soon as one of its tables does: the run's model, or a ``model`` column inside a run (the
needle chapter runs Gemma-3 inside the SmolLM2 run). A chapter without a successful run is "not run yet".

    syn = synthesize(profiles=["default"])
    syn.comparisons            # one row per model x comparison
    overview(syn)              # family x model: the reading of each headline comparison
    headline_rules(syn)        # which comparison is each family's headline, in words
    plot_model(syn, model)     # one figure per model
    plot_models(syn, models)   # the models' figures stacked in one
    size_table(syn)            # each family's headline difference against model size
    size_view(sizes)           # ... as the page shows it
    length_note(syn)           # ... and where the long-context arm's length differs between models
    plot_size_axis(syn)        # ... as a figure
    claims_by_size(syn)        # each claim checked on our runs: its verdict per model size
    claims_legend()            # ... what each of its cells means
    read_order(profiles)       # which run is read for each chapter and model, in words
    detail_note(syn, family)   # what a family's detail table needs said of these runs ("" when nothing)
    detail(syn, family)        # ... both, to display(*...) on a page
    written_answer(syn)        # the answer in prose, model by model, then across sizes

Modules: :mod:`.family` (what a family is, the comparison rows, readings), :mod:`.runs` (the runs and their
tables, re-run cost), :mod:`.views` (:func:`synthesize` and the views), :mod:`.figure` (the model figure),
:mod:`.size_axis` (the answer against model size), :mod:`.answer` (the answer in prose).
"""

from lcrag.synthesis.answer import written_answer
from lcrag.synthesis.family import (
    COMPARISON_COLUMNS,
    NOT_RUN,
    NOT_TESTABLE,
    UNCLEAR,
    UNCORROBORATED,
    Family,
    comparison,
    families,
    format_diff,
    group_means,
    items,
    mean_ci,
    reading,
    window_cut,
)
from lcrag.synthesis.figure import bar_panel, bars, empty_panel, plot_model, plot_models
from lcrag.synthesis.runs import (
    RUN_COLUMNS,
    find_runs,
    load_table,
    model_chapters,
    profiles_to_read,
    read_order,
    rerun_cost,
)
from lcrag.synthesis.size_axis import (
    claims_by_size,
    claims_legend,
    length_note,
    plot_size_axis,
    size_table,
    size_view,
    unsized_models,
)
from lcrag.synthesis.views import (
    NO_COMPARISON,
    Synthesis,
    compare_runs,
    conclusions,
    coverage,
    detail,
    detail_note,
    detail_table,
    headline,
    headline_rules,
    model_summary,
    model_view,
    overview,
    size_order,
    synthesize,
)

__all__ = [
    "COMPARISON_COLUMNS", "NOT_RUN", "NOT_TESTABLE", "NO_COMPARISON", "RUN_COLUMNS", "UNCLEAR", "UNCORROBORATED", "Family", "Synthesis",
    "bar_panel", "bars", "claims_by_size", "claims_legend", "compare_runs", "comparison", "conclusions",
    "coverage", "detail", "detail_note", "detail_table", "empty_panel", "families", "find_runs", "format_diff", "group_means", "headline",
    "headline_rules", "items", "length_note", "load_table", "mean_ci", "model_chapters",
    "model_summary", "model_view", "overview", "plot_model", "plot_models", "plot_size_axis", "profiles_to_read",
    "read_order", "reading", "rerun_cost", "size_order", "size_table", "size_view", "synthesize", "unsized_models", "window_cut",
    "written_answer",
]  # fmt: skip
