"""lcrag: Long context or RAG? One package serving every chapter of the book.

Organised by concept, in the papers' vocabulary:

- ``lcrag.models``     model layer: spec registry, OpenAI-compatible client, embedded llama.cpp server,
                       response cache and store, usage accounting, embeddings
- ``lcrag.data``       dataset manifest, fetch step, one loader per dataset
- ``lcrag.text``       tokens (counting, context-window policies) and chunking
- ``lcrag.retrieval``  BM25, dense, hybrid, rerank
- ``lcrag.metrics``    scores (accuracy, letter parsing, KPR, coverage/citation, ...)
- ``lcrag.pipelines``  one module per paper (plus the quickstart)
- ``lcrag.plots``      figures from result tables
- ``lcrag.book``       profiles, papermill runner, run manifests, claims ledger
"""

__version__ = "0.1.0"
