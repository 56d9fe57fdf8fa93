"""Long²RAG's generation over the five documents, and the document variants of its Table 2.

- **Generation** (:func:`generate`): the documents concatenated with a separator, then the question and P0; greedy.
  Inputs longer than the window are handled by an explicit policy (:func:`fit_documents`: every document cut to
  an equal share of the budget, from its end) and counted (``truncated`` column).
- **Document processing** for the Table 2 analogue (:func:`process_documents`): the first 512 / 1024 / 2048
  characters of each document, an LLM snippet, an LLM summary, or none (:data:`VARIANTS`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from lcrag.papers.long2rag.prompts import OUR_GENERATION, OUR_SEPARATOR, OUR_SNIPPET, OUR_SUMMARY

VARIANTS = ("none", "trunc512", "trunc1024", "trunc2048", "snippet", "summary")
#: Table 2's trunk sizes, read as characters per document (Finardi et al.): the sizes named by :data:`VARIANTS`.
TRUNCATION_CHARS = tuple(int(v.removeprefix("trunc")) for v in VARIANTS if v.startswith("trunc"))

# ============================================================================================ generation


def fit_documents(documents: Sequence[str], budget: int, count: Callable[[str], int]) -> tuple[list[str], int]:
    """Documents cut so their tokens (``count``) sum to at most ``budget``: the context policy.

    Nothing is cut when they fit. Otherwise every document longer than an equal share of what is left is cut from
    its end, by whole words, to that share (shorter documents keep all their tokens and give their unused share
    to the others). Returns ``(documents, n_cut)``.
    """
    lengths = [count(d) for d in documents]
    if sum(lengths) <= budget:
        return list(documents), 0
    order = sorted(range(len(documents)), key=lambda i: lengths[i])
    shares, left = {}, budget
    for pos, i in enumerate(order):
        share = left // (len(order) - pos)
        shares[i] = min(lengths[i], share)
        left -= shares[i]
    out, n_cut = [], 0
    for i, doc in enumerate(documents):
        if lengths[i] <= shares[i]:
            out.append(doc)
            continue
        words = doc.split()
        lo, hi = 0, len(words)  # the most words whose count fits the share
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count(" ".join(words[:mid])) <= shares[i]:
                lo = mid
            else:
                hi = mid - 1
        out.append(" ".join(words[:lo]))
        n_cut += 1
    return out, n_cut


def join_documents(documents: Sequence[str], separator: str = OUR_SEPARATOR) -> str:
    """The documents concatenated, each after its numbered separator line."""
    return "".join(separator.format(i=i) + d.strip() for i, d in enumerate(documents, start=1)).strip()


def generation_prompt(question: str, documents: Sequence[str], separator: str = OUR_SEPARATOR) -> str:
    """The generation input: documents with separators, the question, and P0 (:data:`OUR_GENERATION`)."""
    return OUR_GENERATION.format(documents=join_documents(documents, separator), question=question)


def prompt_budget(model, max_tokens: int, margin: int = 64) -> int:
    """Tokens the documents may take: the window minus the answer, the template around them, and a margin."""
    template = model.count_tokens(generation_prompt("x" * 80, ["x"]))
    return model.info.context_window - max_tokens - template - margin


def generate(model, items: pd.DataFrame, documents_column: str = "documents", max_tokens: int = 512,
             variant: str = "none", progress: bool = False) -> pd.DataFrame:
    """One greedy response per item: columns question_id, variant, response, input_tokens (documents, after the
    policy), documents_tokens (before), truncated (documents cut by :func:`fit_documents`), prompt_tokens,
    completion_tokens, finish_reason, source."""
    budget = prompt_budget(model, max_tokens)
    requests, meta = [], []
    for r in items.to_dict("records"):
        docs = list(r[documents_column])
        before = sum(model.count_tokens(d) for d in docs)
        fitted, n_cut = fit_documents(docs, budget, model.count_tokens)
        requests.append({"prompt": generation_prompt(r["question"], fitted), "max_tokens": max_tokens,
                         "temperature": 0.0, "context_policy": "error"})
        meta.append({"question_id": r["question_id"], "variant": variant, "documents_tokens": before,
                     "input_tokens": sum(model.count_tokens(d) for d in fitted) if n_cut else before,
                     "truncated": n_cut})
    out = model.map("ask", requests, progress=progress)
    rows = [
        {**m, "response": c.text, "prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens,
         "finish_reason": c.finish_reason, "source": c.source}
        for m, c in zip(meta, out, strict=True)
    ]
    return pd.DataFrame(rows)


# ============================================================================================ document processing


def truncate_chars(document: str, n: int) -> str:
    """The first ``n`` characters of ``document`` (Table 2's "trunk size", per document)."""
    return document[:n]


def process_documents(model, items: pd.DataFrame, variant: str, max_tokens: int = 128) -> pd.Series:
    """Per item, its documents as ``variant`` leaves them: ``none`` (as is), ``trunc512`` / ``trunc1024`` /
    ``trunc2048`` (first N characters each), ``snippet`` / ``summary`` (one call per document with
    :data:`OUR_SNIPPET` / :data:`OUR_SUMMARY`, at most ``max_tokens`` each; documents cut to fit the window)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {VARIANTS}")
    if variant == "none":
        return items["documents"].map(list)
    if variant.startswith("trunc"):
        n = int(variant.removeprefix("trunc"))
        return items["documents"].map(lambda docs: [truncate_chars(d, n) for d in docs])
    template = OUR_SNIPPET if variant == "snippet" else OUR_SUMMARY
    requests, shape = [], []
    for r in items.to_dict("records"):
        shape.append(len(r["documents"]))
        for d in r["documents"]:
            requests.append({"prompt": template.format(question=r["question"], document=d),
                             "max_tokens": max_tokens, "temperature": 0.0, "context_policy": "truncate_middle"})
    texts = [c.text.strip() for c in model.map("ask", requests)]
    out, k = [], 0
    for n in shape:
        out.append(texts[k : k + n])
        k += n
    return pd.Series(out, index=items.index)


def generate_variants(model, items: pd.DataFrame, variants: Sequence[str], process_tokens: int = 128,
                      max_tokens: int = 512) -> pd.DataFrame:
    """One response per item and document variant (§4.2's six processings: :func:`process_documents`), the
    variants in order: the chapter's ``responses`` table."""
    frames = []
    for variant in variants:
        docs = process_documents(model, items, variant, max_tokens=process_tokens)
        frames.append(generate(model, items.assign(documents=docs), max_tokens=max_tokens, variant=variant))
    return pd.concat(frames, ignore_index=True)


def context_policy(responses: pd.DataFrame) -> pd.DataFrame:
    """Per variant: responses, documents cut to fit the window, mean input and response tokens, answers that hit
    the token cap."""
    return responses.groupby("variant", sort=False).agg(
        responses=("question_id", "size"), documents_cut=("truncated", "sum"),
        mean_input_tokens=("input_tokens", "mean"), mean_response_tokens=("completion_tokens", "mean"),
        hit_cap=("finish_reason", lambda s: int((s == "length").sum())))
