"""Token counting: the GGUF tokenizer's memo of long texts gives the same ids as encoding them again, and stays
within its token budget."""

from __future__ import annotations

from lcrag.models import model_files
from lcrag.models.registry import LOCAL_MODELS
from lcrag.text.tokens import GGUFTokenizer, _EncodeMemo


class _Counting:
    """A stand-in encoder (one id per word) that counts its calls: the memo's own logic, without a model."""

    def __init__(self):
        self.calls = 0

    def __call__(self, text: str) -> list[int]:
        self.calls += 1
        return [len(w) for w in text.split()]


def test_a_long_text_is_encoded_once_and_a_short_one_each_time():
    memo, enc = _EncodeMemo(), _Counting()
    long_text, short = "word " * 100, "a short question"
    first = memo.get(long_text, enc)
    first.append(-1)  # the caller's list is its own: the memo is not changed through it
    assert memo.get(long_text, enc) == [4] * 100 and enc.calls == 1
    memo.get(short, enc), memo.get(short, enc)
    assert enc.calls == 3


def test_the_least_recently_used_texts_leave_first_within_the_budget():
    memo, enc = _EncodeMemo(max_tokens=250), _Counting()
    a, b, c = ("alpha " * 100), ("beta " * 100), ("gamma " * 100)  # 100 ids each
    memo.get(a, enc), memo.get(b, enc)
    memo.get(a, enc)  # a is now the most recent
    memo.get(c, enc)  # 300 ids > 250: b, the least recent, leaves
    assert memo.tokens == 200 and list(memo._ids) == [a, c]
    calls = enc.calls
    memo.get(a, enc), memo.get(b, enc)
    assert enc.calls == calls + 1  # a was kept, b is encoded again
    huge = "x " * 300  # larger than the whole budget: encoded, never kept
    memo.get(huge, enc)
    assert huge not in memo._ids and memo.tokens <= 250


def test_the_memo_returns_the_model_tokenizers_own_ids():
    tok = GGUFTokenizer(str(model_files.gguf_path(LOCAL_MODELS["smollm2-135m-instruct"])))
    text = "The quick brown fox jumps over the lazy dog. " * 20
    fresh = tok._encode(text)
    assert tok.encode(text) == fresh and tok.encode(text) == fresh and len(fresh) > 100
    assert tok._memo.tokens == len(fresh)
