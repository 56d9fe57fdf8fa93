"""The needle chapter's haystacks (lcrag.papers.thesis.needle.haystack), built with the models' real tokenizers:
Kamradt's trimming token-exact, the needle at a sentence start before its depth, RULER's variants in order."""

from __future__ import annotations

import pytest

from lcrag.models import get_model
from lcrag.papers.thesis.needle import haystack
from lcrag.papers.thesis.needle import needles as needle_texts

SMOL, GEMMA = "local/smollm2-135m-instruct", "local/gemma3-270m"


@pytest.mark.parametrize("spec", [SMOL, GEMMA])
def test_needle_goes_at_the_last_sentence_start_before_the_depth(spec, essays):
    tok = get_model(spec).tokenizer
    periods = set(tok.encode("."))
    base = haystack.haystack_tokens(essays, tok.encode, 4000)
    for needle in needle_texts.needles_for(["simple", "complex"]):
        n_needle = len(tok.encode("\n" + needle.text + "\n"))
        hay = base[: 4000 - haystack.BUFFER_TOKENS - n_needle]
        for depth in (0, 10, 33, 50, 77, 90):
            h = haystack.make_haystack(base, tok, 4000, depth, needle)
            at, cut = h.needle_at[0], int(len(hay) * depth / 100)
            assert at <= cut
            assert at == 0 or hay[at - 1] in periods  # right after a period: a sentence boundary
            assert not any(t in periods for t in hay[at:cut])  # and the last one at or before the depth
            assert cut - at < 150  # a sentence, not a paragraph, away
            text_before, _, text_after = h.text.partition("\n" + needle.text + "\n")
            assert text_after, "the needle is in the text, framed by newlines"
            assert depth == 0 or text_before.rstrip().endswith(".")
            assert tok.decode(hay[:at]) == text_before
        end = haystack.make_haystack(base, tok, 4000, 100, needle)
        assert end.needle_at[0] == len(hay) and end.text.endswith(needle.text + "\n")


@pytest.mark.parametrize("spec", [SMOL, GEMMA])
def test_haystack_is_token_exact(spec, essays):
    """Kamradt's trimming, in the model's tokens: haystack + needle = length - 200 exactly; the decoded text,
    re-encoded, loses at most one token where the needle meets the haystack (a merge across a seam)."""
    m = get_model(spec)
    tok = m.tokenizer
    lengths = [1000, 3000, 7500] + ([16000] if spec == GEMMA else [])
    base = haystack.haystack_tokens(essays, tok.encode, max(lengths))
    diffs = []
    for length in lengths:
        for depth in (0, 10, 25, 50, 75, 90, 100):
            for needle in needle_texts.needles_for(["simple", "complex"]):
                h = haystack.make_haystack(base, tok, length, depth, needle)
                assert h.n_tokens == length - haystack.BUFFER_TOKENS
                diffs.append(len(tok.encode(h.text)) - (length - haystack.BUFFER_TOKENS))
    assert min(diffs) >= -1 and max(diffs) <= 0
    assert diffs.count(0) > len(diffs) / 2


def test_the_essays_repeat_when_too_short(essays):
    tok = get_model(SMOL).tokenizer
    one = tok.encode("".join(essays))
    more = haystack.haystack_tokens(essays, tok.encode, len(one) + 500)
    assert len(more) == len(one) + 500 and more[: len(one)] == one
    with pytest.raises(ValueError, match="no room"):
        haystack.make_haystack(one, tok, 250, 50, needle_texts.NEEDLES["complex"])
    with pytest.raises(ValueError, match="depth"):
        haystack.insertion_point(one[:100], 101, {13})


def test_ruler_variants_insert_every_needle_in_order(essays):
    tok = get_model(SMOL).tokenizer
    base = haystack.haystack_tokens(essays, tok.encode, 3000)
    for kind in ("multi_key", "multi_value"):
        needle = needle_texts.ruler_needle(kind)
        h = haystack.make_haystack(base, tok, 3000, 20, needle)
        assert h.n_tokens == 3000 - haystack.BUFFER_TOKENS
        positions = [h.text.index(p) for p in needle.parts]
        assert positions == sorted(positions) and len(set(positions)) == 4
        assert h.actual_depth <= 20
    assert needle_texts.ruler_needle("multi_key") == needle_texts.ruler_needle("multi_key")  # seeded: the same every run
    assert len(needle_texts.ruler_needle("multi_value").values) == 4 and len(needle_texts.ruler_needle("multi_key").values) == 1


def test_quickstart_haystack_is_unchanged(essays):
    """The quickstart's recorded prompts depend on build_haystack's old framing (a space each side)."""
    m = get_model(SMOL)
    hay = haystack.build_haystack(m, essays, 1000, 50)
    assert " " + needle_texts.SIMPLE_NEEDLE + " " in hay
    assert len(m.tokenizer.encode(hay)) in (799, 800)
