"""Prompt drift: every prompt the book sends, rendered from fixed inputs (:mod:`prompt_examples`), has the sha256
recorded in ``tests/fixtures/prompt_digests.json``. The response store is keyed by exact requests, so a changed
prompt misses it and the book's replay fails; this quick test says so before the slow book build does."""

from __future__ import annotations

import json

import prompt_examples

REGENERATE = "PYTHONPATH=src .venv/bin/python tests/prompt_examples.py --update"


def test_every_prompt_has_its_recorded_digest():
    recorded = json.loads(prompt_examples.DIGESTS.read_text())
    now = prompt_examples.digests()
    changed = sorted(k for k in now.keys() & recorded.keys() if now[k] != recorded[k])
    new, gone = sorted(now.keys() - recorded.keys()), sorted(recorded.keys() - now.keys())
    assert not (changed or new or gone), (
        f"prompts changed: {changed}; new examples: {new}; examples gone: {gone}. A changed prompt misses the "
        "committed response store (responses/): the book's replay of its chapter fails and every answer must be "
        "recorded again. If the change is unintended, restore the prompt byte for byte. If it is deliberate, "
        f"regenerate the digests with `{REGENERATE}` and commit them with the prompt and the re-recorded responses."
    )


def test_a_changed_byte_changes_the_digest(monkeypatch):
    from lcrag.papers.thesis import prompts

    before = prompt_examples.digests()
    monkeypatch.setattr(prompts, "BAMBOO_TAIL", prompts.BAMBOO_TAIL.rstrip())
    after = prompt_examples.digests()
    changed = {k for k in before if before[k] != after[k]}
    assert "thesis.BAMBOO_TAIL" in changed and "quickstart.bamboo_prompts[full]" in changed
    assert "thesis.build_prompt[BAMBOO,rag,2 parts,tab]" in changed and "needle.SYSTEM" not in changed
