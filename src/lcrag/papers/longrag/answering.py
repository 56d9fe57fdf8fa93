"""LongRAG's generator over each component strategy, and the Full / Closed arms: one row per question and strategy.

6. **Generator**: LongBench's multi-hop prompt over the strategy's input (:func:`strategy_input`, one of
   :data:`lcrag.papers.longrag.names.STRATEGIES`), after the extractor and the CoT-guided filter have run once
   per question (:func:`answer_question`).

Beyond the paper: the **Full** arm (the record's whole LongBench context, middle-truncated to the window) and
the **Closed** arm (no passages) with the same generator. :func:`answer_questions` returns one row per question
and strategy; :func:`f1_table` averages them; :func:`settings_grid` runs R&B and E&F at other chunk size x top-k
settings (Tables 6-8); :func:`floor_sentence` says which cells of such a table are at the chapter's floor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lcrag.book.verdicts import FLOOR_SCORE, score_at_floor
from lcrag.metrics.qa import exact_match, qa_f1
from lcrag.papers.longrag.cot_filter import filtered, parse_status
from lcrag.papers.longrag.names import ARMS, STRATEGIES
from lcrag.papers.longrag.prompts import (
    CLOSED_BOOK_PROMPT,
    cot_prompt,
    extractor_prompt,
    filter_prompt,
    generator_prompt,
)
from lcrag.papers.longrag.retrieval import Retriever, dataset_index, source_paragraphs
from lcrag.progress import progress as bar


def strategy_input(strategy: str, chunks: Sequence[str], paragraphs: Sequence[str], extracted: str | None,
                   kept: Sequence[str] | None) -> str:
    """What the generator reads under ``strategy`` (the code joins every part with no separator)."""
    parts = {
        "R&B": lambda: list(chunks),
        "R&L": lambda: list(paragraphs),
        "Ext": lambda: [*chunks, extracted],
        "Fil": lambda: list(kept),
        "E&F": lambda: [*kept, extracted],
    }
    if strategy not in parts:
        raise ValueError(f"unknown strategy {strategy!r}; expected one of {STRATEGIES}")
    pieces = parts[strategy]()
    if any(p is None for p in pieces):
        raise ValueError(f"{strategy} needs the extractor and/or filter outputs")
    return "".join(pieces)


@dataclass
class Budgets:
    """Answer lengths in new tokens. The code allows 1000 for the extractor and the CoT; the tiny embedded models
    are capped lower by the chapter's parameters (a stated deviation)."""

    answer: int = 32
    extractor: int = 1000
    cot: int = 1000
    judgement: int = 32


def answer_question(
    item, retriever: Retriever, generator, component=None, *, k: int = 7,
    strategies: Sequence[str] = STRATEGIES, arms: Sequence[str] = (), budgets: Budgets | None = None,
    paragraphs: Sequence[str] = (), reserve: int = 64,
) -> list[dict]:
    """Run one question through every requested strategy and arm; one row each.

    ``item`` has ``question``, ``answers`` and (for the Full arm) ``context``; ``generator`` and ``component``
    (extractor and filter; default: the generator) are :class:`lcrag.models.client.Model`. Inputs longer than a
    model's window are middle-truncated (LongBench's rule, in the model's own tokens rather than ChatGLM's).
    """
    budgets = budgets or Budgets()
    component = component or generator
    unknown = set(strategies) - set(STRATEGIES) | set(arms) - set(ARMS)
    if unknown:
        raise ValueError(f"unknown strategies/arms {sorted(unknown)}")
    hits = retriever.retrieve(item.question, k) if strategies else []
    chunks = [h.text for h in hits]
    chunk_paragraph = retriever.chunks["paragraph_id"].to_numpy()

    def too_long_for(model) -> Callable[[str], bool]:
        limit = model.info.context_window - reserve
        return lambda text: model.count_tokens(text) >= limit

    def call(model, prompt: str, max_tokens: int):
        return model.ask(prompt, max_tokens=max_tokens, context_policy="truncate_middle")

    extracted = kept = None
    fallback = None
    extras: dict = {"n_component_calls": 0}
    if {"Ext", "E&F"} & set(strategies):
        sources = source_paragraphs(hits, chunk_paragraph, paragraphs, too_long_for(component))
        out = call(component, extractor_prompt(sources, item.question), budgets.extractor)
        extracted, extras["extracted"] = out.text, out.text
        extras["n_component_calls"] += 1
    if {"Fil", "E&F"} & set(strategies):
        cot = call(component, cot_prompt(chunks, item.question), budgets.cot).text
        keep = [parse_status(call(component, filter_prompt(c, item.question, cot), budgets.judgement).text)
                for c in chunks]
        kept, fallback = filtered(chunks, keep)
        extras.update(cot=cot, kept=[h.index for h, k_ in zip(hits, keep, strict=True) if k_],
                      filter_fallback=fallback)
        extras["n_component_calls"] += 1 + len(chunks)
    rl_paragraphs = (source_paragraphs(hits, chunk_paragraph, paragraphs, too_long_for(generator))
                     if "R&L" in strategies else [])

    rows = []
    for name in [*strategies, *arms]:
        if name == "Full":
            prompt = generator_prompt(item.context, item.question)
        elif name == "Closed":
            prompt = CLOSED_BOOK_PROMPT.format(question=item.question)
        else:
            prompt = generator_prompt(strategy_input(name, chunks, rl_paragraphs, extracted, kept), item.question)
        out = call(generator, prompt, budgets.answer)
        rows.append({
            "strategy": name, "answer": out.text.strip(), "f1": qa_f1(out.text, item.answers),
            "em": exact_match(out.text, item.answers), "input_tokens": generator.count_tokens(prompt),
            "prompt_tokens": out.prompt_tokens, "truncated": bool(out.truncation), "latency_s": out.latency_s,
            "chunks": [h.index for h in hits] if name in STRATEGIES else [],
            "filter_fallback": fallback if name in ("Fil", "E&F") else None,
            "filter_removed": len(chunks) - len(kept) if name in ("Fil", "E&F") else None,
        })
    return rows


def answer_questions(items: pd.DataFrame, retriever: Retriever, generator, component=None, *,
                     dataset: str, chunk_size: int, progress: bool = False, **kwargs) -> pd.DataFrame:
    """:func:`answer_question` over a table of questions: one row per question and strategy/arm, with
    ``dataset``, ``question_id``, ``chunk_size``, ``top_k``, ``generator`` and ``component`` columns."""
    rows = []
    iterator = bar(items.itertuples(), enabled=progress, total=len(items),
                   desc=f"{dataset} {chunk_size}x{kwargs.get('k', 7)}")
    component_spec = (component or generator).spec
    for item in iterator:
        for row in answer_question(item, retriever, generator, component, **kwargs):
            rows.append({"dataset": dataset, "question_id": item.question_id, "chunk_size": chunk_size,
                         "top_k": kwargs.get("k", 7), "generator": generator.spec, "component": component_spec,
                         **row})
    return pd.DataFrame(rows)


def answer_datasets(questions: dict[str, pd.DataFrame], index: dict, generator, component=None, *,
                    chunk_size: int, progress: bool = False, **kwargs) -> pd.DataFrame:
    """:func:`answer_questions` on every dataset of ``questions`` with its ``index`` entry (:func:`dataset_index`:
    records, corpus, retriever; the corpus's paragraphs feed R&L), the datasets' rows one after another."""
    return pd.concat([
        answer_questions(items, index[ds][2], generator, component, dataset=ds, chunk_size=chunk_size,
                         paragraphs=list(index[ds][1]["text"]), progress=progress, **kwargs)
        for ds, items in questions.items()
    ], ignore_index=True)


def transfer_table(results: pd.DataFrame, transfer: pd.DataFrame) -> pd.DataFrame:
    """F1 of E&F with the components moved to another model (``transfer``) beside R&B and E&F on the same
    questions with the generator's own components (``results``), per dataset, strategy and component model."""
    same = results[results["strategy"].isin(["R&B", "E&F"]) & results["question_id"].isin(transfer["question_id"])]
    return f1_table(pd.concat([same, transfer]), by=("dataset", "strategy", "component"))


def f1_table(results: pd.DataFrame, by: Sequence[str] = ("dataset", "strategy")) -> pd.DataFrame:
    """Mean F1 and EM (x 100, as the paper prints them) and the number of questions, per group."""
    g = results.groupby(list(by), sort=False)
    out = g.agg(f1=("f1", "mean"), em=("em", "mean"), n=("f1", "size"),
                input_tokens=("input_tokens", "mean")).reset_index()
    out[["f1", "em"]] = (100 * out[["f1", "em"]]).round(2)
    out["input_tokens"] = out["input_tokens"].round(0)
    return out


def page_size(n_questions: int, strategies: Sequence[str], arms: Sequence[str], chunk_size: int, top_k: int,
              grid_questions: int, transfer_questions: int, lrg_records: int) -> str:
    """What this run asks, from its parameters: the questions per dataset through which strategies and arms, and
    the questions (or records) of the grid, the transfer and LRGinstruction sections (the grid and the transfer
    read the first questions of the main run: at most ``n_questions``)."""
    def section(n: int, what: str, unit: str = "questions") -> str:
        return f"the {what} on the first {min(n, n_questions)} {unit} per dataset" if n else f"no {what}"

    return (f"**The size of this page**: {n_questions} questions per dataset through "
            f"{', '.join(strategies) or 'no strategy'} and the arms {', '.join(arms) or 'none'} at "
            f"{chunk_size}×{top_k}; {section(grid_questions, 'chunk-size × top-k grid (section 6)')}, "
            f"{section(transfer_questions, 'transfer (section 7)')}, "
            + (f"LRGinstruction (section 9) on {lrg_records} records per dataset." if lrg_records else
               "no LRGinstruction (section 9)."))


def floor_sentence(table: pd.DataFrame, cells: Sequence[str], what: str, main: pd.DataFrame | None = None) -> str:
    """What an :func:`f1_table` (F1 x 100, one row a cell named by the ``cells`` columns, the last of them the one
    the table compares: setting, component) can say about ``what``, written from the table: whether it compares
    anything, which cells are at the floor, a mean F1 below :data:`lcrag.book.verdicts.FLOOR_SCORE` (the rule of
    the chapter's claims, :func:`lcrag.papers.longrag.claims_common.floored_datasets`), and how many questions each
    rests on. With every cell at the floor, ``main`` (the :func:`f1_table` of every question at the default
    setting) gives the same strategies' F1 there, when some of it is above the floor: the floor is these questions'."""
    compared = table[cells[-1]].unique() if not table.empty else []
    if len(compared) < 2:
        ran = f"only {cells[-1]} {compared[0]} ran" if len(compared) else "no cell ran"
        return f"The table compares nothing ({ran}): it says nothing about {what}."
    at_floor = np.array([score_at_floor(f / 100) for f in table["f1"]], dtype=bool)
    per = _questions_per(table["n"])
    below = f"a mean F1 below {100 * FLOOR_SCORE:g} points"
    if not at_floor.any():
        return f"No cell of this table is at the floor ({below}); each rests on {per}."
    if not at_floor.all():
        low, high = int(at_floor.sum()), int((~at_floor).sum())
        which = (f"only {_cells(table[~at_floor], cells)} {'is' if high == 1 else 'are'} above it" if low > high
                 else _cells(table[at_floor], cells))
        return (f"{low} of the {len(table)} cells of this table {'is' if low == 1 else 'are'} at the floor ({below}): "
                f"{which}. A comparison with a cell at the floor says nothing about {what}; each cell rests on "
                f"{per}.")
    out = (f"Every one of the {len(table)} cells of this table is at the floor ({below}), on {per}: for this "
           f"model, the table says nothing about {what}.")
    if main is None:
        return out
    ref = main[main["strategy"].isin(table["strategy"]) & main["dataset"].isin(table["dataset"])]
    if ref.empty or all(score_at_floor(f / 100) for f in ref["f1"]):
        return out
    scores = ", ".join(" and ".join(f"{r.strategy} {r.f1:.1f}" for r in part.itertuples()) + f" on {ds}"
                       for ds, part in ref.groupby("dataset", sort=False))
    return (f"{out} Over {_questions_per(ref['n'])} at the default setting (section 3), the same strategies "
            f"score {scores}: the floor is that of these first questions, not of every question.")


def _cells(table: pd.DataFrame, cells: Sequence[str]) -> str:
    """``d 200×7 R&B (F1 6.1); ...``: each row's ``cells`` values and its F1 in points (a setting's ``*`` shown as
    ``×``: in Markdown two of them would set the text between in italics)."""
    return "; ".join(" ".join(str(r[c]).replace("*", "×") for c in cells) + f" (F1 {r['f1']:.1f})"
                     for _, r in table.iterrows())


def _questions_per(n: pd.Series) -> str:
    """``30 questions per dataset``, or ``3 to 6 questions a cell`` when the cells' counts differ."""
    sizes = sorted(n.unique())
    return f"{sizes[0]} questions per dataset" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]} questions a cell"


def settings_grid(results: pd.DataFrame, grid: Sequence[Sequence[int]], datasets: Sequence[str],
                  questions: dict[str, pd.DataFrame], n_questions: int, generator, component=None, *,
                  corpus_records: int = 0, embedder=None, reranker: str = "fusion", n_candidates: int = 100,
                  **kwargs) -> pd.DataFrame:
    """R&B and E&F at each (chunk size, top-k) of ``grid`` on the first ``n_questions`` of each dataset, next to
    the same questions' rows of ``results`` (the default setting); a ``setting`` column ("200*7")."""
    runs = []
    indexes: dict[tuple[str, int], tuple] = {}  # one per dataset and chunk size: 500*3 and 500*5 share theirs
    for size, k in grid:
        for ds in datasets:
            if (ds, size) not in indexes:
                indexes[ds, size] = dataset_index(ds, chunk_size=size, corpus_records=corpus_records,
                                                  embedder=embedder, reranker=reranker, n_candidates=n_candidates)
            _, corpus, retriever = indexes[ds, size]
            runs.append(answer_questions(questions[ds].head(n_questions), retriever, generator, component,
                                         dataset=ds, chunk_size=size, k=k, strategies=["R&B", "E&F"],
                                         paragraphs=list(corpus["text"]), **kwargs))
    firsts = {ds: set(questions[ds].head(n_questions)["question_id"]) for ds in datasets}
    first = np.array([qid in firsts.get(ds, ()) for ds, qid in zip(results["dataset"], results["question_id"],
                                                                   strict=True)], dtype=bool)
    base = results[results["strategy"].isin(["R&B", "E&F"]).to_numpy() & first]
    out = pd.concat([base, *runs], ignore_index=True)
    out["setting"] = out["chunk_size"].astype(str) + "*" + out["top_k"].astype(str)
    return out
