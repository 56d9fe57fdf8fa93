"""Long²RAG's length bins (lcrag.papers.long2rag.lengths)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from helpers import kinds_confounded

from lcrag.papers.long2rag import lengths, numbers


def test_length_bins():
    assert lengths.scaled_edges(numbers.PAPER_INPUT_EDGES, 32_000, 8192) == [2048, 4096, 6400, 8192]
    assert lengths.length_bins([100, 2048, 5000, 9000], [2048, 4096, 6400, 8192]) == [
        "<2048", "2048-4096", "4096-6400", ">8192"]


def test_the_answers_that_hit_the_cap_get_a_bin_named_so():
    """With max_new_tokens 256 the last scaled edge is 256: its bin holds exactly the answers that stopped at the
    cap (none can be longer), so it is "256 (hit the cap)", not ">256"."""
    edges = sorted(set(lengths.scaled_edges(numbers.PAPER_OUTPUT_EDGES, 5_000, 256)))
    assert edges[-1] == 256
    assert lengths.length_bins([20, 255, 256], edges, cap=256) == ["<51", "230-256", "256 (hit the cap)"]
    assert lengths.length_bins([256], edges) == [">256"]  # no cap given: the plain label
    per = pd.DataFrame({"judge": "j", "recall": [0.0, 0.5, 1.0], "completion_tokens": [20, 255, 256]})
    table = lengths.kpr_by_length(per, "completion_tokens", edges, cap=256)
    assert list(table["bin"]) == ["<51", "230-256", "256 (hit the cap)"] and list(table["kpr"]) == [0.0, 0.5, 1.0]


def _per(lengths_by_variant: dict[str, list[int]], recalls: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame([{"variant": v, "question_id": f"q{i}", "completion_tokens": n, "recall": r}
                         for v in lengths_by_variant
                         for i, (n, r) in enumerate(zip(lengths_by_variant[v], recalls[v], strict=True))])


def test_the_generation_trend_is_read_within_each_variant():
    """A variant of short answers and low KPR next to one of capped answers and high KPR: pooled, length and KPR
    rise together; within each variant KPR falls with length, and the trend says so."""
    short = [10, 20, 30, 40, 50, 60, 70, 80]
    capped = [200, 210, 220, 230, 240, 256, 256, 256]
    falling_low = [0.3, 0.25, 0.2, 0.15, 0.1, 0.05, 0.0, 0.0]
    falling_high = [0.9, 0.85, 0.8, 0.75, 0.7, 0.6, 0.6, 0.6]
    per = _per({"trunc512": short, "none": capped}, {"trunc512": falling_low, "none": falling_high})
    assert per["completion_tokens"].corr(per["recall"], method="spearman") > 0.5  # pooled: the variants
    t = lengths.within_variant_rank(per, cap=256, n_boot=500)
    assert t.rho < 0 and t.hi < 0 and t.variants == ["none", "trunc512"]
    assert (t.questions, t.responses, t.capped) == (8, 16, 3)
    rising = _per({"a": short, "b": capped}, {"a": falling_low[::-1], "b": falling_high[::-1]})
    up = lengths.within_variant_rank(rising, cap=256, n_boot=500)
    assert up.rho > 0.9 and up.lo > 0  # (ties among the capped answers and among equal KPR keep it below 1)
    flat = _per({"a": [256] * 8}, {"a": falling_high})  # every answer capped: no length to rank
    assert np.isnan(lengths.within_variant_rank(flat, cap=256).rho)


def test_the_input_bins_are_scaled_to_the_longest_input_and_say_which_variants_fill_them():
    """The book's runs: edges scaled to a 32k window put every input (at most ~5.6k tokens) in "<8192", one bin.
    Scaled to the longest input (at most the window) the bins hold the inputs, and the sentence says that each
    holds other variants."""
    rows = [("none", 4000), ("none", 5600), ("trunc512", 500), ("trunc512", 520), ("trunc2048", 2000)]
    responses = pd.DataFrame([{"question_id": f"q{i}", "variant": v, "input_tokens": n, "completion_tokens": 9}
                              for i, (v, n) in enumerate(rows)])
    judgments = responses[["question_id", "variant"]].assign(judge="j", value=1)
    study = lengths.length_study(judgments, responses, 32_768, 256, numbers.PAPER_INPUT_EDGES,
                                 numbers.PAPER_OUTPUT_EDGES)
    assert study.in_edges == [1400, 2800, 4376, 5601]  # x 5601 / 32000
    assert list(study.by_input["bin"]) == ["<1400", "1400-2800", "2800-4376", "4376-5601"]
    assert lengths.bins_sentence(study.per_response, study.in_edges) == (
        "The 5 responses' inputs run from 500 to 5,600 tokens and fill 4 input bins, by variant: <1400: "
        "trunc512 2; 1400-2800: trunc2048 1; 2800-4376: none 1; 4376-5601: none 1. A difference between bins is "
        "mostly one between variants.")
    small = lengths.length_study(judgments, responses, 4096, 256, numbers.PAPER_INPUT_EDGES, numbers.PAPER_OUTPUT_EDGES)
    assert small.in_edges == [1024, 2048, 3200, 4096]  # a window the inputs fill: the window, as before


def test_the_input_trend_is_read_within_each_kind_of_item_not_across_them():
    """The referee's finding on the 1.5B: C10's falling trend within each variant was the news/conversation split
    (conversations: longer inputs, lower KPR), not the length. Within variant and kind there is no trend."""
    per = kinds_confounded()
    assert [lengths.haystack_kind(q) for q in ("news3/x", "conv1/y", "q0")] == ["news", "conversations", ""]
    across = lengths.within_variant_rank(per, "input_tokens", n_boot=500, by=lambda q: "")  # within variant only
    assert across.hi < -0.5 and across.cells == ["none", "trunc2048"]
    t = lengths.within_variant_rank(per, "input_tokens", n_boot=500)
    assert t.lo < 0 < t.hi and abs(t.rho) < 0.1
    assert t.cells == ["none/conversations", "trunc2048/conversations", "none/news", "trunc2048/news"]
    assert (t.questions, t.responses) == (40, 80)
    assert t.kinds["conversations"][1] > t.kinds["news"][1] and t.kinds["conversations"][2] < t.kinds["news"][2]
    shuffled = lengths.within_variant_rank(per.sample(frac=1, random_state=1), "input_tokens", n_boot=500)
    assert (shuffled.rho, shuffled.lo, shuffled.hi) == (t.rho, t.lo, t.hi)  # the rows' order does not matter


def test_the_rank_trend_keeps_its_numbers():
    """Pinned on the trend as computed before its resampling and its spearman moved to lcrag.stats (percentile
    interval over questions resampled within each kind, a constant resample counted as rho 0, seed 3)."""
    lens = {"none": [[120, 80, 200, 150, 60], [300, 90, 250, 256, 256]],
            "trunc512": [[40, 70, 30, 90, 20], [50, 60, 10, 80, 100]]}
    recalls = {"none": [[0.5, 0.2, 0.3, 0.6, 0.1], [0.3, 0.4, 0.2, 0.1, 0.7]],
               "trunc512": [[0.1, 0.3, 0.0, 0.4, 0.2], [0.2, 0.2, 0.0, 0.6, 0.5]]}
    per = pd.DataFrame([{"variant": v, "question_id": f"{kind}/q{i}", "completion_tokens": lens[v][k][i],
                         "recall": recalls[v][k][i]}
                        for v in lens for k, kind in enumerate(("news1", "conv1")) for i in range(5)])
    t = lengths.within_variant_rank(per, cap=256, n_boot=200, seed=3)
    assert (t.rho, t.lo, t.hi) == (0.5423709410159664, 0.019672331458315817, 0.837719298245614)
    assert t.cells == ["none/conversations", "trunc512/conversations", "none/news", "trunc512/news"]
