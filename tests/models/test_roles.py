"""The one place a chapter's model roles are resolved (lcrag.models.roles): named roles are taken as given,
empty ones by the book's rule, roles a chapter does not have stay unset."""

import pytest

from lcrag.judges.default import CAPABLE_JUDGE, EMBEDDED_JUDGES
from lcrag.models import UnknownModelError
from lcrag.models.roles import roles

GEMMA = "local/gemma3-270m"
BROUGHT = "openai-compatible/qwen@http://127.0.0.1:9/v1"  # never asked: nothing is loaded or called


def test_an_embedded_generator_is_judged_by_the_capable_model():
    r = roles(GEMMA, judge="")
    assert (r.generator.spec, r.judge.spec) == (GEMMA, CAPABLE_JUDGE)
    assert r.defaulted == {"judge"}
    assert r.describe() == f"generator: {GEMMA} | judge: {CAPABLE_JUDGE} (default)"


def test_a_brought_chat_model_judges_itself_and_alone_in_an_evaluator_study():
    r = roles(BROUGHT, judge=None, judges=[])
    assert r.judge is r.generator
    assert [m.spec for m in r.judges] == [BROUGHT]
    assert roles(GEMMA, judges=None).specs()["judges"] == list(EMBEDDED_JUDGES)


def test_a_named_role_is_taken_as_given_and_not_marked_default():
    r = roles(BROUGHT, judge="local/qwen2.5-coder-0.5b-instruct", component="local/smollm2-135m-instruct")
    assert r.specs() == {"generator": BROUGHT, "judge": "local/qwen2.5-coder-0.5b-instruct",
                         "component": "local/smollm2-135m-instruct"}
    assert r.defaulted == frozenset()


def test_roles_left_out_stay_unset_and_empty_ones_default_to_the_generator_or_minilm():
    r = roles(GEMMA, component=None, teacher="", embedder=None)
    assert r.judge is None and r.judges == ()
    assert r.component is r.generator and r.teacher is r.generator
    assert r.embedder.name == "local/all-minilm-l6-v2"
    assert list(r.specs()) == ["generator", "component", "teacher", "embedder"]
    assert r.defaulted == {"component", "teacher", "embedder"}


def test_no_model_named_is_the_default_generator(monkeypatch):
    monkeypatch.setenv("LCRAG_MODEL", GEMMA)
    r = roles(None)
    assert r.generator.spec == GEMMA and "generator" in r.defaulted


@pytest.mark.parametrize("kwargs", [{"model": "local/nope"}, {"model": GEMMA, "judge": "nope/x"},
                                    {"model": GEMMA, "judges": [CAPABLE_JUDGE, "local/nope"]}])
def test_an_unknown_spec_in_any_role_fails_before_anything_loads(kwargs):
    with pytest.raises(UnknownModelError):
        roles(**kwargs)
