"""Long²RAG (Qi et al. 2024, Findings of EMNLP): long-form answers over 5 retrieved documents, scored by Key Point
Recall (KPR), on any :mod:`lcrag.models` model. The chapter is ``notebooks/long2rag.md``.

Where things are:

- :mod:`.prompts` — the paper's prompts P0-P8 (verbatim) and ours (``OUR_*``: generation template, separator,
  snippet / summary, the P5 / P7 demonstrations).
- :mod:`.numbers` — the paper's printed numbers (Tables 1-4, Fig. 11's category counts, the numbers in the text,
  Figs 6 / 7's length bins), read from ``tables/*.csv``.
- :mod:`.generation` — the generation input (documents, separators, question, P0), the context policy
  (:func:`~.generation.fit_documents`), and the document variants of Table 2 (truncation, snippet, summary).
- :mod:`.judges` — Eq. 1's judges (P6 on a model, the deterministic lexical judge), their calibration on SummHay's
  human labels, the judge the claims trust, and two judges' rank agreement (Table 3 analogue).
- :mod:`.lengths` — KPR by input and by generation length (Figs 6, 7), on bins scaled to our window.
- :mod:`.key_points` — the key-point pipeline (P5 extraction, P7 de-duplication, P8 AutoDS), its recovery of the
  human SummHay insights, and KPP (Table 4 analogue).
- :mod:`.checks` — arithmetic on the paper's tables (derived checks) and its internal inconsistencies.
- :mod:`.claims` — claims C1-C21, decided on the paper's tables and on our runs;
- :mod:`.comparison` — the chapter's family in the synthesis; :mod:`.chapter` declares the paper and chapter.

KPR itself (Eq. 2, per question, per group, per judge and variant, KPP / KPF) is computed in one place,
:mod:`lcrag.metrics.kpr`, from the entailment judge's values (Eq. 1, :mod:`lcrag.judges.entailment`); the data (the
loader, the SummHay-derived items) is :mod:`lcrag.data.long2rag`.
"""
