"""LRGinstruction's pre-processing (App. C.1): silver supporting labels, the length test, the distractor draw.

:func:`prepare` turns one LongBench record into what the construction needs (its supporting paragraphs, the drawn
distractors that fit the token budget, the ``{content}`` of its instructions) or names why it is unusable;
:class:`Settings` holds the pipeline's knobs (the paper's values unless said otherwise).

Deviation forced by the data: LongBench records carry no supporting-paragraph labels (the paper used IRCoT's
training splits, which do), so :func:`silver_support` labels a paragraph supporting when its title is named in
the question or it contains a gold answer.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from lcrag.data.longbench import split_passages
from lcrag.metrics.qa import normalize_answer
from lcrag.papers.longrag.lrginstruction.prompts import EXT_RESULT, fill

MIN_CONTEXT_TOKENS = {"hotpotqa": 1500, "2wikimqa": 1500, "2wikimultihopqa": 1500, "musique": 2500}
"""App. C.1 / ``gen_LRGinstruction.py``: a record whose paragraphs total fewer tokens is "short" and discarded."""
MIN_RESPONSE_TOKENS = 20
"""App. C.2-C.3: a [STEP-1] output shorter than this is discarded (the code's ``--min_res_tokens``)."""
MAX_INSTRUCTION_TOKENS = 7000
"""App. C.5: "each multi-hop instruction is < 7k tokens"."""


def title(paragraph: str) -> str:
    """A LongBench paragraph's Wikipedia title: its first line, without a trailing "(disambiguation)"."""
    return re.sub(r"\s*\([^()]*\)\s*$", "", paragraph.split("\n", 1)[0]).strip()


def silver_support(paragraphs: Sequence[str], question: str, answers: Sequence[str]) -> list[str]:
    """Silver supporting labels, one per paragraph: "title" (its title is named in the question), "answer" (it
    contains a gold answer), "title+answer", or "" (a distractor). Matching is on LongBench-normalised text, on
    whole words.

    A stand-in for the ``is_supporting`` labels of the paper's training data, which LongBench records lack.
    """
    q = f" {normalize_answer(question)} "
    golds = [f" {g} " for g in (normalize_answer(a) for a in answers) if g]
    labels = []
    for p in paragraphs:
        t = normalize_answer(title(p))
        text = f" {normalize_answer(p)} "
        named = bool(t) and f" {t} " in q
        has_answer = any(g in text for g in golds)
        labels.append("+".join(k for k, on in (("title", named), ("answer", has_answer)) if on))
    return labels


def sample_distractors(n: int, rng: random.Random) -> list[int]:
    """App. C.1: a number drawn uniformly from [2, n] (all of them when n < 2), then that many distinct
    distractor positions, in draw order."""
    if n <= 0:
        return []
    k = rng.randint(min(2, n), n)
    return rng.sample(range(n), k)


def fit_distractors(support_tokens: int, distractor_tokens: Sequence[int], budget: int) -> int:
    """How many of the drawn distractors (taken in draw order) fit beside the support in ``budget`` tokens."""
    used, kept = support_tokens, 0
    for n in distractor_tokens:
        if used + n > budget:
            break
        used, kept = used + n, kept + 1
    return kept


@dataclass(frozen=True)
class Settings:
    """The pipeline's knobs; the paper's values unless said otherwise."""

    min_context_tokens: int | None = None  # None: the paper's per-dataset threshold (MIN_CONTEXT_TOKENS)
    min_response_tokens: int = MIN_RESPONSE_TOKENS
    max_instruction_tokens: int = MAX_INSTRUCTION_TOKENS
    step1_tokens: int = 1000  # the code's max new tokens for [STEP-1]
    judge_tokens: int = 1000  # the code's max new tokens for [STEP-2]; a JSON verdict needs ~10
    rule: str = "strict"  # "strict" or "code" (see Judgement.accepted)
    seed: int = 42  # the released generator sets none


def prepare(
    item: Mapping, dataset: str, count_tokens: Callable[[str], int], settings: Settings | None = None
) -> dict:
    """Pre-processing (App. C.1) of one LongBench record: labels, the length test, the distractor draw and the
    ``{content}`` of its instructions. Pure (given ``count_tokens``); ``skip`` names why a record is unusable.

    ``item`` (a LongBench record as a dict) has ``_id``, ``input``, ``answers`` and ``context``. The draw uses ``random.Random(f"{seed}:{_id}")``,
    so a record gets the same draw whatever else is run.
    """
    settings = settings or Settings()
    rid, question, answers = item["_id"], item["input"], list(item["answers"])
    paragraphs = split_passages(item["context"], rid)
    labels = silver_support(paragraphs, question, answers)
    support = [i for i, lab in enumerate(labels) if lab]
    others = [i for i, lab in enumerate(labels) if not lab]
    sizes = [count_tokens(p) for p in paragraphs]
    threshold = settings.min_context_tokens or MIN_CONTEXT_TOKENS.get(dataset, 1500)
    rng = random.Random(f"{settings.seed}:{rid}")
    drawn = [others[j] for j in sample_distractors(len(others), rng)]
    frame = count_tokens(fill(EXT_RESULT, content="", question=question)) + 16
    support_tokens = sum(sizes[i] for i in support) + len(support)
    kept = fit_distractors(
        support_tokens, [sizes[i] + 1 for i in drawn], settings.max_instruction_tokens - frame
    )
    chosen = sorted(support + drawn[:kept])  # P_s ∪ P_d in the record's own order
    skip = ""
    if sum(sizes) < threshold:
        skip = f"short context (< {threshold} tokens)"
    elif not support:
        skip = "no silver supporting paragraph"
    elif support_tokens + frame > settings.max_instruction_tokens:
        skip = f"supporting paragraphs over {settings.max_instruction_tokens} tokens"
    return {
        "dataset": dataset,
        "record_id": rid,
        "question": question,
        "answer": answers[0],
        "context_tokens": sum(sizes),
        "paragraphs": len(paragraphs),
        "n_support": len(support),
        "support_titles": " | ".join(f"{title(paragraphs[i])} [{labels[i]}]" for i in support),
        "n_distractors": len(others),
        "n_drawn": len(drawn),
        "n_drawn_kept": kept,
        "skip": skip,
        "support": [paragraphs[i] for i in support],
        "distractors": [paragraphs[i] for i in others],
        "content": "\n".join(paragraphs[i] for i in chosen),
    }
