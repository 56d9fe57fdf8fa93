"""LongRAG (Zhao et al., EMNLP 2024; arXiv:2410.18050): the chapter ``notebooks/longrag.md``, module by module.

The system as the released code runs it (``QingFei1/LongRAG`` at ``6bb0406``; inventory
``../shared/papers/longrag.md`` §1), re-implemented on the book's model layer:

- :mod:`~lcrag.papers.longrag.names`: datasets, the five strategies (R&B, R&L, Ext, Fil, E&F), the Full/Closed
  arms, retrieval settings, model names;
- :mod:`~lcrag.papers.longrag.prompts`: the generator, extractor, CoT and filter prompts (verbatim);
- :mod:`~lcrag.papers.longrag.corpus`: LongBench contexts pooled into a paragraph corpus, the released chunker,
  the questions;
- :mod:`~lcrag.papers.longrag.retrieval`: the hybrid retriever (dense + reranker), chunks mapped back to their
  source paragraphs (``s2l_doc``), one dataset's index;
- :mod:`~lcrag.papers.longrag.cot_filter`: the filter's judgement as the code reads it, and its fallback;
- :mod:`~lcrag.papers.longrag.answering`: one question through every strategy and arm, F1 tables, the chunk
  size x top-k grid.

The paper's numbers and its claims (no model call):

- ``tables/*.csv``: Tables 1-15 as printed, read by :mod:`~lcrag.papers.longrag.published` into tidy
  ``paper_*`` columns;
- :mod:`~lcrag.papers.longrag.recomputed`: gains, averages, pairwise counts, token order, best settings
  recomputed from the tables;
- :mod:`~lcrag.papers.longrag.inventory`: the inventory's derived counts beside the recomputed ones
  (``derived_checks``);
- :mod:`~lcrag.papers.longrag.claims_paper`: claims C1-C18 decided on the paper's tables;
- :mod:`~lcrag.papers.longrag.differences`: paired bootstrap differences between strategies on our runs;
- :mod:`~lcrag.papers.longrag.claims_runs`: the behavioural claims decided on our runs, and
  :mod:`~lcrag.papers.longrag.claims_sections` those on the grid and transfer sections; what both share (the
  chapter's floor rule) is in :mod:`~lcrag.papers.longrag.claims_common`;
- :mod:`~lcrag.papers.longrag.comparison`: the chapter's family in the synthesis (declared, with the paper, in
  :mod:`~lcrag.papers.longrag.chapter`).

:mod:`lcrag.papers.longrag.lrginstruction`: the LRGinstruction data-construction pipeline (App. C, Tables 15-18).
"""
