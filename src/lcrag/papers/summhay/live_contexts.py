"""The live contexts and their prompts: the released token-limited context (:func:`token_limited`, last document
truncated), the position orders inside a window-sized haystack (:func:`window_haystack`, :func:`position_order`),
the released summarization prompt filled (:func:`summary_prompt`), all settings at once (:func:`live_contexts`)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from lcrag.models import token_counts
from lcrag.papers.summhay.prompts import SUMMARIZATION_PROMPTS
from lcrag.papers.summhay.retrievers import LIVE_RETRIEVERS, oracle_scores, ranked, retriever_scores

#: The paper's context budget for every retriever (§5: "15k tokens").
PAPER_BUDGET = 15000


def context_budget(window: int, token_budget: int = 0, reserve: int = 1024) -> int:
    """The live contexts' token budget: ``token_budget`` when set, else the paper's 15k tokens for a model whose
    window holds them with ``reserve`` tokens to spare (the prompt template and the summary), else the window
    minus ``reserve`` (SmolLM2's 8k window: 7,168 tokens)."""
    if token_budget:
        return int(token_budget)
    if window <= reserve:
        raise ValueError(f"a {window}-token window leaves nothing for the context after a {reserve}-token reserve")
    return min(PAPER_BUDGET, window - reserve)


POSITION_ORDERS: dict[str, str] = {
    "top": "relevant documents first (oracle count descending)",
    "bottom": "relevant documents last (oracle count ascending)",
    "random": "stored order (the paper's 'Random' column: the full context in its arbitrary order)",
    "middle": "irrelevant documents split at random above and below the relevant block",
}


def token_limited(
    texts: Sequence[str], order: Sequence[int], budget: int, tokenizer
) -> list[tuple[str, int]]:
    """The released ``get_docs_token_limit``: documents in ``order`` (0-based positions), whole while they fit;
    the first one that would reach ``budget`` tokens is cut to the tokens left and ends the context (it is added
    even when nothing is left of it, as in the released code). Returns ``(text, position)`` pairs. A whole
    document's size is its stored count where the store has it (:mod:`lcrag.models.token_counts`); only the one cut
    is encoded."""
    out, total = [], 0
    for i in order:
        n = token_counts.count(tokenizer, texts[i])
        if total + n >= budget:
            out.append((tokenizer.decode(tokenizer.encode(texts[i])[: budget - total]), int(i)))
            break
        total += n
        out.append((texts[i], int(i)))
    return out


def window_haystack(
    oracle: np.ndarray, n_tokens: Sequence[int], budget: int, relevant_share: float = 0.5
) -> list[int]:
    """A haystack that fits ``budget`` tokens, for the position orders: the most relevant documents (oracle
    descending) while they fill ``relevant_share`` of the budget (at least one), then irrelevant documents
    (oracle 0) in stored order while the whole fits. Whole documents only; returned in stored order."""
    rel = [i for i in ranked(oracle) if oracle[i] > 0]
    irr = [i for i in range(len(oracle)) if oracle[i] == 0]
    chosen, total = [], 0
    for i in rel:
        if chosen and total + n_tokens[i] > relevant_share * budget:
            break
        chosen.append(i)
        total += n_tokens[i]
    for i in irr:
        if total + n_tokens[i] > budget:
            break
        chosen.append(i)
        total += n_tokens[i]
    return sorted(chosen)


def position_order(positions: Sequence[int], oracle: np.ndarray, order: str, seed: int = 0) -> list[int]:
    """The released ``populate_summaries`` orders of ``positions`` (stored order in): ``top`` sorts by oracle count
    descending, ``bottom`` ascending (both stable), ``middle`` gives each irrelevant document a score of 10 with
    probability 0.5 (so it goes above the relevant block) and sorts descending, ``random`` keeps the stored order."""
    positions = list(positions)
    if order == "top":
        return sorted(positions, key=lambda i: -oracle[i])
    if order == "bottom":
        return sorted(positions, key=lambda i: oracle[i])
    if order == "middle":
        rng = random.Random(f"{seed}:middle")
        score = {i: (10.0 if oracle[i] == 0 and rng.random() < 0.5 else oracle[i]) for i in positions}
        return sorted(positions, key=lambda i: -score[i])
    if order == "random":
        return positions
    raise ValueError(f"unknown order {order!r}; use one of {', '.join(POSITION_ORDERS)}")


def insights_discussed(haystack, subtopic_id: str) -> int:
    """The news prompt's ``[N_insights]``: the subtopic's insights found in at least one document."""
    ids = set(haystack.insights.loc[haystack.insights["subtopic_id"] == subtopic_id, "insight_id"])
    return len(ids & {i for inc in haystack.documents["insights_included"] for i in inc})


def summary_prompt(
    haystack, subtopic_id: str, docs: Sequence[tuple[str, int]], participants: Sequence[str] = ()
) -> str:
    """The released summarization prompt filled as ``populate_summaries.summarize``: documents rendered as
    ``"Article {idx+1}:\\n{text}\\n\\n"`` (``Conversation`` for conversations), in context order."""
    sub = haystack.subtopics.set_index("subtopic_id").loc[subtopic_id]
    if haystack.kind == "news":
        body = "".join(f"Article {i + 1}:\n{t}\n\n" for t, i in docs)
        return (
            SUMMARIZATION_PROMPTS["news"]
            .replace("[N_articles]", str(len(docs)))
            .replace("[ARTICLES]", body)
            .replace("[TOPIC]", haystack.topic)
            .replace("[N_insights]", str(insights_discussed(haystack, subtopic_id)))
            .replace("[SUBTOPIC]", sub["description"])
        )
    body = "".join(f"Conversation {i + 1}:\n{t}\n\n" for t, i in docs)
    return (
        SUMMARIZATION_PROMPTS["conv"]
        .replace("[N_conversations]", str(len(docs)))
        .replace("[SCENARIO]", haystack.topic)
        .replace("[PARTICIPANTS]", ", ".join(participants))
        .replace("[CONVERSATIONS]", body)
        .replace("[QUERY]", sub["query"])
        .replace("[N_insights]", str(int(sub["n_insights"])))
    )


def haystack_participants(haystack) -> list[str]:
    """``topic_metadata.participants`` of a conversation haystack's file (empty for news)."""
    if haystack.kind == "news" or not haystack.source:
        return []
    return list(
        json.loads(Path(haystack.source).read_text()).get("topic_metadata", {}).get("participants", [])
    )


def document_tokens(haystack, tokenizer) -> list[int]:
    """Tokens of each document (stored order) in ``tokenizer``."""
    return [token_counts.count(tokenizer, t) for t in haystack.documents["text"]]


def live_contexts(
    haystacks: Mapping,
    subtopics: Sequence[tuple[str, str]],
    tokenizer,
    budget: int,
    *,
    retrievers: Sequence[str] = tuple(LIVE_RETRIEVERS),
    orders: Sequence[str] = tuple(POSITION_ORDERS),
    seed: int = 0,
    embedder=None,
    relevant_share: float = 0.5,
) -> pd.DataFrame:
    """Every live context and its prompt: one row per (haystack, subtopic, setting).

    ``subtopics`` are ``(haystack, subtopic_id)`` pairs. Retriever settings keep the top of the ranking up to
    ``budget`` tokens (:func:`token_limited`); position settings (``pos-<order>``) arrange a :func:`window_haystack`.
    Columns: haystack, subtopic_id, setting, kind (retrieval / position), documents (1-based ids in context
    order), n_documents, context_tokens, last_truncated, relevant_in_context, prompt.
    """
    rows = []
    for name, sid in subtopics:
        h = haystacks[name]
        texts = list(h.documents["text"])
        ntok = document_tokens(h, tokenizer)
        oracle = oracle_scores(h, sid)
        people = haystack_participants(h)
        settings = [
            ("retrieval", r, ranked(retriever_scores(h, sid, r, seed=seed, embedder=embedder)))
            for r in retrievers
        ]
        if orders:
            window = window_haystack(oracle, ntok, budget, relevant_share)
            settings += [
                ("position", f"pos-{o}", position_order(window, oracle, o, seed=seed)) for o in orders
            ]
        for kind, setting, order in settings:
            docs = token_limited(texts, order, budget, tokenizer)
            last_cut = len(docs[-1][0]) < len(texts[docs[-1][1]]) if docs else False
            rows.append(
                {
                    "haystack": name,
                    "subtopic_id": sid,
                    "setting": setting,
                    "kind": kind,
                    "documents": [i + 1 for _, i in docs],
                    "n_documents": len(docs),
                    "context_tokens": sum(token_counts.count(tokenizer, t) for t, _ in docs),
                    "last_truncated": last_cut,
                    "relevant_in_context": int(sum(oracle[i] > 0 for _, i in docs)),
                    "prompt": summary_prompt(h, sid, docs, people),
                }
            )
    return pd.DataFrame(rows)
