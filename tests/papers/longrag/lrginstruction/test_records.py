"""LRGinstruction's records (lcrag.papers.longrag.lrginstruction.records): silver supporting paragraphs, the
distractors' sampling and budget, one real 2WikiMQA record prepared."""

from __future__ import annotations

import random

from lcrag.data.longbench import load_longbench, split_passages
from lcrag.papers.longrag.lrginstruction import records


def test_silver_support_on_titles_and_answers():
    paragraphs = [
        "Grown Ups (film)\nGrown Ups is a 2010 comedy.",
        "Maria Bello\nMaria Bello is an actress.",
        "Jack Giarraputo\nA producer.",
        "The Boom\nbooming",
    ]
    labels = records.silver_support(paragraphs, "Who plays the wife in Grown Ups?", ["Maria Bello"])
    assert labels == ["title", "answer", "", ""]
    assert records.silver_support(["Bello\nx"], "Is Bellow here?", ["Bell"]) == [""]  # whole words only
    assert records.title("Alan Marshal (actor)\nAlan Marshal was ...") == "Alan Marshal"


def test_silver_support_on_a_real_record():
    item = load_longbench("2wikimqa").iloc[0]
    paragraphs = split_passages(item["context"], item["_id"])
    labels = records.silver_support(paragraphs, item["input"], item["answers"])
    support = {records.title(p): lab for p, lab in zip(paragraphs, labels, strict=True) if lab}
    assert item["input"] == "Who is Sobe (Sister Of Saint Anne)'s grandchild?"
    assert support == {"Sobe": "title", "Elizabeth": "answer"}


def test_sample_distractors_draws_between_two_and_all():
    sizes = set()
    for seed in range(200):
        drawn = records.sample_distractors(6, random.Random(seed))
        assert 2 <= len(drawn) <= 6 and len(set(drawn)) == len(drawn) and set(drawn) <= set(range(6))
        sizes.add(len(drawn))
    assert sizes == {2, 3, 4, 5, 6}
    assert records.sample_distractors(1, random.Random(0)) == [0]
    assert records.sample_distractors(0, random.Random(0)) == []


def test_fit_distractors_keeps_a_prefix_within_the_budget():
    assert records.fit_distractors(100, [50, 30, 40], 200) == 2
    assert records.fit_distractors(100, [50, 30, 40], 220) == 3
    assert records.fit_distractors(100, [150, 10], 200) == 0  # draw order: a long first one blocks the rest
    assert records.fit_distractors(300, [1], 200) == 0


def _words(text: str) -> int:
    return len(text.split())


def test_prepare_a_real_record():
    item = load_longbench("2wikimqa").iloc[0].to_dict()
    settings = records.Settings(min_context_tokens=100, max_instruction_tokens=2000)
    p = records.prepare(item, "2wikimqa", _words, settings)
    assert p["skip"] == "" and p["n_support"] == 2 and p["paragraphs"] == 10 and p["n_distractors"] == 8
    assert 2 <= p["n_drawn"] <= 8 and p["n_drawn_kept"] <= p["n_drawn"]
    assert all(s in p["content"] for s in p["support"])
    paragraphs = split_passages(item["context"], item["_id"])
    order = [paragraphs.index(x) for x in p["content"].split("\n") if x in paragraphs]
    assert order == sorted(order)  # the record's own order
    assert _words(p["content"]) <= 2000
    assert records.prepare(item, "2wikimqa", _words, settings) == p  # the draw is seeded per record


def test_prepare_skips_with_a_reason():
    item = load_longbench("2wikimqa").iloc[0].to_dict()
    assert records.prepare(item, "2wikimqa", _words, records.Settings(min_context_tokens=10**6))["skip"].startswith(
        "short context"
    )
    assert records.prepare(item, "2wikimqa", _words, records.Settings(max_instruction_tokens=50))["skip"].startswith(
        "supporting paragraphs over"
    )
    lonely = {**item, "answers": ["zzz qqq"], "input": "Who?"}
    assert records.prepare(lonely, "2wikimqa", _words)["skip"] == "no silver supporting paragraph"
    assert records.MIN_CONTEXT_TOKENS["musique"] == 2500 and records.MIN_CONTEXT_TOKENS["2wikimqa"] == 1500
