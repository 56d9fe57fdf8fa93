"""Kamradt's needle-in-a-haystack test (thesis §6.2, Fig. 6.1) on any model of the book.

Method (``gkamradt/LLMTest_NeedleInAHaystack``, ``LLMNeedleHaystackTester``):

1. the essays are concatenated in a fixed order (sorted by file name here) and repeated as needed;
2. the haystack is the first ``context_tokens - buffer - len(needle)`` tokens of that text in the **model's own
   tokens** (buffer: 200 tokens for the system prompt, the question and the answer);
3. the needle is inserted at ``depth`` % of the haystack, backed up to the end of a sentence: the insertion point
   moves back until the token before it is a ``"."`` token (depth 100: the needle is appended);
4. the model gets Kamradt's three messages (system, the haystack, the question); a judge scores the answer 1-10.

The modules, each a few small functions of plain data:

- :mod:`~lcrag.papers.thesis.needle.needles` — the needles and their questions (Kamradt's, the thesis's laser
  needle, RULER-style variants), each scoring an answer by deterministic recall;
- :mod:`~lcrag.papers.thesis.needle.haystack` — one haystack and where its needle landed (``make_haystack``);
- :mod:`~lcrag.papers.thesis.needle.plan` — the cells of a length × depth × needle grid (``needle_grid``) and the
  order that lets llama.cpp reuse the longest prompt prefix (``prefix_order``, ``prefill_cost``);
- :mod:`~lcrag.papers.thesis.needle.asking` — Kamradt's messages, asking the model with the full haystack
  (``answer_cells``) or its BM25 chunks (``rag_cells``);
- :mod:`~lcrag.papers.thesis.needle.judging` — Kamradt's 1-10 judge (``judge_cells``);
- :mod:`~lcrag.papers.thesis.needle.analysis` — found or not, scorer agreement, depth profile, heatmap table, full
  vs RAG, and the thesis's explanation (word frequencies, the needle's BM25 rank);
- :mod:`~lcrag.papers.thesis.needle.claims` — the claim H4 (``check_h4``).

Tables are tidy: one row per model × needle × setting × length × depth.
"""
