"""The needles and their questions: Kamradt's San Francisco needle, the thesis's laser needle (whose question is
ours), and RULER-style variants (several needle sentences: one key among distractors, or one key with several
values). A :class:`Needle` scores an answer itself (deterministic recall).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from lcrag.metrics import needle as metrics

SIMPLE_NEEDLE = "The best thing to do in San Francisco is eat a sandwich and sit in Dolores Park on a sunny day."
SIMPLE_QUESTION = "What is the best thing to do in San Francisco?"
# The thesis's second needle, from "a 2024 academic paper" it does not cite. Its question is not stated anywhere:
# this one is ours (the inventory's suggestion, §4.2 item 12), and the chapter flags it.
COMPLEX_NEEDLE = (
    "A simple cost-effective laser diode can selectively amplify only one sideband of a "
    "fiber-electrooptically-modulated seed laser and produce moderate-power phase-locked light with sub-Hz "
    "relative linewidth and tunable difference frequencies up to 15 GHz."
)
COMPLEX_QUESTION = "What can a simple cost-effective laser diode do?"


@dataclass(frozen=True)
class Needle:
    """A needle, the question that retrieves it, and who wrote the question."""

    name: str
    text: str
    question: str
    question_by: str = "Kamradt"  # "Kamradt" | "ours" | "RULER"
    values: tuple[str, ...] = ()  # RULER variants: the values the answer must contain (empty: needle words)
    parts: tuple[str, ...] = ()  # RULER variants: several needle sentences, inserted apart

    @property
    def sentences(self) -> tuple[str, ...]:
        return self.parts or (self.text,)

    def score(self, answer: str) -> float:
        """Deterministic recall of this needle in an answer (0..1)."""
        if self.values:
            return metrics.values_recall(answer, list(self.values))
        return metrics.answer_recall(answer, self.text, self.question)


NEEDLES = {
    "simple": Needle("simple", SIMPLE_NEEDLE, SIMPLE_QUESTION, "Kamradt"),
    "complex": Needle("complex", COMPLEX_NEEDLE, COMPLEX_QUESTION, "ours"),
}


# ----------------------------------------------------------------------------- RULER-style variants

_RULER_WORDS = (
    "amber anchor apple arrow basket beacon bridge candle canyon cobalt comet copper crystal desert falcon feather "
    "forest garnet glacier harbor hollow island ivory jasper lantern maple marble meadow mirror orchid pebble "
    "pepper pillow prism quartz raven river saddle silver spruce summit thistle timber velvet willow"
).split()
RULER_TEMPLATE = "One of the special magic numbers for {key} is: {value}."
#: The RULER-style variants :func:`ruler_needle` builds.
RULER_VARIANTS = ("multi_key", "multi_value")


def ruler_needle(kind: str, n: int = 4, seed: int = 0) -> Needle:
    """A RULER-style variant (Hsieh et al. 2024): ``n`` needle sentences "One of the special magic numbers for
    <key> is: <7 digits>." inserted apart in the haystack.

    - ``multi_key``: ``n`` different keys; the question asks for the first key's number (the others distract);
    - ``multi_value``: one key with ``n`` numbers; the question asks for all of them.

    Keys and numbers come from a seeded generator, so a variant is the same on every run.
    """
    rng = random.Random(f"{kind}-{n}-{seed}")
    keys = ["-".join(rng.sample(_RULER_WORDS, 2)) for _ in range(n)]
    values = [str(rng.randrange(1_000_000, 10_000_000)) for _ in range(n)]
    if kind == "multi_key":
        parts = tuple(RULER_TEMPLATE.format(key=k, value=v) for k, v in zip(keys, values, strict=True))
        question = f"What is the special magic number for {keys[0]} mentioned in the provided text?"
        wanted = (values[0],)
    elif kind == "multi_value":
        parts = tuple(RULER_TEMPLATE.format(key=keys[0], value=v) for v in values)
        question = f"What are all the special magic numbers for {keys[0]} mentioned in the provided text?"
        wanted = tuple(values)
    else:
        raise ValueError(f"unknown RULER variant {kind!r}: use {' or '.join(RULER_VARIANTS)}")
    return Needle(kind, " ".join(parts), question, "RULER", values=wanted, parts=parts)


def needles_for(names: Sequence[str]) -> list[Needle]:
    """Needles by name: ``simple``, ``complex``, ``multi_key``, ``multi_value``."""
    out = []
    for name in names:
        if name in NEEDLES:
            out.append(NEEDLES[name])
        elif name in RULER_VARIANTS:
            out.append(ruler_needle(name))
        else:
            raise ValueError(f"unknown needle {name!r}: use {', '.join([*NEEDLES, *RULER_VARIANTS])}")
    return out
