"""Long²RAG's key-point pipeline (lcrag.papers.long2rag.key_points): P5 / P7 parsers, AutoDS, KPP support."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from lcrag.papers.long2rag import key_points


def test_parse_points_and_dedup():
    text = (" Point 1: <point_start>Calls are inherited.<point_end><span_start>Calls are genetic<span_end>\n"
            "Point 2: <point_start>Songs are learned.<point_end><span_start>a<span_end><span_start>b<span_end>\n"
            "Point 3: plain text point")
    pts = key_points.parse_points(text)
    assert [p["point"] for p in pts] == ["Calls are inherited.", "Songs are learned.", "plain text point"]
    assert pts[1]["spans"] == ["a", "b"]
    groups, check = key_points.parse_dedup("Point 1: Calls inherited. [1, 2]\nPoint 2: Songs. [3]", 3)
    assert check["ok"] and groups[0]["sources"] == [1, 2]
    _, bad = key_points.parse_dedup("Point 1: x [1, 2]\nPoint 2: y [2, 5]", 4)
    assert bad == {"ok": False, "missing": [3, 4], "repeated": [2], "unknown": [5]}


def test_autods_score():
    assert key_points.yes_no_score({"YES": math.log(0.6), " NO": math.log(0.2)}) == pytest.approx(0.75)
    assert key_points.yes_no_score({"Yes": -1.0, "yes": -0.5}) == 1.0
    assert math.isnan(key_points.yes_no_score({"The": -0.1}))


def test_a_point_without_content_words_is_not_counted_in_kpp():
    """The 1.5B's P5 extraction can give a point of stop words only; it states nothing, so it is neither a point
    nor supported (it made the chapter fail with "the needle has no content words")."""
    point_support = key_points.point_support
    doc = "The Demon 170 reaches 1,025 hp on E85. Its tank drains in seven minutes."
    assert point_support(["The Demon 170 reaches 1,025 hp on E85.", "It is what it is.", "The tank lasts a day."],
                         doc, 0.6) == (2, 1)
    assert point_support(["It is."], doc, 0.6) == (0, 0)


def test_the_key_point_pipeline_on_no_item_asks_nothing_and_says_so():
    """``kp_items = 0`` (the companion profile): every stage's table is empty with its columns, and the summary
    says the section ran on no item."""
    from lcrag.models import get_model

    model = get_model("local/smollm2-135m-instruct")
    items = pd.DataFrame({"question_id": ["q"], "question": ["Q?"], "key_points": [["a b c"]], "documents": [["d"]]})
    run = key_points.pipeline(model, items.head(0), 0.5, 8, 8, autods_points=4)
    assert run["recovery"].empty and list(run["recovery"].columns) == list(key_points.RECOVERY_COLUMNS)
    assert run["extracted"].empty and run["deduped"].empty and run["scored"].empty
    summary, note = key_points.stage_summary(run)
    assert summary.empty and note == "the key-point pipeline ran on no item (kp_items = 0)"


def test_the_p7_note_counts_items_where_p7_failed_and_what_it_merged_elsewhere():
    """The run's §9 read "P7 fallbacks: 51", which hid that P7 failed on 3 of 4 items and merged 20 points into 1
    on the fourth: the note says both, per item."""
    ex = pd.DataFrame({"question_id": ["a"] * 3 + ["b"] * 4 + ["c"] * 2})
    dd = pd.DataFrame({"question_id": ["a"] * 3 + ["b"] + ["c"] * 2,
                       "fallback": [True] * 3 + [False] + [True] * 2})
    assert key_points.p7_note(ex, dd) == ("P7 failed its check on 2 of 3 items (5 of 6 points are their P5 points, "
                                          "kept unmerged); on the other it merged b: 4 points into 1 (all into "
                                          "one point: the check accepts it, but it keeps no distinction)")
    assert key_points.p7_note(ex.head(0), dd.head(0)) == "P7 ran on no point"
    two = pd.DataFrame({"question_id": ["b", "b"], "fallback": [False, False]})
    assert key_points.p7_note(ex[ex["question_id"] == "b"], two).endswith("b: 4 points into 2")


def test_the_p8_rows_count_only_the_items_p8_scored_in_full():
    """§9's P8 rows averaged over every item, though P8 scored the first 40 points only: one item had none of its
    points scored and another 7 of 16, and both counted as losses. The rows now count the fully scored items, and
    the note names how many and P7's recall on them."""
    recovery = pd.DataFrame([{"question_id": q, "stage": s, "n_key_points": 4, "n_points": n, "n_recovered": k,
                              "recall": k / 4} for q, s, n, k in (("a", "P5 extracted", 3, 3), ("b", "P5 extracted", 2, 1),
                                                                  ("a", "P7 rejected (P5 points kept)", 3, 3),
                                                                  ("b", "P7 rejected (P5 points kept)", 2, 1),
                                                                  ("a", "P8 scored (fully scored items)", 3, 3))])
    ex = pd.DataFrame({"question_id": ["a"] * 3 + ["b"] * 2, "span_verbatim": [True] * 5})
    dd = pd.DataFrame({"question_id": ["a"] * 3 + ["b"] * 2, "fallback": [True] * 5})
    assert key_points.fully_scored(dd, dd.head(4)) == ["a"]
    assert key_points.fully_scored(dd, dd.head(2)) == []
    run = {"recovery": recovery, "extracted": ex, "deduped": dd, "scored": dd.head(4)}
    _, note = key_points.stage_summary(run)
    assert note.endswith("P8 scored the first 4 of the 5 de-duplicated points, so its rows count only the 1 of 2 "
                         "items all of whose points it scored (P7's mean item recall on them: 0.750)")
    _, whole = key_points.stage_summary({**run, "scored": dd})
    assert "count only" not in whole


def test_the_p7_row_is_named_by_what_p7_did():
    """§9 labelled the row "P7 deduplicated" while P7 failed its check on every item (P5's points kept)."""
    fell = pd.DataFrame({"question_id": ["a", "a", "b"], "fallback": [True, True, True]})
    assert key_points.p7_stage(fell) == "P7 rejected (P5 points kept)"
    assert key_points.p7_stage(fell.assign(fallback=[True, True, False])) == "P7 (1 of 2 items deduplicated)"
    assert key_points.p7_stage(fell.assign(fallback=False)) == "P7 deduplicated"
