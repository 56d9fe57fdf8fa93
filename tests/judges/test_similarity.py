"""The judges without an LLM (lcrag.judges.similarity): lexical and embedding similarity, thresholds and their fit,
on hand-made examples whose labels follow from the definitions."""

from __future__ import annotations

import numpy as np
import pytest

from lcrag.judges import similarity as j
from lcrag.metrics.summhay import FULL, NONE, PARTIAL


def test_lexical_similarity_is_the_share_of_insight_words_in_each_bullet_without_citations():
    insights = ["The Pomodoro technique uses 25 minute study blocks", "Doctor 3 prescribed rest"]
    bullets = [
        "- Students liked the Pomodoro technique [3][25].",
        "- 25 minute study blocks with the pomodoro technique were suggested.",
        "## Stress tips",
    ]
    sim = j.lexical_similarity(insights, bullets)
    assert sim.shape == (2, 3)
    # content words of insight 0: pomodoro technique uses 25 minute study blocks (7); "the" is a stop word
    assert sim[0].tolist() == pytest.approx([2 / 7, 6 / 7, 0.0])
    # the citations [3] and [25] are not words: "3" does not match insight 1 through a document id
    assert sim[1, 0] == 0.0
    assert j.strip_citations("Calm helps [3][8, 9].").split() == ["Calm", "helps", "."]


def test_best_bullets_takes_the_first_bullet_on_ties_and_needs_one_bullet():
    best, link = j.best_bullets(np.array([[0.2, 0.7, 0.7], [0.1, 0.0, 0.05]]))
    assert best.tolist() == [0.7, 0.1] and link.tolist() == [1, 0]
    with pytest.raises(ValueError, match="at least one bullet"):
        j.best_bullets(np.zeros((2, 0)))


def test_thresholds_give_full_partial_none_with_inclusive_bounds():
    t = j.Thresholds(partial=0.4, full=0.8)
    assert j.apply_thresholds([0.1, 0.4, 0.79, 0.8, 1.0], t) == [NONE, PARTIAL, PARTIAL, FULL, FULL]
    assert j.threshold_scores([0.1, 0.4, 0.8], t).tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="partial <= full"):
        j.Thresholds(partial=0.9, full=0.5)


def test_judge_links_the_most_similar_bullet_only_when_covered():
    sim = np.array([[0.1, 0.9, 0.3], [0.5, 0.2, 0.1], [0.0, 0.1, 0.2]])
    assert j.judge(sim, j.Thresholds(0.4, 0.8)) == [(FULL, 1), (PARTIAL, 0), (NONE, None)]


def test_fit_thresholds_recovers_a_separable_labelling_and_is_deterministic():
    best = [0.10, 0.20, 0.50, 0.60, 0.90, 0.95, 0.15, 0.55]
    human = [0.0, 0.0, 0.5, 0.5, 1.0, 1.0, 0.0, 0.5]
    t = j.fit_thresholds(best, human)
    assert j.threshold_scores(best, t).tolist() == human
    assert 0.20 < t.partial <= 0.50 and 0.60 < t.full <= 0.90
    assert j.fit_thresholds(best, human) == t


def test_fit_thresholds_rejects_what_it_cannot_fit():
    with pytest.raises(ValueError, match="all values are equal"):
        j.fit_thresholds([0.3, 0.3, 0.3], [0.0, 0.5, 1.0])
    with pytest.raises(ValueError, match="equal-length"):
        j.fit_thresholds([0.3, 0.4], [0.0])


def test_embedding_similarity_prefers_the_paraphrase_and_repeats_exactly(tmp_path):
    from lcrag.models.embeddings import get_embedder

    emb = get_embedder(cache_root=tmp_path / "emb")
    insights = ["The doctor says the blood test shows elevated inflammatory markers."]
    bullets = [
        "- Lab results revealed high inflammation markers in the patient's blood [4].",
        "- The sales team discussed quarterly pricing for enterprise customers [9].",
    ]
    sim = j.embedding_similarity(insights, bullets, emb)
    assert sim.shape == (1, 2) and -1.0 <= sim.min() and sim.max() <= 1.0
    assert sim[0, 0] > sim[0, 1] + 0.3
    again = j.embedding_similarity(insights, bullets, get_embedder(cache_root=tmp_path / "other"))
    np.testing.assert_allclose(again, sim, atol=1e-5)  # recomputed from scratch, not read from a cache


def test_the_binary_cut_is_the_most_accurate_one():
    assert j.fit_binary_threshold([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1]) == 0.6
