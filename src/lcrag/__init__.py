"""lcrag: Long context or RAG? One package serving every chapter of the book.

Organised by concept, in the papers' vocabulary:

- ``lcrag.models``     model layer: spec registry, tokenizers, OpenAI-compatible client, embedded llama.cpp server,
                       response cache and store, usage accounting, embeddings
- ``lcrag.data``       dataset manifest, fetch step, one loader per dataset
- ``lcrag.text``       chunking, and reading answers as text
- ``lcrag.retrieval``  BM25, dense, fusion, rerank
- ``lcrag.metrics``    scores (accuracy, letter parsing, KPR, coverage/citation, ...)
- ``lcrag.judges``     the judges, one module each: lexical and embedding similarity, Kamradt's 1-10 score,
                       Long²RAG's key-point entailment, SummHay's insight coverage; the default judge of a run
- ``lcrag.papers``     one package per paper, in its own vocabulary (prompts, its printed tables as CSV
                       data, its pipeline, its claims): ``thesis`` (with ``needle``), ``longrag``,
                       ``summhay``, ``long2rag``
- ``lcrag.chapters``   the registry of the book's chapters: each paper's, the quickstart, the synthesis
- ``lcrag.quickstart`` the first chapter's small end-to-end run
- ``lcrag.synthesis``  the cross-paper comparison, over every registered chapter's experiment family
- ``lcrag.plots``      figures from result tables
- ``lcrag.progress``   progress bars (none inside an executed chapter)
- ``lcrag.book``       profiles, preflight checks, papermill runner, run manifests, claims ledger, downloads
"""

__version__ = "0.1.0"
