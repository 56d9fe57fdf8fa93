"""LongRAG (Zhao et al., EMNLP 2024): hybrid retrieval, long-context extractor, CoT-guided filter, generator.

The system as the released code runs it (``QingFei1/LongRAG`` at ``6bb0406``; inventory
``../shared/papers/longrag.md`` §1), re-implemented on the book's model layer:

1. **Corpus**: every LongBench context of a dataset split into its ``Passage N:`` paragraphs, deduplicated
   across the dataset's records and pooled (:func:`build_corpus`);
2. **Chunks**: the released clause chunker (:func:`lcrag.text.chunking.clause_chunks`), each chunk mapped to
   its paragraph (:func:`chunk_corpus`);
3. **Hybrid retriever**: dense bi-encoder over all chunks of the dataset (top ``n_candidates`` = 100), then a
   second-stage reranker to the top ``k`` (:class:`Retriever`);
4. **Extractor**: the chunks mapped back to their source paragraphs (:func:`source_paragraphs`, the code's
   ``s2l_doc``), one LLM call that writes the global information ``I_g``;
5. **CoT-guided filter**: one LLM call that writes a thought process over all chunks, then one call per chunk
   that answers ``{"status": ...}`` (:func:`parse_status`); nothing kept means everything kept
   (:func:`filtered`);
6. **Generator**: LongBench's multi-hop prompt over the strategy's input (:data:`STRATEGIES`).

Beyond the paper: the **Full** arm (the record's whole LongBench context, middle-truncated to the window) and
the **Closed** arm (no passages) with the same generator. :func:`answer_questions` returns one row per question
and strategy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lcrag.data.longbench import split_passages
from lcrag.metrics.qa import exact_match, qa_f1
from lcrag.retrieval.base import Hit
from lcrag.text import as_text
from lcrag.text.chunking import clause_chunks

STRATEGIES = ("R&B", "R&L", "Ext", "Fil", "E&F")
"""The paper's five component strategies (Table 3): what the generator reads.

- ``R&B`` (vanilla RAG): the top-k reranked chunks;
- ``R&L`` (RAG-Long): the chunks' source paragraphs;
- ``Ext``: the chunks, then the extractor's output ``I_g``;
- ``Fil``: the chunks the filter kept ``I_d``;
- ``E&F`` (LongRAG): ``I_d`` then ``I_g``.
"""
ARMS = ("Full", "Closed")
"""Beyond the paper: the whole context (middle-truncated) and no context, same generator and prompt."""

# --------------------------------------------------------------------------- prompts (released code, verbatim)

GENERATOR_PROMPT = (
    "Answer the question based on the given passages. Only give me the answer and do not output any other "
    "words.\n\nThe following are given passages.\n{input}\n\nAnswer the question based on the given passages. "
    "Only give me the answer and do not output any other words.\n\nQuestion: {question}\nAnswer:"
)
"""LongBench's multi-hop QA prompt, the generator prompt of ``main.py`` (``create_prompt``)."""

CLOSED_BOOK_PROMPT = (
    "Answer the question. Only give me the answer and do not output any other words.\n\n"
    "Question: {question}\nAnswer:"
)
"""Ours (the released ``--raw_pred`` closed-book path crashes): the generator prompt without passages."""

EXTRACTOR_PROMPT = (
    "{content}.\n\nBased on the above background, please output the information you need to cite to answer the "
    "question below.\n{question}"
)
COT_PROMPT = (
    "{content}\n\nPlease combine the above information and give your thinking process for the following "
    "question:{question}."
)
FILTER_PROMPT = (
    "Given an article:{content}\nQuestion: {question}.\nThought process:{cot}.\nYour task is to use the thought "
    "process provided to decide whether you need to cite the article to answer this question. If you need to "
    "cite the article, set the status value to True. If not, set the status value to False. Please output the "
    'response in the following json format: {{"status": "{{the value of status}}"}}'
)


def generator_prompt(passages: str, question: str) -> str:
    return GENERATOR_PROMPT.format(input=passages, question=question)


def extractor_prompt(paragraphs: Sequence[str], question: str) -> str:
    """The extractor reads the source paragraphs joined with no separator (as the code does)."""
    return EXTRACTOR_PROMPT.format(content="".join(paragraphs), question=question)


def cot_prompt(chunks: Sequence[str], question: str) -> str:
    """The CoT stage reads all retrieved chunks joined with newlines (the one place the code uses one)."""
    return COT_PROMPT.format(content="\n".join(chunks), question=question)


def filter_prompt(chunk: str, question: str, cot: str) -> str:
    return FILTER_PROMPT.format(content=chunk, question=question, cot=cot)


# --------------------------------------------------------------------------- corpus and chunks


def build_corpus(records: pd.DataFrame) -> pd.DataFrame:
    """A dataset's retrieval corpus: one row per distinct paragraph of all its records' contexts.

    Columns ``paragraph_id`` (0-based, first-seen order), ``text`` (without its ``Passage N:`` label: the same
    paragraph carries different labels in different records), ``words``, ``first_record`` (``_id`` of the first
    record it appears in) and ``n_records`` (how many records contain it).
    """
    seen: dict[str, int] = {}
    rows: list[dict] = []
    for rid, context in zip(records["_id"], records["context"], strict=True):
        for text in dict.fromkeys(split_passages(context, rid)):  # a paragraph twice in one record counts once
            if text in seen:
                rows[seen[text]]["n_records"] += 1
                continue
            seen[text] = len(rows)
            rows.append({"paragraph_id": len(rows), "text": text, "words": len(text.split()),
                         "first_record": rid, "n_records": 1})
    return pd.DataFrame(rows, columns=["paragraph_id", "text", "words", "first_record", "n_records"])


def chunk_corpus(corpus: pd.DataFrame, chunk_size: int = 200, min_units: int = 2, overlap: int = 2) -> pd.DataFrame:
    """Every paragraph cut by the released chunker: ``chunk_id``, ``paragraph_id``, ``text``."""
    rows = [
        (pid, chunk)
        for pid, text in zip(corpus["paragraph_id"], corpus["text"], strict=True)
        for chunk in clause_chunks(text, chunk_size, min_units, overlap)
    ]
    df = pd.DataFrame(rows, columns=["paragraph_id", "text"])
    df.insert(0, "chunk_id", range(len(df)))
    return df


def questions(records: pd.DataFrame) -> pd.DataFrame:
    """LongBench records as the questions the pipeline answers: ``question_id``, ``question``, ``answers``,
    ``context`` (for the Full arm) and ``index`` (the row in the full LongBench file)."""
    return records.rename(columns={"_id": "question_id", "input": "question"})[
        ["question_id", "question", "answers", "context", "index"]
    ].reset_index(drop=True)


# --------------------------------------------------------------------------- retrieval


@dataclass
class Retriever:
    """Dense first stage over all chunks of a dataset, then a second-stage reranker.

    ``embedder`` is any :mod:`lcrag.models.embeddings` embedder (MiniLM offline by default, in place of the
    paper's multilingual-e5-large); ``reranker`` any :class:`lcrag.retrieval.rerank.Reranker` (the paper's
    cross-encoders cannot be downloaded here; the offline default is BM25 + dense fusion over the candidates).
    No ``query:``/``passage:`` prefixes, as in the released code.
    """

    chunks: pd.DataFrame
    embedder: object
    reranker: object
    n_candidates: int = 100

    def __post_init__(self):
        from lcrag.retrieval.dense import DenseRetriever

        self.dense = DenseRetriever(list(self.chunks["text"]), self.embedder)

    def retrieve(self, question: str, k: int) -> list[Hit]:
        """The top ``k`` chunks after reranking the top ``n_candidates`` dense hits (``Hit.index`` = chunk_id)."""
        candidates = self.dense.rank(question, self.n_candidates)
        return self.reranker.rerank(question, candidates, k)


def source_paragraphs(
    hits: Sequence[Hit], chunk_paragraph: Sequence[int], paragraphs: Sequence[str], too_long: Callable[[str], bool]
) -> list[str]:
    """The released ``s2l_doc``: each retrieved chunk replaced by its source paragraph, in rank order.

    A paragraph already included is skipped (so the best-ranked chunk decides its place); a paragraph that
    ``too_long`` (at least the model's input length) is replaced by the chunk itself, every time it occurs.
    """
    included: set[int] = set()
    out: list[str] = []
    for hit in hits:
        pid = int(chunk_paragraph[hit.index])
        text = paragraphs[pid]
        if too_long(text):
            out.append(hit.text)
        elif pid not in included:
            included.add(pid)
            out.append(text)
    return out


def make_reranker(name: str, embedder):
    """``fusion`` (offline default: BM25 + dense cosine over the candidates, reciprocal-rank fused), ``dense``
    (keep the first stage's order), or the path of a local sentence-transformers cross-encoder folder (the
    paper's ``mmarco-mMiniLMv2`` or the code's ``ms-marco-MiniLM-L-12-v2``, where one has been downloaded)."""
    from lcrag.retrieval.rerank import CrossEncoderReranker, FusionReranker

    if name == "fusion":
        return FusionReranker(embedder)
    if name == "dense":
        return _KeepOrder()
    return CrossEncoderReranker(name)


class _KeepOrder:
    def rerank(self, query: str, hits: Sequence[Hit], k: int | None = None) -> list[Hit]:
        return list(hits[:k])


def dataset_index(dataset: str, *, chunk_size: int = 200, corpus_records: int = 0, embedder=None,
                  reranker: str = "fusion", n_candidates: int = 100):
    """Everything retrieval needs for one dataset: ``(records, corpus, retriever)``.

    ``corpus_records`` > 0 pools only the first records' paragraphs (the smoke profile); 0 pools them all.
    """
    from lcrag.data import load_longbench
    from lcrag.models.embeddings import get_embedder

    records = load_longbench(dataset)
    pool = records.head(corpus_records) if corpus_records else records
    corpus = build_corpus(pool)
    embedder = embedder or get_embedder()
    retriever = Retriever(chunk_corpus(corpus, chunk_size), embedder, make_reranker(reranker, embedder),
                          n_candidates)
    return records, corpus, retriever


# --------------------------------------------------------------------------- filter


_TRUE = re.compile("True|true")


def parse_status(response: str | None) -> bool:
    """A filter judgement as the released code reads it: JSON ``{"status": ...}`` whose value is "true" in any
    case; if the response is not such JSON, whether it contains ``True`` or ``true`` anywhere."""
    text = as_text(response)
    try:
        value = json.loads(text)["status"]
        return str(value).lower() == "true"
    except (ValueError, TypeError, KeyError, AttributeError):
        return bool(_TRUE.search(text))


def filtered(chunks: Sequence[str], keep: Sequence[bool]) -> tuple[list[str], bool]:
    """The chunks judged relevant, and whether the code's fallback fired (none kept: all are kept)."""
    if len(chunks) != len(keep):
        raise ValueError(f"{len(keep)} judgements for {len(chunks)} chunks")
    kept = [c for c, k in zip(chunks, keep, strict=True) if k]
    return (kept, False) if kept else (list(chunks), True)


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


# --------------------------------------------------------------------------- one question, every strategy


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
        })
    return rows


def answer_questions(items: pd.DataFrame, retriever: Retriever, generator, component=None, *,
                     dataset: str, chunk_size: int, progress: bool = False, **kwargs) -> pd.DataFrame:
    """:func:`answer_question` over a table of questions: one row per question and strategy/arm, with
    ``dataset``, ``question_id``, ``chunk_size``, ``top_k``, ``generator`` and ``component`` columns."""
    rows = []
    iterator = items.itertuples()
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(iterator, total=len(items), desc=f"{dataset} {chunk_size}x{kwargs.get('k', 7)}")
    component_spec = (component or generator).spec
    for item in iterator:
        for row in answer_question(item, retriever, generator, component, **kwargs):
            rows.append({"dataset": dataset, "question_id": item.question_id, "chunk_size": chunk_size,
                         "top_k": kwargs.get("k", 7), "generator": generator.spec, "component": component_spec,
                         **row})
    return pd.DataFrame(rows)


def f1_table(results: pd.DataFrame, by: Sequence[str] = ("dataset", "strategy")) -> pd.DataFrame:
    """Mean F1 and EM (x 100, as the paper prints them) and the number of questions, per group."""
    g = results.groupby(list(by), sort=False)
    out = g.agg(f1=("f1", "mean"), em=("em", "mean"), n=("f1", "size"),
                input_tokens=("input_tokens", "mean")).reset_index()
    out[["f1", "em"]] = (100 * out[["f1", "em"]]).round(2)
    out["input_tokens"] = out["input_tokens"].round(0)
    return out


def corpus_counts(corpora: dict[str, pd.DataFrame], chunks: dict[str, pd.DataFrame],
                  records: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per dataset: records, passages before deduplication, distinct paragraphs, mean words, chunks."""
    rows = []
    for name, corpus in corpora.items():
        rows.append({"dataset": name, "records": len(records[name]),
                     "passages": int(records[name]["n_passages"].sum()), "paragraphs": len(corpus),
                     "mean_words": round(float(np.mean(corpus["words"])), 1), "chunks": len(chunks[name])})
    return pd.DataFrame(rows)


def settings_grid(results: pd.DataFrame, grid: Sequence[Sequence[int]], datasets: Sequence[str],
                  questions: dict[str, pd.DataFrame], n_questions: int, generator, component=None, *,
                  corpus_records: int = 0, embedder=None, reranker: str = "fusion", n_candidates: int = 100,
                  **kwargs) -> pd.DataFrame:
    """R&B and E&F at each (chunk size, top-k) of ``grid`` on the first ``n_questions`` of each dataset, next to
    the same questions' rows of ``results`` (the default setting); a ``setting`` column ("200*7")."""
    runs = []
    for size, k in grid:
        for ds in datasets:
            _, corpus, retriever = dataset_index(ds, chunk_size=size, corpus_records=corpus_records,
                                                 embedder=embedder, reranker=reranker, n_candidates=n_candidates)
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
