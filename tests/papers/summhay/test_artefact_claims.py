"""The released artefacts' claims: each names what in the files is its evidence, and all count as released artefacts."""

from __future__ import annotations

from lcrag.book import ClaimsLedger
from lcrag.book.verdicts import RELEASED_ARTEFACTS
from lcrag.papers.summhay import names


def test_only_the_claims_judged_by_gpt4o_carry_the_gpt4o_judge():
    models = names.ARTEFACT_CLAIM_MODELS
    assert {c for c, m in models.items() if m == names.ARTEFACT_NO_MODEL} == {"C16", "C19", "C20", "C21"}
    assert {c for c, m in models.items() if m == names.ARTEFACT_JUDGES_MODEL} == {"C15", "C17"}
    assert "GPT-4o" in names.ARTEFACT_MODEL and not any("GPT-4o" in m for m in models.values())


def test_every_artefact_label_is_the_released_artefacts_source():
    ledger = ClaimsLedger("summhay", "summhay", names.ARTEFACT_MODEL)
    for model in (names.ARTEFACT_MODEL, names.ARTEFACT_JUDGES_MODEL, names.ARTEFACT_NO_MODEL):
        claim = ledger.check("X1", "a claim", 1, 1, True, model=model)
        assert (claim.model, claim.source) == (model, RELEASED_ARTEFACTS)
