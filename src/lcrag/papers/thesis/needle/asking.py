"""Asking the model: Kamradt's three messages (system, the haystack, the question; one completion text for a base
model), every cell with the full haystack (:func:`answer_cells`) or with the top-k BM25 chunks of it
(:func:`rag_cells`), each answer scored by its needle's deterministic recall.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from lcrag.papers.thesis.needle.needles import SIMPLE_QUESTION, needles_for
from lcrag.papers.thesis.needle.plan import lengths_for, needle_grid, prefix_order
from lcrag.retrieval import BM25Retriever
from lcrag.text import counts_in_words
from lcrag.text.chunking import recursive_split

SYSTEM = "You are a helpful AI bot that answers questions for a user. Keep your response short and direct"
QUESTION_SUFFIX = " Don't give information outside the document or repeat your findings"


def needle_messages(haystack: str, question: str = SIMPLE_QUESTION) -> list[dict]:
    """Kamradt's three messages: system, the context, the question."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": haystack},
        {"role": "user", "content": question + QUESTION_SUFFIX},
    ]


def completion_prompt(haystack: str, question: str = SIMPLE_QUESTION) -> str:
    """Kamradt's three messages as one text for a base model (no roles), ending with an answer cue."""
    return f"{SYSTEM}\n\n{haystack}\n\n{question}{QUESTION_SUFFIX}\nAnswer:"


def request_for(model, haystack: str, question: str, max_tokens: int) -> tuple[str, dict]:
    """The call to make for one cell: ``("chat", kwargs)`` for chat models, ``("complete", kwargs)`` for base
    models (a completion-style prompt; the answer stops at a blank line or a new "Question"/"Answer:" line)."""
    if model.info.kind == "chat":
        return "chat", {"messages": needle_messages(haystack, question), "max_tokens": max_tokens,
                        "temperature": 0.0}
    return "complete", {"prompt": completion_prompt(haystack, question), "max_tokens": max_tokens,
                        "temperature": 0.0, "stop": ["\n\n", "\nQuestion", "\nAnswer:"]}


def _ask(model, cells: list[dict], make: Callable[[dict], tuple[str, dict]], progress: bool) -> list[dict]:
    """Each cell with the answer to its request, through :meth:`lcrag.models.Model.map` (in order, one at a time on
    an embedded model, whose prefix cache the order serves; several at once on a remote one)."""
    calls = [make(c) for c in cells]
    methods = {method for method, _ in calls}
    if len(methods) > 1:
        raise ValueError(f"one kind of call per model, not {sorted(methods)}")
    answers = model.map(methods.pop(), [kwargs for _, kwargs in calls], progress=progress) if calls else []
    return [{**c, "response": r.text, "prompt_tokens": r.prompt_tokens, "completion_tokens": r.completion_tokens,
             "latency_s": r.latency_s, "source": r.source} for c, r in zip(cells, answers, strict=True)]


def answer_cells(model, cells: list[dict], max_tokens: int = 64, order: str = "prefix",
                 progress: bool = False) -> pd.DataFrame:
    """Ask ``model`` every cell with the full haystack (setting ``full``), in :func:`prefix_order`; score each
    answer deterministically (``recall``: :meth:`Needle.score`)."""
    ordered = prefix_order(cells, order)
    rows = _ask(model, ordered, lambda c: request_for(model, c["haystack"].text, c["_needle"].question,
                                                      max_tokens), progress)
    for i, r in enumerate(rows):
        r["setting"], r["call_order"] = "full", i
    return _tidy(rows)


def rag_context(haystack: str, question: str, top_k: int = 5, chunk_size: int = 512,
                chunk_overlap: int = 50) -> tuple[str, list[int]]:
    """The top-k BM25 chunks of the haystack for the question (the thesis's 512/50 splitter and BM25), in
    document order, joined by blank lines; and the chunk indices kept."""
    chunks = recursive_split(haystack, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    kept = sorted(h.index for h in BM25Retriever(chunks).rank(question, top_k))
    return "\n\n".join(chunks[i] for i in kept), kept


def rag_cells(model, cells: list[dict], top_k: int = 5, max_tokens: int = 64, progress: bool = False,
              chunk_size: int = 512, chunk_overlap: int = 50) -> pd.DataFrame:
    """The same questions answered from the top-k BM25 chunks of each haystack (setting ``rag``);
    ``needle_retrieved``: every needle sentence is inside the kept chunks."""
    rows = []
    for c in cells:
        context, _ = rag_context(c["haystack"].text, c["_needle"].question, top_k, chunk_size, chunk_overlap)
        found = all(s.strip() in context for s in c["_needle"].sentences)
        rows.append({**c, "rag_context": context, "needle_retrieved": found})
    out = _ask(model, rows, lambda c: request_for(model, c["rag_context"], c["_needle"].question, max_tokens),
               progress)
    for i, r in enumerate(out):
        r["setting"], r["call_order"] = "rag", i
        r.pop("rag_context")
    return _tidy(out)


def answer_models(specs, cells: dict, lengths: dict, rag: str = "longest", top_k: int = 5,
                  max_tokens: int = 64) -> pd.DataFrame:
    """Every model's answers on its grid (``cells[spec]``) with the full haystack and, unless ``rag`` is "none",
    from BM25's top-k chunks: at the model's longest length (``rag="longest"``, ``max(lengths[spec])``) or at
    every length (``"all"``)."""
    from lcrag.models import get_model

    frames = []
    for s in specs:
        m = get_model(s)
        frames.append(answer_cells(m, cells[s], max_tokens=max_tokens))
        if rag != "none":
            rag_set = [c for c in cells[s] if rag == "all" or c["context_tokens"] == max(lengths[s])]
            frames.append(rag_cells(m, rag_set, top_k=top_k, max_tokens=max_tokens))
    return pd.concat(frames, ignore_index=True)


#: Where an answer came from (the ``source`` column), in words.
SOURCE_WORDS = {"store": "from the committed response store", "disk": "from the local cache",
                "network": "from the model, now"}


def sources_sentence(answers: pd.DataFrame) -> str:
    """Where the answers came from, in words: "all 624 from the committed response store" or a count per source."""
    return counts_in_words(answers["source"], SOURCE_WORDS)


def variant_answers(specs, essays, variants, lengths, depths, max_tokens: int = 64) -> pd.DataFrame:
    """RULER-style variants (four needles in one haystack) on every model at ``lengths`` x ``depths``, full
    haystack: the public table."""
    from lcrag.models import get_model

    frames = []
    for s in specs:
        m = get_model(s)
        grid = needle_grid(m, essays, lengths_for(m, lengths, answer_tokens=max_tokens), depths, needles_for(variants))
        frames.append(answer_cells(m, grid, max_tokens=max_tokens))
    return public(pd.concat(frames, ignore_index=True))


def _tidy(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    df["recall"] = [c.score(a) for c, a in zip(df["_needle"], df["response"], strict=True)]
    df["question_by"] = [c.question_by for c in df["_needle"]]
    if "needle_retrieved" not in df:
        df["needle_retrieved"] = True
    return df


def public(df: pd.DataFrame) -> pd.DataFrame:
    """The table without the in-memory objects (haystacks, needles): what the chapter saves."""
    return df.drop(columns=[c for c in ("haystack", "_needle") if c in df.columns]).reset_index(drop=True)
