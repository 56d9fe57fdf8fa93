"""The papers, one package each: what a chapter of the book runs, in the paper's own vocabulary.

- :mod:`lcrag.papers.thesis` — the thesis: BAMBOO Full/RAG/Evidence, prompt sensitivity, needle-in-a-haystack;
- :mod:`lcrag.papers.longrag` — LongRAG: hybrid retriever, extractor, CoT filter, LRGinstruction;
- :mod:`lcrag.papers.summhay` — Summary of a Haystack: coverage, citation, joint;
- :mod:`lcrag.papers.long2rag` — Long²RAG: Key Point Recall.

A paper's printed numbers live as data, in ``<paper>/tables/*.csv`` (:mod:`lcrag.papers.tables`), typed once.
Each package declares its paper and chapter(s) in ``<paper>/chapter.py`` (found by :mod:`lcrag.chapters`), and
each chapter's experiment family for the synthesis in ``comparison.py`` (:class:`lcrag.synthesis.Family`).
"""
