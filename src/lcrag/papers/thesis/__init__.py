"""The thesis (Lu, 2024): BAMBOO multiple choice in three settings, five RAG pipelines and three prompts; and the
needle-in-a-haystack test of its §6.2 (:mod:`lcrag.papers.thesis.needle`).

The experiment, as *cases → retrieval → prompt → solver → scorer → tables → claims*, one module each:

- :mod:`~lcrag.papers.thesis.numbers` — the thesis's printed numbers (read from ``tables/*.csv``) and the codes:
  tasks, settings, the eight patterns, the five pipelines, the cases it names;
- :mod:`~lcrag.papers.thesis.cases` — BAMBOO MeetingQA and PaperQA cleaned as the thesis did (84 + 74 = 158), the
  first-n and the letter-stratified grid subsets;
- :mod:`~lcrag.papers.thesis.pipelines` — the RAG pipelines (CQT = Cosine × Question × Text chunks, ...), chunking
  and the top-5 retrieval;
- :mod:`~lcrag.papers.thesis.prompts` — BAMBOO, CTX1, CTX2 verbatim and the system message;
- :mod:`~lcrag.papers.thesis.run_plan` — which (case, setting, pipeline, prompt) to ask, and each user prompt;
- :mod:`~lcrag.papers.thesis.solver` — greedy answers, and the three scorers (raw, lenient, logprob);
- :mod:`~lcrag.papers.thesis.accuracy` — accuracy per run with bootstrap intervals, paired tests (bootstrap,
  McNemar), the verdict helper ``floor_of`` (thresholds: ``lcrag.book.claims.interval_in``) and the chapter's
  floor rule (``accuracy_floor``: its claims and its synthesis comparison both ask it);
- :mod:`~lcrag.papers.thesis.tables_6` — Tables 6.1, 6.2, 6.3 recomputed beside the printed values, and the
  embedding sanity check;
- :mod:`~lcrag.papers.thesis.patterns` — the Full / RAG / Evidence patterns (FRE ... ---), their counts, the F-E
  tile grid (Fig. 6.7), and paired tests from counts (Fig. 6.3);
- :mod:`~lcrag.papers.thesis.distance` — the ranking-distance study (Fig. 6.2, Hungarian assignment);
- :mod:`~lcrag.papers.thesis.cost` — tokens and cost per run;
- :mod:`~lcrag.papers.thesis.claims` — the claims H1-H16 (H4: ``needle.claims``); those decided without a language
  model (H6, H6b, H14, H16) in :mod:`~lcrag.papers.thesis.claims_retrieval`;
- :mod:`~lcrag.papers.thesis.comparison` (and ``needle.comparison``) — the chapters' families in the synthesis;
  :mod:`~lcrag.papers.thesis.chapter` declares the paper and its two chapters (:mod:`lcrag.chapters`).

Every function returns a tidy table (one row per case × setting × pipeline × prompt, or an aggregate of it).
"""
