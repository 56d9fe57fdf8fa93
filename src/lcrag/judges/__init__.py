"""The judges: what scores an answer when no exact scorer exists, one module ``lcrag.judges.<module>`` per judge,
named in the papers' words.

=======================  ================================  =============================  ==============================
judge (module)           what it decides                   scale                          where its prompt comes from
=======================  ================================  =============================  ==============================
lexical (similarity)     how much of an insight (a key     share of content words 0..1,   none: word overlap
                         point) a bullet (sentence) says   labels by fitted thresholds
embedding (similarity)   the same, by meaning              cosine of MiniLM embeddings,   none: sentence embeddings
                                                           labels by fitted thresholds
Kamradt (kamradt)        how accurate a needle answer      rating 1-10; its expected      LangChain's labeled scoring
                         is, the needle as reference       value from the logprobs        prompt, Kamradt's criterion
entailment (entailment)  whether a response entails a      yes 1, no 0, neutral 0,        Long²RAG's P6, verbatim
                         key point (Long²RAG's Eq. 1)      unparseable NaN                (papers.long2rag.prompts)
insight (insight)        whether a summary covers a        full 1, partial 0.5, no 0;     SummHay's eval_summhay.txt,
                         reference insight, and where      the covering bullet's id       byte for byte (EVAL_PROMPT)
=======================  ================================  =============================  ==============================

**The default judge** (:mod:`~lcrag.judges.default`): wherever the book needs an LLM judge (Kamradt, entailment,
insight) and a run names none, a run on an embedded model is judged by the most capable embedded chat model,
Qwen2.5-Coder-1.5B-Instruct (:data:`~lcrag.judges.default.CAPABLE_JUDGE`; SmolLM2 and Gemma-3 cannot judge), and a
chat model a user brings judges itself (:func:`~lcrag.judges.default.default_judge`); an evaluator study measures
both embedded Qwen2.5-Coder judges (:func:`~lcrag.judges.default.default_judges`). A results table names an LLM
judge by its spec (Long²RAG) or ``llm:<model name>`` (SummHay): :func:`~lcrag.judges.default.judge_label`.

What a paper does with the judgments stays with it: Key Point Recall is :mod:`lcrag.metrics.kpr`, SummHay's coverage
and citation scores :mod:`lcrag.metrics.summhay`, the needle's recall :mod:`lcrag.metrics.needle`; the judge a
chapter's verdicts trust, chosen by agreement with humans, is :func:`lcrag.book.verdicts.choose_judge`.
"""
