"""SummHay in the synthesis: Full against the Oracle and the best retriever, paired over subtopics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lcrag.papers.summhay import comparison

M = "local/m"


def _settings(joint: dict[str, float]) -> pd.DataFrame:
    return pd.DataFrame([{"model": M, "setting": s, "summaries": 4, "n_insights": 30, "coverage": j, "citation": j,
                          "joint": j, "source": "summhay/live_results.csv"} for s, j in joint.items()])


def _per(joint: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame([{"model": M, "setting": s, "haystack": "news3" if i < 2 else "conv1", "subtopic_id": i,
                          "joint": j} for s, js in joint.items() for i, j in enumerate(js)])


def _joint(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r["comparison"].endswith("(Joint)")]


def test_full_is_compared_with_the_oracle_and_the_best_retriever_paired_over_subtopics():
    settings = _settings({"full": 0.30, "oracle": 0.50, "keywords": 0.20, "random": 0.10})
    per = _per({"full": [0.3, 0.4, 0.2, 0.3], "oracle": [0.5, 0.7, 0.35, 0.55], "keywords": [0.1, 0.3, 0.1, 0.3],
                "random": [0.1, 0.1, 0.1, 0.1]})
    rows = {r["other_arm"]: r for r in _joint(comparison.comparisons(settings, per, n_boot=500))}
    assert set(rows) == {"oracle", "keywords"}  # the best real retriever by pooled Joint, and the ceiling
    o = rows["oracle"]
    assert (o["diff"], o["long_value"], o["other_value"], o["n"]) == pytest.approx((-0.225, 0.3, 0.525, 4))
    assert o["units"] == "subtopics" and o["ci_low"] < -0.225 < o["ci_high"] < 0 and o["reading"] == "oracle better"
    k = rows["keywords"]
    assert k["diff"] == pytest.approx(0.1) and k["ci_low"] <= 0.1 <= k["ci_high"]
    assert "4 subtopics" in k["evidence"] and "paired bootstrap" in k["evidence"]
    # the values are the means over the subtopics paired (as the interval), not the detail table's micro-averages
    assert k["values"] == "" and "not the live settings' table's micro-averages over 30 insights" in k["evidence"]


def test_without_per_summary_scores_the_pooled_difference_has_no_interval():
    (o,) = _joint(comparison.comparisons(_settings({"full": 0.30, "oracle": 0.50})))
    assert o["diff"] == pytest.approx(-0.2) and np.isnan(o["ci_low"]) and o["units"] == "summaries"
    assert o["values"] == "micro-averages over 30 insights"  # not the means over the 4 summaries: said so
    # one subtopic is no pairing either
    (o,) = _joint(comparison.comparisons(_settings({"full": 0.30, "oracle": 0.50}),
                                         _per({"full": [0.3], "oracle": [0.5]})))
    assert np.isnan(o["ci_low"])


def test_the_floor_is_the_chapters_rule_for_its_live_settings():
    from lcrag.papers.summhay.live_claims import setting_floor

    (o,) = _joint(comparison.comparisons(_settings({"full": 0.004, "oracle": 0.30})))
    assert o["reading"] == "not testable with this model"
    assert o["evidence"].endswith(  # on the pooled scores, as the chapter's claims: not the means over subtopics
        f"at the floor: {setting_floor({'Full (pooled joint)': 0.4, 'oracle (pooled joint)': 30.0})}")
    assert setting_floor({"Full": 0.4, "oracle": 30.0, "random": float("nan")}) == "Full: 0.4 points, below 5"


def test_the_full_arm_says_how_many_documents_fit_the_window():
    settings = _settings({"full": 0.30, "oracle": 0.50}).assign(n_documents=7.333)
    (o,) = _joint(comparison.comparisons(settings))
    assert o["long_context"] == "7.3 documents (the first in stored order, as many as fit the context budget)"
    (o,) = _joint(comparison.comparisons(_settings({"full": 0.30, "oracle": 0.50})))  # an older run: not known
    assert o["long_context"] == ""
    assert comparison.full_label(o) == ("Full (the haystack's first documents in stored order, as many as fit the "
                                        "context budget)")  # still not "the haystack"


def _live_run(root, model: str, rows: list[tuple[str, str, int, int, bool]], documents: dict[str, int]) -> None:
    """A summhay run of ``model`` with its live summaries (haystack, setting, documents read, context tokens, last
    document cut) and the haystacks' shape (documents per haystack)."""
    import json

    d = root / "runs" / model.replace("/", "--") / "default" / "summhay"
    d.mkdir(parents=True)
    (d / "manifest.json").write_text(json.dumps({"chapter": "summhay", "status": "ok", "profile": "default",
                                                 "model": model, "finished": "2026-01-01"}))
    pd.DataFrame(rows, columns=["haystack", "setting", "n_documents", "context_tokens", "last_truncated"]).assign(
        documents="[1, 2]").to_csv(d / "live_summaries.csv", index=False)
    pd.DataFrame({"haystack": list(documents), "documents": list(documents.values())}).to_csv(d / "shape.csv",
                                                                                               index=False)


def test_the_full_arm_says_what_it_read_from_the_runs_tables(tmp_path):
    """Full is the haystack's first documents up to the budget every retriever has (15k tokens), not the whole
    haystack (§5.1's Full): its comparisons say how many tokens and documents of how many it read, computed from
    the run's live summaries and shape tables, and prose names it so (the family's long_label)."""
    from lcrag.synthesis import find_runs

    _live_run(tmp_path, M, [("news3", "full", 16, 15000, True), ("conv1", "full", 15, 15000, True),
                            ("conv1", "full", 16, 15000, True), ("news3", "oracle", 14, 15000, True)],
              {"news3": 100, "conv1": 100, "news1": 100})
    reads = comparison.full_reads(find_runs(tmp_path))
    assert reads.to_dict("records") == [{"model": M, "context_tokens": 15000.0, "n_documents": pytest.approx(47 / 3),
                                         "haystack_documents": 100.0, "whole": False}]
    (o,) = _joint(comparison.comparisons(_settings({"full": 0.30, "oracle": 0.50}), reads=reads))
    assert o["long_context"] == ("15,000 tokens, 15.7 of 100 documents (the first in stored order, as many as fit "
                                 "the context budget)")
    assert comparison.FAMILY.arm_label(o) == ("Full (15,000 tokens, 15.7 of 100 documents, the first in stored order: "
                                              "this run has no whole-haystack arm)")
    # a haystack read whole (every document in, none cut) is said to be the whole haystack
    whole = comparison.full_context(3000, 20, 20, whole=True)
    assert whole == "20 of 20 documents (the whole haystack)"
    assert comparison.full_label({"long_arm": "Full", "long_context": whole}) == "Full (the whole haystack, 20 documents)"


def test_a_run_without_live_summaries_gives_no_reads(tmp_path):
    from lcrag.synthesis import find_runs

    _live_run(tmp_path, M, [("news3", "oracle", 14, 15000, True)], {"news3": 100})
    assert comparison.full_reads(find_runs(tmp_path)).empty


def test_coverage_alone_is_compared_too_for_a_summarizer_that_never_cites():
    """Joint is 0 for every setting when the summaries cite nothing (the Qwen models): the Joint rows are at the
    floor, and the Coverage rows, paired over subtopics with the best retriever by Coverage, still compare what
    the contexts let the model cover. The Joint rows come first: the headline stays Joint."""
    settings = _settings({"full": 0.0, "oracle": 0.0, "vector": 0.0, "random": 0.0}).assign(
        coverage=[0.30, 0.40, 0.39, 0.24])
    per = _per({"full": [0.0] * 4, "oracle": [0.0] * 4, "vector": [0.0] * 4, "random": [0.0] * 4}).assign(
        coverage=[0.3, 0.35, 0.25, 0.3, 0.4, 0.45, 0.35, 0.4, 0.40, 0.44, 0.33, 0.40, 0.2, 0.3, 0.2, 0.26])
    rows = comparison.comparisons(settings, per, n_boot=500)
    assert [r["comparison"] for r in rows] == ["Full vs Oracle (Joint)",
                                               "Full vs vector (every retriever at the floor) (Joint)",
                                               "Full vs Oracle (Coverage)", "Full vs vector (best retriever) (Coverage)"]
    assert all(r["reading"] == "not testable with this model" for r in rows[:2])
    # every retriever's Joint is 0: no winner is named, and the evidence (in the headline sentence) says why
    assert rows[1]["evidence"].startswith("every retriever's pooled joint is at the floor (vector 0.0, random 0.0 points): "
                                          "none can be called best")
    assert "at the floor" not in rows[3]["evidence"]
    cov = rows[3]
    assert cov["other_arm"] == "vector" and cov["units"] == "subtopics" and "Coverage per summary" in cov["evidence"]
    assert cov["diff"] == pytest.approx(-0.0925) and cov["ci_high"] < 0 and cov["reading"] == "vector better"


def test_the_panel_says_its_bars_have_no_interval():
    """The bars are the table's micro-averages, drawn without whiskers: the title must not promise an interval
    (the one over subtopics belongs to the Full − retriever differences)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lcrag.synthesis import RUN_COLUMNS, Synthesis

    fig, ax = plt.subplots()
    syn = Synthesis(runs=pd.DataFrame(columns=list(RUN_COLUMNS)),
                    tables={"summhay": _settings({"full": 0.30, "oracle": 0.50})}, comparisons=pd.DataFrame())
    comparison.FAMILY.plot([ax], syn, M)
    assert ax.get_title() == "summhay: Coverage, Joint (micro-averages, no interval)"
    assert all(getattr(c, "errorbar", None) is None for c in ax.containers)
    plt.close(fig)
