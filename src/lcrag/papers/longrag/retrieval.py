"""LongRAG's hybrid retriever and the extractor's input (the chunks mapped back to their source paragraphs).

3. **Hybrid retriever**: dense bi-encoder over all chunks of the dataset (top ``n_candidates`` = 100), then a
   second-stage reranker to the top ``k`` (:class:`Retriever`, :func:`lcrag.retrieval.rerank.make_reranker`);
4. **Extractor input**: the chunks mapped back to their source paragraphs (:func:`source_paragraphs`, the code's
   ``s2l_doc``).

:func:`dataset_index` builds everything retrieval needs for one dataset (records, corpus, retriever).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from lcrag.papers.longrag.corpus import build_corpus, chunk_corpus
from lcrag.retrieval.base import Hit


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


def dataset_index(dataset: str, *, chunk_size: int = 200, corpus_records: int = 0, embedder=None,
                  reranker: str = "fusion", n_candidates: int = 100):
    """Everything retrieval needs for one dataset: ``(records, corpus, retriever)``.

    ``corpus_records`` > 0 pools only the first records' paragraphs (the smoke profile); 0 pools them all.
    """
    from lcrag.data import load_longbench
    from lcrag.models.embeddings import get_embedder
    from lcrag.retrieval.rerank import make_reranker

    records = load_longbench(dataset)
    pool = records.head(corpus_records) if corpus_records else records
    corpus = build_corpus(pool)
    embedder = embedder or get_embedder()
    retriever = Retriever(chunk_corpus(corpus, chunk_size), embedder, make_reranker(reranker, embedder),
                          n_candidates)
    return records, corpus, retriever
