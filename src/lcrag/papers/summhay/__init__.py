"""Summary of a Haystack (Laban et al. 2024): the released artefacts rescored and re-analysed, our judges, live runs
of a summarizer, and a small synthetic haystack. The chapter is ``notebooks/summhay.md``.

Where things are:

- :mod:`~lcrag.papers.summhay.names` — summarizers, settings (named by what ran), released summary keys
  (:func:`~lcrag.papers.summhay.names.parse_summary_key`), Table 2's printed headers and the Vect/LongE swap;
- :mod:`~lcrag.papers.summhay.paper_numbers` — the paper's numbers (Tables 1-5, §3.4's shape, §6's ceiling, the
  figures' scores), read from ``tables/*.csv``; ``paper_table2``;
- :mod:`~lcrag.papers.summhay.worked_examples` — Fig. 2 and Fig. 4 scored with our metrics;
- :mod:`~lcrag.papers.summhay.dataset_shape` — the 10 haystacks against §3.4 (``shape_table``, ``shape_summary``),
  each insight's gold documents (``gold_documents``);
- :mod:`~lcrag.papers.summhay.rescoring` — the released summaries rescored from their GPT-4o judgments
  (``rescore``, ``system_scores``) next to Tables 2, 3, 5 and #Wb; the Vect/LongE ``swap_check``;
- :mod:`~lcrag.papers.summhay.evaluator_study` — ``eval_benchmark_data.json``: ``benchmark_labels``, Table 1
  (``agreement``, ``table1``), Table 4 (``summary_deltas``, ``table4``, ``table4_variants``) and its conclusions with
  their intervals (``bias_intervals``, which decide C17);
- :mod:`~lcrag.papers.summhay.our_judges` — our judges without an LLM (thresholds fitted on one half,
  :data:`~lcrag.papers.summhay.our_judges.HALVES`) and ``judges_table`` for every evaluator;
- :mod:`~lcrag.papers.summhay.prompts` — the released summarization prompts (verbatim) and our synthetic-haystack
  prompts;
- :mod:`~lcrag.papers.summhay.llm_judge` — the released coverage prompt as our LLM judge on the annotated insights
  (``llm_judge_benchmark``) and how its answers were read (``parse_report``, ``label_shares``);
- :mod:`~lcrag.papers.summhay.retrievers` — live retriever scores (Random, Vector, Keywords, Oracle, Full);
- :mod:`~lcrag.papers.summhay.live_contexts` — token-limited contexts, position orders in a window-sized
  haystack, the filled summarization prompt (``live_contexts``);
- :mod:`~lcrag.papers.summhay.live_runs` — ``summarize``, ``score_live``, ``live_table``,
  ``position_sensitivity``, ``oracle_citation_ceiling`` (C18);
- :mod:`~lcrag.papers.summhay.synthetic` — the synthetic haystack (``synthesize_haystack``, ``load_synthetic``);
- :mod:`~lcrag.papers.summhay.artefact_claims` — the claims the released files decide (``check_artefact_claims``);
- :mod:`~lcrag.papers.summhay.live_claims` — the claims our runs speak to (``check_live_claims``);
- :mod:`~lcrag.papers.summhay.comparison` — the chapter's family in the synthesis (declared, with the paper, in
  :mod:`~lcrag.papers.summhay.chapter`).

The metrics (coverage, citation, joint) are :mod:`lcrag.metrics.summhay`; the loaders :mod:`lcrag.data.summhay`. The
judges are in :mod:`lcrag.judges`: the released coverage prompt as a judge (:mod:`lcrag.judges.insight`) and the
deterministic ones (:mod:`lcrag.judges.similarity`).
"""
