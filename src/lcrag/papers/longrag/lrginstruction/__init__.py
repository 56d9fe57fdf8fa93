"""LRGinstruction: LongRAG's instruction-data construction pipeline (paper §3.2, App. C, Tables 15-18).

The paper fine-tunes one small model to serve as extractor, filter and generator, on 2,600 instructions that a
teacher LLM (ChatGLM3-32B-128k) writes from multi-hop QA training sets. Each record ``<Q, P_s ∪ P_d, A>`` has its
supporting paragraphs ``P_s``, a random number of distractors ``P_d`` (uniform in [2, |P_d|]) and the answer. Four
kinds of instruction come out of it, in LLaMA-Factory's ``{"instruction", "input": "", "output"}`` format:

- **ext** (Table 16): [STEP-1] the teacher reads ``P_s`` and writes the "global information"; outputs under
  20 tokens are discarded; [STEP-2] a self-evaluator judges whether the answer follows from that information;
  only "True" is kept; [RESULT] the extractor prompt over ``P_s ∪ P_d``, the information as output;
- **cot** (Table 17): [STEP-1] the teacher reads ``P_s``, the question *and the gold answer* and writes a thought
  process; < 20 tokens discarded; [STEP-2] a self-evaluator judges whether it explains the answer; [RESULT-1] the
  CoT prompt over ``P_s ∪ P_d``;
- **fil** (Table 17, [RESULT-2]): one paragraph as the article, the dataset's supporting label as the gold
  ``{"status": ...}``, balanced True/False; the thought process comes from a CoT that passed [STEP-2];
- **rag** (Table 18): the question and the dataset answer over ``P_s ∪ P_d``, no model call.

Modules:

- :mod:`~lcrag.papers.longrag.lrginstruction.prompts`: the prompts sent (the released code's strings,
  ``src/task.py``) and the builders of each instruction record;
- :mod:`~lcrag.papers.longrag.lrginstruction.wording`: the paper's Tables 16-18 as printed, and where the code's
  wording differs from them (:func:`~lcrag.papers.longrag.lrginstruction.wording.prompt_table`);
- :mod:`~lcrag.papers.longrag.lrginstruction.judgement`: the self-evaluator's [STEP-2] answer, read strictly
  and as the code reads it, and why a sample is rejected;
- :mod:`~lcrag.papers.longrag.lrginstruction.records`: pre-processing (App. C.1): silver supporting labels, the
  length test, the distractor draw, the token budget, the pipeline's :class:`Settings`;
- :mod:`~lcrag.papers.longrag.lrginstruction.build`: the model calls (:func:`build_record`, :func:`build_dataset`),
  the summary beside Table 15, the JSONL output.

Deviation forced by the data: LongBench records carry no supporting-paragraph labels (the paper used IRCoT's
training splits, which do), so ``silver_support`` labels a paragraph supporting when its title is named in
the question or it contains a gold answer.
"""
