"""The grid of cells (needle × context length × depth, each with its haystack) and the order to ask them in, so
that llama.cpp reuses the longest prompt prefix; what an order costs in prefill tokens and time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from lcrag.papers.thesis.needle.haystack import BUFFER_TOKENS, haystack_tokens, make_haystack
from lcrag.papers.thesis.needle.needles import Needle


def lengths_for(model, lengths: Sequence[int], max_length: int = 0, answer_tokens: int = 64) -> list[int]:
    """The grid's context lengths a model can take: at most its window minus the answer (and ``max_length``)."""
    cap = model.info.context_window - answer_tokens
    if max_length:
        cap = min(cap, max_length)
    return sorted({int(n) for n in lengths if int(n) <= cap})


def needle_grid(model, essays: Sequence[str], lengths: Sequence[int], depths: Sequence[float],
                needles: Sequence[Needle], buffer: int = BUFFER_TOKENS) -> list[dict]:
    """One cell per needle x length x depth: the haystack and where its needle landed (no model call)."""
    if not lengths:
        raise ValueError(f"no context length fits {model.spec}")
    tok = model.tokenizer
    base = haystack_tokens(essays, tok.encode, max(lengths))
    cells = []
    for needle in needles:
        for length in lengths:
            for depth in depths:
                h = make_haystack(base, tok, length, depth, needle, buffer)
                cells.append({"model": model.spec, "needle": needle.name, "context_tokens": int(length),
                              "depth": float(depth), "needle_at": h.needle_at[0], "haystack_tokens": h.n_tokens,
                              "actual_depth": round(h.actual_depth, 2), "haystack": h, "_needle": needle})
    return cells


def length_check(grid, buffer: int = BUFFER_TOKENS) -> str:
    """One sentence that every haystack of ``grid`` (the rows of :func:`needle_grid`: ``context_tokens`` *L* and
    ``haystack_tokens``) is exactly *L* - ``buffer`` tokens long, needle included, counted from the run; a
    ValueError naming the first cells that are not."""
    off = grid[grid["haystack_tokens"] != grid["context_tokens"] - buffer]
    if len(off):
        first = off[["model", "needle", "context_tokens", "depth", "haystack_tokens"]].head(3).to_dict("records")
        raise ValueError(f"{len(off)} of {len(grid)} haystacks are not L - {buffer} tokens long: {first}")
    models = grid["model"].nunique()
    return (f"haystack_tokens = L - {buffer} in all {len(grid)} prompts of {models} model{'s' * (models != 1)}, "
            "in each model's own tokens.")


def cells_sentence(grid) -> str:
    """How many cells each model's grid has, in words, per needle when the needles' counts differ."""
    from lcrag.models.registry import title_of

    parts = []
    for model, g in grid.groupby("model", sort=False):
        per = g.groupby("needle", sort=False).size()
        each = (f"{int(per.iloc[0])} per needle" if per.nunique() == 1 else
                ", ".join(f"{int(n)} {needle}" for needle, n in per.items()))
        parts.append(f"{title_of(model)} {len(g)} ({each})")
    return f"{len(grid)} cells: {'; '.join(parts)}."


def prefix_order(cells: list[dict], how: str = "prefix") -> list[dict]:
    """The order in which to ask the cells.

    - ``prefix``: by needle position, latest first (ties: by needle, then longer haystack first). A prompt then
      shares with the previous one everything before its own needle (the haystacks of all lengths are prefixes of
      the same essay tokens), so llama.cpp evaluates only the tokens from its needle on: the least any order can
      cost; and at depth 0, where every length puts the same needle first, a shorter haystack follows a longer
      one with the same needle and costs nothing but the question;
    - ``length_depth``: for each length, descending depth (the prefix is shared within a length only);
    - ``kamradt``: Kamradt's loops (ascending length, ascending depth; needle by needle).
    """
    if how == "prefix":
        return sorted(cells, key=lambda c: (-c["needle_at"], c["needle"], -c["context_tokens"]))
    if how == "length_depth":
        return sorted(cells, key=lambda c: (c["context_tokens"], -c["depth"], c["needle"]))
    if how == "kamradt":
        return sorted(cells, key=lambda c: (c["needle"], c["context_tokens"], c["depth"]))
    raise ValueError(f"unknown order {how!r}: use prefix, length_depth or kamradt")


def prefill_cost(cells: Sequence[dict]) -> int:
    """Haystack tokens llama.cpp must evaluate for ``cells`` asked in this order with prefix reuse: each cell
    costs its tokens after the prefix it shares with the previous cell (a needle-position model of the cache)."""
    total, prev = 0, None
    for c in cells:
        shared = 0
        if prev is not None:
            shared = min(prev["needle_at"], c["needle_at"])
            if prev["needle_at"] == c["needle_at"] and prev["needle"] == c["needle"]:
                shared = min(prev["haystack_tokens"], c["haystack_tokens"])
        total += c["haystack_tokens"] - shared
        prev = c
    return total


#: The embedded models a run on one of them tests, the run's model first: the model-size axis inside the chapter.
EMBEDDED = (
    "local/qwen2.5-coder-1.5b-instruct",
    "local/smollm2-135m-instruct",
    "local/gemma3-270m",
    "local/qwen2.5-coder-0.5b-instruct",
)
RAG_MODES = ("longest", "all", "none")


def tested_models(run_spec: str, models: Sequence[str] = (), embedded: Sequence[str] = ()) -> list[str]:
    """The models a run tests: ``models`` when given; else, when the run's model is an embedded one, the run's
    model first and then the other ``embedded`` models (empty: every one of :data:`EMBEDDED`; the smoke and quick
    profiles name the two small ones); else the run's model alone, so a run on a user's model always asks it."""
    if models:
        return list(models)
    if run_spec in EMBEDDED:
        return [run_spec, *(m for m in (embedded or EMBEDDED) if m != run_spec)]
    return [run_spec]


@dataclass
class Setup:
    """What a needle run tests: the run's model, the models asked (``specs``), the judge, the essays the haystacks
    are cut from, each model's lengths and the needles."""

    run_model: Any
    specs: list[str]
    judge: Any
    essays: list[str]
    lengths: dict[str, list[int]]
    needles: list[Needle]

    def describe(self, depths: Sequence[float]) -> str:
        """One line per model (kind, window, tokenizer, lengths), then the depths, needles and judge."""
        from lcrag.models import get_model

        lines = []
        for s in self.specs:
            m = get_model(s)
            lines.append(f"{s}: {m.info.kind} model, {m.info.context_window}-token window, tokenizer "
                         f"{m.tokenizer.name}; lengths {self.lengths[s]}")
        lines.append(f"depths {list(depths)} | needles {[n.name for n in self.needles]} | judge {self.judge.spec}")
        return "\n".join(lines)


def setup(model: str | None, models: Sequence[str], judge: str, lengths: Sequence[int],
          lengths_by_model: dict, needles: Sequence[str], rag: str, answer_tokens: int,
          embedded: Sequence[str] = ()) -> Setup:
    """The chapter's parameters resolved: the models (:func:`tested_models` of ``models`` and ``embedded``), the
    judge (:func:`lcrag.models.roles.roles`: the default judge when none is named), each model's lengths
    (``lengths_by_model`` over ``lengths``, capped at its window); a ``rag`` mode other than :data:`RAG_MODES`
    raises ValueError before any model is asked."""
    from lcrag import data
    from lcrag.models import get_model
    from lcrag.models.roles import roles
    from lcrag.papers.thesis.needle.needles import needles_for

    if rag not in RAG_MODES:
        raise ValueError(f"rag must be 'longest', 'all' or 'none', not {rag!r}")
    roster = roles(model, judge=judge)
    specs = tested_models(roster.generator.spec, models, embedded)
    grid = {s: lengths_for(get_model(s), lengths_by_model.get(s, lengths), answer_tokens=answer_tokens)
            for s in specs}  # fmt: skip
    return Setup(roster.generator, specs, roster.judge, list(data.load_essays()["text"]), grid, needles_for(needles))


#: The orders :func:`order_costs` compares, as :func:`prefix_order` names them.
ORDERS = ("prefix", "length_depth", "kamradt")


def order_costs(cells: Mapping[str, list[dict]]) -> pd.DataFrame:
    """Per model (``cells``: model -> its grid's cells) and order of :data:`ORDERS`, the haystack tokens llama.cpp
    evaluates (:func:`prefill_cost`), beside asking each cell afresh (``no reuse``); ``vs_no_reuse``: the share of
    that."""
    rows = [{"model": m, "order": how, "tokens_evaluated": prefill_cost(prefix_order(cs, how))}
            for m, cs in cells.items() for how in ORDERS]
    rows += [{"model": m, "order": "no reuse", "tokens_evaluated": sum(c["haystack_tokens"] for c in cs)}
             for m, cs in cells.items()]
    t = pd.DataFrame(rows)
    return t.assign(vs_no_reuse=t["tokens_evaluated"] / t.groupby("model")["tokens_evaluated"].transform("max"))
