"""The thesis's RAG pipelines and the retrieval they do.

A *pipeline* is a three-letter code, ranker × query × chunking: CQT = Cosine, the Question as query, Text
(fixed-length, 512/50) chunks; the thesis's five are CQT, CQS, BQT, CET, BET (B = BM25, E = the Evidence as query,
S = semantic chunks); S and N rank with the exemplar SVM and the naive common-word count. :func:`retrieve` returns
the top-5 chunks of every case for every pipeline, which fill "Article part n°i" in rank order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from lcrag.progress import progress as bar
from lcrag.retrieval import embedder_for, get_ranker, thesis_tokenize
from lcrag.text.chunking import recursive_split, semantic_split

RANKER_CODES = {"C": "cosine", "B": "bm25", "S": "svm", "N": "naive"}
QUERY_CODES = {"Q": "question", "E": "evidence"}
CHUNKING_CODES = {"T": "text", "S": "semantic"}


@dataclass(frozen=True)
class Pipeline:
    """A RAG pipeline of the thesis: ranker × query × chunking, named by a code such as ``CQT``."""

    code: str
    ranker: str
    query: str
    chunking: str

    @property
    def label(self) -> str:
        return f"{self.code} ({self.ranker}, {self.query} as query, {self.chunking} chunks)"


def parse_pipeline(code: str) -> Pipeline:
    """``CQT`` -> cosine, question, text. Letters: ranker C/B/S/N, query Q/E, chunking T/S."""
    c = code.strip().upper()
    if len(c) != 3 or c[0] not in RANKER_CODES or c[1] not in QUERY_CODES or c[2] not in CHUNKING_CODES:
        raise ValueError(
            f"pipeline code {code!r} must be ranker {'/'.join(RANKER_CODES)} + query {'/'.join(QUERY_CODES)} + "
            f"chunking {'/'.join(CHUNKING_CODES)}, e.g. CQT"
        )
    return Pipeline(c, RANKER_CODES[c[0]], QUERY_CODES[c[1]], CHUNKING_CODES[c[2]])


def chunk_document(
    text: str,
    chunking: str,
    embedder=None,
    *,
    chunk_size: int = 512,
    chunk_overlap: int = 50,
    semantic_chunks: int = 30,
) -> list[str]:
    """Fixed-length (``text``: LangChain-exact recursive split) or ``semantic`` chunks of one document."""
    if chunking == "text":
        return recursive_split(text, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    if chunking == "semantic":
        if embedder is None:
            raise ValueError("semantic chunking needs an embedder")
        return semantic_split(text, embedder, semantic_chunks)
    raise ValueError(f"chunking must be 'text' or 'semantic', not {chunking!r}")


def evidence_recall(evidence: str, parts: Sequence[str]) -> float:
    """Share of the evidence's distinct words (thesis tokens) found in the retrieved parts (1.0 = all)."""
    need = set(thesis_tokenize(evidence))
    if not need:
        return float("nan")
    have = set(thesis_tokenize(" ".join(parts)))
    return len(need & have) / len(need)


def retrieve(
    cases: pd.DataFrame,
    pipelines: Sequence[str],
    embedder=None,
    *,
    top_k: int = 5,
    chunk_size: int = 512,
    chunk_overlap: int = 50,
    semantic_chunks: int = 30,
    progress: bool = False,
) -> pd.DataFrame:
    """Top-``k`` chunks of every case for every pipeline: one row per case × pipeline.

    Columns: task, case, pipeline, ranker, query, chunking, n_chunks, chunks (1-based numbers in rank order),
    parts (their texts), context_chars, evidence_recall. ``embedder`` (cosine, SVM, semantic chunking) is
    built on first need with :func:`lcrag.models.embeddings.get_embedder` when not given.
    """
    specs = [parse_pipeline(p) for p in pipelines]
    embedder = embedder_for([p.ranker for p in specs], embedder, needed=any(p.chunking == "semantic" for p in specs))
    rows = []
    items = bar(list(cases.itertuples(index=False)), enabled=progress, desc="retrieval")
    for item in items:
        chunk_sets: dict[str, list[str]] = {}
        rankers: dict[tuple[str, str], object] = {}
        for p in specs:
            if p.chunking not in chunk_sets:
                chunk_sets[p.chunking] = chunk_document(
                    item.content,
                    p.chunking,
                    embedder,
                    chunk_size=chunk_size,
                    chunk_overlap=chunk_overlap,
                    semantic_chunks=semantic_chunks,
                )
            chunks = chunk_sets[p.chunking]
            if (p.ranker, p.chunking) not in rankers:
                rankers[p.ranker, p.chunking] = get_ranker(p.ranker, chunks, embedder)
            hits = rankers[p.ranker, p.chunking].rank(getattr(item, p.query), top_k)
            parts = [h.text for h in hits]
            rows.append(
                {
                    "task": item.task,
                    "case": item.case,
                    "pipeline": p.code,
                    "ranker": p.ranker,
                    "query": p.query,
                    "chunking": p.chunking,
                    "n_chunks": len(chunks),
                    "chunks": [h.index + 1 for h in hits],
                    "parts": parts,
                    "context_chars": sum(len(x) for x in parts),
                    "evidence_recall": evidence_recall(item.evidence, parts),
                }
            )
    return pd.DataFrame(rows)
