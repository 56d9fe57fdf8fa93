"""The released artefacts' claims (lcrag.papers.summhay.artefact_claims): each names what in the files is its
evidence, and all count as released artefacts; their values' bounds and scope."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag.book import ClaimsLedger
from lcrag.book.claims import UNRELEASED
from lcrag.book.verdicts import NOT_RELEASED, NOTHING_CHECKED, RELEASED_ARTEFACTS
from lcrag.papers.summhay import artefact_claims, names, paper_numbers


def test_only_the_claims_judged_by_gpt4o_carry_the_gpt4o_judge():
    models = names.ARTEFACT_CLAIM_MODELS
    assert {c for c, m in models.items() if m == names.ARTEFACT_NO_MODEL} == {"C16", "C20", "C20b"}
    assert {c for c, m in models.items() if m == names.PAPER_TABLES_MODEL} == {"C19", "C21"}
    assert {c for c, m in models.items() if m == names.ARTEFACT_JUDGES_MODEL} == {"C15", "C17"}
    assert "GPT-4o" in names.ARTEFACT_MODEL and not any("GPT-4o" in m for m in models.values())


def test_every_artefact_label_is_the_released_artefacts_source():
    ledger = ClaimsLedger("summhay", "summhay", names.ARTEFACT_MODEL)
    for model in (names.ARTEFACT_MODEL, names.ARTEFACT_JUDGES_MODEL, names.ARTEFACT_NO_MODEL):
        claim = ledger.check("X1", "a claim", 1, 1, True, model=model)
        assert (claim.model, claim.source) == (model, RELEASED_ARTEFACTS)


def test_c20b_counts_the_insights_in_fewer_documents_than_the_papers_minimum():
    """§3.2's "each insight occurs within 5+ documents" (the paper's value, from its shape table), counted in the
    released haystacks: one insight below it is enough for *not reproduced*, and the value names where."""
    from lcrag.papers.summhay.artefact_claims import minimum_documents_claim
    from lcrag.papers.summhay.paper_numbers import PAPER_SHAPE

    need = PAPER_SHAPE["minimum documents per insight"]
    shape = pd.DataFrame({"haystack": ["news1", "news3"], "insights": [65, 79], "docs_per_insight_min": [need, need - 1],
                          "insights_in_fewer_than_5_docs": [0, 17]})
    c = minimum_documents_claim(shape)
    assert c["passed"] is False
    assert c["our_value"] == (f"minimum {need - 1}; 17 of 144 insights in fewer than {need} documents "
                              f"(news3: 17 of 79 insights, minimum {need - 1})")
    ok = minimum_documents_claim(shape.iloc[:1])
    assert ok["passed"] is True and ok["our_value"] == f"minimum {need}; 0 of 65 insights in fewer than {need} documents"
    ledger = ClaimsLedger("summhay", "summhay", names.ARTEFACT_MODEL)
    claim = ledger.check("C20b", **c, model=names.ARTEFACT_NO_MODEL)
    assert claim.verdict == "not reproduced" and claim.paper_value == f"{need}+"
    assert claim.text == f"Each insight occurs within {need}+ documents (§3.2, after quality assurance)"


def test_the_human_studies_claims_are_not_testable_data_not_released():
    """C19 (the human summaries) and C21 (the 35-summary annotation) need data the paper never released: their own
    verdict, not *inconclusive*, with what is missing after "not released:", no value of ours, and the source
    *none* (no value was checked: neither *paper tables* nor *released artefacts*, which would contradict "data not
    released"); check_artefact_claims records them so."""
    import inspect

    ledger = ClaimsLedger("summhay", "summhay", names.ARTEFACT_MODEL)

    def check(claim_id, **kwargs):  # check_artefact_claims's own: the claim's model
        return ledger.check(claim_id, model=names.ARTEFACT_CLAIM_MODELS.get(claim_id), **kwargs)

    for cid in ("C19", "C21"):
        artefact_claims.check_unreleased(check, cid)
    t = ledger.table().set_index("claim_id")
    assert t["verdict"].tolist() == [UNRELEASED, UNRELEASED] and t["our_value"].isna().all()
    assert t.loc["C19", "evidence"] == f"{NOT_RELEASED}: the 10 human summaries and their per-10-minute evaluations"
    assert t.loc["C21", "evidence"].startswith(f"{NOT_RELEASED}: the 35-summary, 4-annotator data")
    assert set(t["model"]) == {names.PAPER_TABLES_MODEL} and set(t["source"]) == {NOTHING_CHECKED}
    assert ledger.counts()["inconclusive"] == 0
    body = inspect.getsource(artefact_claims.check_artefact_claims)
    assert all(f'check_unreleased(check, "{cid}")' in body for cid in artefact_claims.UNRELEASED_DATA)


def test_the_conversation_half_is_released_but_not_fetchable_and_its_range_bounds_c14b():
    """The conversation half was released (the inventory: topic_conv*.json hold every summary and GPT-4o judgment;
    the paper open-sources its data), but no file this book can fetch holds them: the level claims say so rather
    than "unreleased". C14b's sensitivity, max(|Top − Random|, |Bottom − Random|), gets the whole-table range its
    three Joint cells allow, as C1-C3 and C9 do."""
    from lcrag.papers.summhay.whole_table import CONVERSATION_HALF, sensitivity_bounds

    assert "released, but not fetchable here" in CONVERSATION_HALF and "unreleased" not in CONVERSATION_HALF
    # disjoint ranges: at least the gap between Top's and the stored order's, at most the widest end-to-end
    assert sensitivity_bounds((30, 40), (18, 22), (10, 20)) == (10, 30)
    # overlapping ranges: the stored order can equal both
    assert sensitivity_bounds((10, 60), (12, 64), (8, 58)) == (0, 56)
    # Bottom far above, Top far below the stored order's range: the stored Joint halfway between them is best
    assert sensitivity_bounds((0, 2), (40, 42), (0, 100)) == (19, 100)


def test_c13_names_the_pairs_that_fail_it():
    """The news half's GPT-4o R/P (0.728) is below Claude 3 Opus's (0.737): rounded to two decimals the value hid it
    ("Claude R/P 0.62-0.74; ... GPT-4o 0.73"); it now names each failing pair, as C5 names its summarizers."""
    from lcrag.papers.summhay import order_claims

    rp = {"claude3-haiku": (31.0, 50.0), "claude3-opus": (73.7, 100.0), "command-r-plus": (83.0, 100.0),
          "gpt-4o": (72.8, 100.0)}
    cells = {(s, "oracle", "recall"): r for s, (r, _) in rp.items()} | {(s, "oracle", "precision"): p
                                                                       for s, (_, p) in rp.items()}
    value = order_claims.recall_lean(lambda s, st, m: cells[(s, st, m)], list(rp))
    assert value == ("Claude R/P 0.62-0.74; Cmd-r+ 0.83, GPT-4o 0.73 (fails: gpt-4o 0.728 not above claude3-opus "
                     "0.737)")
    cells[("gpt-4o", "oracle", "recall")] = 80.0
    assert "fails" not in order_claims.recall_lean(lambda s, st, m: cells[(s, st, m)], list(rp))


def test_pooled_bounds():
    assert artefact_claims.pooled_bounds(50.0, 336) == pytest.approx((50 * 336 / 621, 50 * 336 / 621 + 100 * 285 / 621))
    assert artefact_claims.pooled_bounds(80.0, 621) == pytest.approx((80.0, 80.0))


def test_a_level_claim_on_several_systems_names_each_one():
    value = artefact_claims.named_levels({"gpt-4o": 16.34, "claude3-opus": 25.2},
                                         {"gpt-4o": (8.8, 54.7), "claude3-opus": (13.71, 59.6)})
    assert value == ("news half gpt-4o 16.3 / claude3-opus 25.2; whole table: gpt-4o between 8.8 and 54.7, "
                     "claude3-opus between 13.7 and 59.6")


def test_the_claims_scope_is_counted_from_the_haystacks():
    assert paper_numbers.PAPER_INSIGHTS == 621  # 92 subtopics x 6.75 (§3.4)
    shape = pd.DataFrame({"haystack": ["news1", "news2", "conv1"], "subtopics": [9, 8, 10], "insights": [60, 50, 70]})
    complete, scope = artefact_claims.claims_scope(shape, ["news1", "news2"], ["news1", "news2"], None)
    assert complete and scope == "news half: 2 haystacks, 17 of 27 subtopics, 110 of 180 insights"
    complete, scope = artefact_claims.claims_scope(shape, ["news1"], ["news1", "news2"], None)
    assert not complete and scope == "subset run (news1, all subtopics each): not decided"
    assert not artefact_claims.claims_scope(shape, ["news1", "news2"], ["news1", "news2"], 3)[0]
