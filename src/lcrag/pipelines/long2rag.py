"""Long²RAG (Qi et al. 2024): generation over 5 documents, Key Point Recall judged per key point, and the paper's
key-point pipeline, on any :mod:`lcrag.models` model.

1. **Prompts** P0-P8, verbatim from the paper (inventory §1.8); the prompts the paper does not give (the generation
   template around P0, the snippet and summary prompts, the one-shot demonstrations of P5 / P7) are ours, named
   ``OUR_*``, and say so.
2. **Generation** (:func:`generate`): the documents concatenated with a separator, then the question and P0; greedy.
   Inputs longer than the window are handled by an explicit policy (:func:`fit_documents`: every document cut to
   an equal share of the budget, from its end) and counted (``truncated`` column).
3. **Document processing** for the Table 2 analogue (:func:`process_documents`): the first 512 / 1024 / 2048
   characters of each document, an LLM snippet, an LLM summary, or none.
4. **Judging** (Eq. 1): :func:`judge_llm` makes one P6 call per key point (the response as the document, the key
   point as the claim); :func:`judge_lexical` is the deterministic judge (:mod:`lcrag.metrics.judges`' lexical
   similarity of the key point to the response's best sentence, cut at a threshold fitted on SummHay's human
   labels by :func:`calibrate`).
5. **The key-point pipeline** (:func:`extract_key_points` P5, :func:`deduplicate` P7, :func:`autods_scores` P8 with
   YES/NO logprobs, threshold 0.7) and its validation against the human SummHay insights (:func:`recovery`).
6. **Analyses**: length bins scaled to the window (:func:`length_bins`), two-judge rank agreement
   (:func:`judge_rank_agreement`), KPP/KPF (:func:`response_points_precision`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from lcrag.metrics import kpr as K
from lcrag.metrics.judges import lexical_similarity

# ============================================================================================ prompts (verbatim)

P0_GENERATION = (
    "Your answer should incorporate as many important points from the documents as possible that help in "
    "answering the question."
)

P1_FILTER_ELI5 = """Please evaluate and score a given query based on the following criteria. Each satisfied criterion earns one point, with a maximum score of 5 points:
1. Exclude common sense questions: Filter out any queries that can be answered with basic common knowledge or a simple search engine query. Example: "What is the boiling point of water?" or "What is the highest mountain in the world?"
2. Ensure clarity: Filter out any queries that are unclear or have a vague scope. Example: "Tell me something interesting." or "Explain this."
3. Ensure no ambiguity: Filter out any queries that could have multiple interpretations, ensuring the query has one clear answer or direction. Example: "How do you do this?" (needs to specify what "this" refers to)
4. Complexity requirement: Select queries that require deep thinking, detailed explanation, or multi-step reasoning. Example: "How can graph neural networks be used to optimize recommendation algorithms in social networks?"
5. Subjective opinion: Select queries that require the user to provide personal insights or subjective opinions. Example: "What are your thoughts on the future of artificial intelligence in healthcare?"
Please score the given query based on these criteria, with a range of 1 to 5 points. You should output the score wrapped with [], like [score].
Here is the query:
{query}
Your score is:"""

_EVOLVE_REQUIREMENTS = """The #Created Question# must meet the following requirements:
1. The question should require a long-form response that includes several specific details.
2. Do not generate commonsense, vague, or ambiguous questions.
3. The question should be reasonable and can be responded to by humans.
4. You are encouraged to generate questions that require deep thinking, detailed explanations, or multi-step reasoning.
5. The #Created Question# should be very specific and niche within the topic of {topic}. The created question must be closely related to the topic of {topic}.
6. Follow the question styles in the #Given Question#. The #Given Question# belongs to type {question_type}.
7. Wrap the #Created Question# in square brackets, like [created question]. You can generate multiple questions once a time and wrap each question in square brackets, like created question i: [question i].
#Given Question#:
{seed_question}
#Created Question#:"""

P2_IN_WIDTH = (
    "You are a question generator. Your goal is to draw inspiration from the #Given Question# to create a brand new "
    "question.\nThis new question should belong to the same question category as the #Given Question#. But "
    "remember, the #Created Question# should be closely related to {topic} topic.\nThe LENGTH and difficulty level "
    "of the #Created Question# should be similar to that of the #Given Question#.\n" + _EVOLVE_REQUIREMENTS
)

P3_IN_DEPTH = (
    "You are a question generator. Your goal is to draw inspiration from the #Given Question# to create a brand new "
    "question. This new question should become the more complex version of the #Given Question# to make those "
    "famous AI systems (e.g., ChatGPT and GPT4) a bit harder to handle. But remember, the #Created Question# should "
    "be closely related to {topic} topic.\nYou can complicate the given prompt using the following methods: "
    "deepening, concretizing, increasing reasoning steps, and complicating input.\nYou should try your best not to "
    "make the #Created Question# become verbose, #Created Question# can only add 10 to 20 words into #Given "
    "Question#.\nThis new question should belong to the same question category as the #Given Question#.\n"
    + _EVOLVE_REQUIREMENTS
)

P4_DECOMPOSE = """You are a language analysis assistant capable of analyzing user questions to determine if and how to decompose the question.
**Problem Definition**
1. Simple question: Direct questions that only require simple information and do not include metaphors, multi-hop, multi-entity, or other complex logic questions;
2. Complex question: Includes multi-hop, metaphors, multi-entity, complex conditions, etc., requiring in-depth analysis and thought, as well as support from various types of information;
3. Vague question: Refers to questions with unclear intent, lacking a query subject, or ambiguously expressed content.
**Task Requirements**
1. For simple questions, there is no need to decompose the question;
2. For complex questions, decompose the complex question into multiple sub-questions based on the specific content of the question, ensuring the sub-question has a complete intent. Sub-questions need to be more concise and easier to search;
3. For vague questions, reasonably expand based on the information provided in the question, generating multiple related questions, each covering different aspects of the query subject.
Analyze user questions according to the given requirements and provide results. The results should be output in the format of an inline JSON.
Output format:
```json
"Question Type": "Simple/Complex/Vague",
"Sub-questions": ["..."]
```
Question: {query}"""

P5_EXTRACT = """Based on the text provided, identify key points in the text that directly help in responding to the query. Format your response as follows: each point should start with "Point [number]:", followed by its content and spans in the text that entails the key point.
IMPORTANT: The output must be of the format " Point [number]: <point_start>[content of point]<point_end><span_start>[span1]<span_end><span_start>[span2]<span_end>"
IMPORTANT: Ensure each point is helpful in responding to the query. Keep the point using the original language and do not add explanations.
IMPORTANT: Each span must be a single consecutive verbatim span from the corresponding passages. Copy verbatim the spans, don't modify any word!
Here is an example:
{demonstration}
Remember:
- key points can be abstracted or summarized, but the span must be a copy of the original text. The content of the key point does NOT need to be the same as that of the span.
- These key points must be helpful in responding to the query.
- Copy verbatim the spans, don't modify any word! If there are multiple spans for a point, separate them with <span_start> and <span_end> tokens.
[Query]: {query}
[Text]: {text}
[Key Point]"""

P6_ENTAILMENT = """Your task is to determine whether a claim is entailed with a document.
You should evaluate whether the information in the document supports or describes the claim provided.
You must provide an answer based on whether the document does entail the claim, does not entail the claim, or is neutral.
If the claim is entailed, you should provide snippets from the document that support this claim.
Document: {document}
Claim: {claim}
Provide your answer as [yes], [no], or [neutral]. State your reason behind the answer and provide snippets from the document that support this claim if your answer is [yes]."""

P7_DEDUPLICATE = """Based on the points extracted from a piece of text, identify and remove any duplicate points to streamline the list.
REMEMBER:
- The de-duplicated points need to contain all the original points.
- An original point cannot exist in two different de-duplicated points at the same time.
- Format your response as follows: each unique point should start with "Point [number]:", followed by its content and corresponding original point numbers. The corresponding original point numbers should be wrapped with [].
Here is an example:
{demonstration}
Remember to not add any new points, only de-duplicate the existing ones. And do not add any explanations.
[Original Points]
{points}
[De-duplicate Points]"""

P8_AUTODS = """You are a helpful AI assistant. Your role is to evaluate whether a piece of information can serve as a key point in answering the question.
question: {question}
information: {point}
Can the above information directly help in addressing the question (thus being a key point)? You must respond with YES or NO."""

PAPER_PROMPTS: dict[str, str] = {
    "P0": P0_GENERATION,
    "P1": P1_FILTER_ELI5,
    "P2": P2_IN_WIDTH,
    "P3": P3_IN_DEPTH,
    "P4": P4_DECOMPOSE,
    "P5": P5_EXTRACT,
    "P6": P6_ENTAILMENT,
    "P7": P7_DEDUPLICATE,
    "P8": P8_AUTODS,
}

# ============================================================================================ prompts (ours)

#: Ours (the paper's "clear separators" are unstated): the line before each document.
OUR_SEPARATOR = "\n\n===== Document {i} =====\n"
#: Ours: documents first (the paper's q ‖ d^q concatenation with P0 "appended"), then the question and P0.
OUR_GENERATION = "{documents}\n\n===== End of documents =====\n\nQuestion: {question}\n\n" + P0_GENERATION
#: Ours (the paper's GPT-4o snippet / summary prompts are not given): per document, capped by max_tokens.
OUR_SNIPPET = (
    "Copy, word for word, the one or two passages of the document below that are most relevant to the question. "
    "Output only the copied passages.\n\nQuestion: {question}\n\nDocument:\n{document}"
)
OUR_SUMMARY = (
    "Summarize the document below in a few sentences, keeping the information that helps answer the question.\n\n"
    "Question: {question}\n\nDocument:\n{document}"
)
#: Ours: the one-shot demonstrations of P5 and P7 (the paper's are not given), on the paper's Fig. 1 example.
OUR_P5_DEMONSTRATION = (
    "[Query]: How do the complex song structures of a nightingale compare to the simpler calls of a common sparrow?\n"
    "[Text]: Calls are generally genetic, while songs are both inherited and learned. The nightingale's song is "
    "complex and beautiful, while the sparrow's chirp is simpler and more straightforward.\n"
    "[Key Point]\n"
    "Point 1: <point_start>Calls are inherited, while songs are learned.<point_end><span_start>Calls are generally "
    "genetic, while songs are both inherited and learned.<span_end>\n"
    "Point 2: <point_start>The nightingale's song is complex while the sparrow's chirp is simple.<point_end>"
    "<span_start>The nightingale's song is complex and beautiful, while the sparrow's chirp is simpler and more "
    "straightforward.<span_end>"
)
OUR_P7_DEMONSTRATION = (
    "[Original Points]\nPoint 1: Calls are inherited, while songs are learned.\nPoint 2: Songs are learned and "
    "calls are genetic.\nPoint 3: The nightingale's song is complex.\n[De-duplicate Points]\n"
    "Point 1: Calls are inherited, while songs are learned. [1, 2]\nPoint 2: The nightingale's song is complex. [3]"
)

AUTODS_THRESHOLD = 0.7  # §3.3 / App. A.2
TRUNCATION_CHARS = (512, 1024, 2048)  # Table 2's trunk sizes, read as characters per document (Finardi et al.)
VARIANTS = ("none", "trunc512", "trunc1024", "trunc2048", "snippet", "summary")


# ============================================================================================ generation


def fit_documents(documents: Sequence[str], budget: int, count: Callable[[str], int]) -> tuple[list[str], int]:
    """Documents cut so their tokens (``count``) sum to at most ``budget``: the context policy.

    Nothing is cut when they fit. Otherwise every document longer than an equal share of what is left is cut from
    its end, by whole words, to that share (shorter documents keep all their tokens and give their unused share
    to the others). Returns ``(documents, n_cut)``.
    """
    lengths = [count(d) for d in documents]
    if sum(lengths) <= budget:
        return list(documents), 0
    order = sorted(range(len(documents)), key=lambda i: lengths[i])
    shares, left = {}, budget
    for pos, i in enumerate(order):
        share = left // (len(order) - pos)
        shares[i] = min(lengths[i], share)
        left -= shares[i]
    out, n_cut = [], 0
    for i, doc in enumerate(documents):
        if lengths[i] <= shares[i]:
            out.append(doc)
            continue
        words = doc.split()
        lo, hi = 0, len(words)  # the most words whose count fits the share
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count(" ".join(words[:mid])) <= shares[i]:
                lo = mid
            else:
                hi = mid - 1
        out.append(" ".join(words[:lo]))
        n_cut += 1
    return out, n_cut


def join_documents(documents: Sequence[str], separator: str = OUR_SEPARATOR) -> str:
    """The documents concatenated, each after its numbered separator line."""
    return "".join(separator.format(i=i) + d.strip() for i, d in enumerate(documents, start=1)).strip()


def generation_prompt(question: str, documents: Sequence[str], separator: str = OUR_SEPARATOR) -> str:
    """The generation input: documents with separators, the question, and P0 (:data:`OUR_GENERATION`)."""
    return OUR_GENERATION.format(documents=join_documents(documents, separator), question=question)


def prompt_budget(model, max_tokens: int, margin: int = 64) -> int:
    """Tokens the documents may take: the window minus the answer, the template around them, and a margin."""
    template = model.count_tokens(generation_prompt("x" * 80, ["x"]))
    return model.info.context_window - max_tokens - template - margin


def generate(model, items: pd.DataFrame, documents_column: str = "documents", max_tokens: int = 512,
             variant: str = "none", progress: bool = False) -> pd.DataFrame:
    """One greedy response per item: columns question_id, variant, response, input_tokens (documents, after the
    policy), documents_tokens (before), truncated (documents cut by :func:`fit_documents`), prompt_tokens,
    completion_tokens, finish_reason, source."""
    budget = prompt_budget(model, max_tokens)
    requests, meta = [], []
    for r in items.to_dict("records"):
        docs = list(r[documents_column])
        before = sum(model.count_tokens(d) for d in docs)
        fitted, n_cut = fit_documents(docs, budget, model.count_tokens)
        requests.append({"prompt": generation_prompt(r["question"], fitted), "max_tokens": max_tokens,
                         "temperature": 0.0, "context_policy": "error"})
        meta.append({"question_id": r["question_id"], "variant": variant, "documents_tokens": before,
                     "input_tokens": sum(model.count_tokens(d) for d in fitted) if n_cut else before,
                     "truncated": n_cut})
    out = model.map("ask", requests, progress=progress)
    rows = [
        {**m, "response": c.text, "prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens,
         "finish_reason": c.finish_reason, "source": c.source}
        for m, c in zip(meta, out, strict=True)
    ]
    return pd.DataFrame(rows)


# ============================================================================================ document processing


def truncate_chars(document: str, n: int) -> str:
    """The first ``n`` characters of ``document`` (Table 2's "trunk size", per document)."""
    return document[:n]


def process_documents(model, items: pd.DataFrame, variant: str, max_tokens: int = 128) -> pd.Series:
    """Per item, its documents as ``variant`` leaves them: ``none`` (as is), ``trunc512`` / ``trunc1024`` /
    ``trunc2048`` (first N characters each), ``snippet`` / ``summary`` (one call per document with
    :data:`OUR_SNIPPET` / :data:`OUR_SUMMARY`, at most ``max_tokens`` each; documents cut to fit the window)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {VARIANTS}")
    if variant == "none":
        return items["documents"].map(list)
    if variant.startswith("trunc"):
        n = int(variant.removeprefix("trunc"))
        return items["documents"].map(lambda docs: [truncate_chars(d, n) for d in docs])
    template = OUR_SNIPPET if variant == "snippet" else OUR_SUMMARY
    requests, shape = [], []
    for r in items.to_dict("records"):
        shape.append(len(r["documents"]))
        for d in r["documents"]:
            requests.append({"prompt": template.format(question=r["question"], document=d),
                             "max_tokens": max_tokens, "temperature": 0.0, "context_policy": "truncate_middle"})
    texts = [c.text.strip() for c in model.map("ask", requests)]
    out, k = [], 0
    for n in shape:
        out.append(texts[k : k + n])
        k += n
    return pd.Series(out, index=items.index)


# ============================================================================================ judges


def judgment_frame(responses: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """One row per (response, key point): question_id, variant, key_point_id, key_point, response."""
    kp = items[["question_id", "key_points", "key_point_ids"]] if "key_point_ids" in items else items[
        ["question_id", "key_points"]].assign(key_point_ids=lambda d: [
            [f"{q}#{k}" for k in range(len(p))] for q, p in zip(d["question_id"], d["key_points"], strict=True)])
    merged = responses[["question_id", "variant", "response"]].merge(kp, on="question_id", how="left",
                                                                    validate="many_to_one")
    rows = [
        {"question_id": r["question_id"], "variant": r["variant"], "key_point_id": kid, "key_point": text,
         "response": r["response"]}
        for r in merged.to_dict("records")
        for kid, text in zip(r["key_point_ids"], r["key_points"], strict=True)
    ]
    return pd.DataFrame(rows, columns=["question_id", "variant", "key_point_id", "key_point", "response"])


def judge_llm(model, pairs: pd.DataFrame, document: str = "response", claim: str = "key_point",
              max_tokens: int = 64, parse: str = "default", progress: bool = False) -> pd.DataFrame:
    """Eq. 1 by the P6 judge: one call per row of ``pairs`` (``document`` column as the Document, ``claim`` column
    as the Claim), greedy. Adds ``raw``, ``label`` (yes / no / neutral / None), ``value`` (1 / 0 / NaN) and
    ``judge`` (the model's spec; with ``parse`` other than "default" appended, e.g. ``+words``). ``parse`` picks
    the reader of the answer (:data:`lcrag.metrics.kpr.PARSERS`). The document is cut in the middle if it does
    not fit the window."""
    reader = K.PARSERS[parse]
    requests = [
        {"prompt": P6_ENTAILMENT.format(document=d, claim=c), "max_tokens": max_tokens, "temperature": 0.0,
         "context_policy": "truncate_middle"}
        for d, c in zip(pairs[document], pairs[claim], strict=True)
    ]
    out = model.map("ask", requests, progress=progress)
    judged = pairs.copy()
    judged["raw"] = [c.text for c in out]
    judged["label"] = [reader(c.text) for c in out]
    judged["value"] = [K.entailment_value(label) for label in judged["label"]]
    judged["judge"] = model.spec + ("" if parse == "default" else f"+{parse}")
    return judged


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    """A response split into sentences and lines (the deterministic judge compares a key point with each)."""
    parts = [s.strip() for s in _SENTENCE.split(text or "")]
    return [s for s in parts if s] or [""]


def lexical_scores(key_points: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    """Per (key point, text): the best share of the key point's content words in one sentence of the text
    (:func:`lcrag.metrics.judges.lexical_similarity`)."""
    return np.array([float(lexical_similarity([k], sentences(t)).max()) for k, t in zip(key_points, texts,
                                                                                      strict=True)])


def reparse(judged: pd.DataFrame, parse: str) -> pd.DataFrame:
    """The same LLM answers (``raw``) read with another parser (no model call): label, value and judge redone."""
    out = judged.copy()
    out["label"] = [K.PARSERS[parse](t) for t in out["raw"]]
    out["value"] = [K.entailment_value(label) for label in out["label"]]
    out["judge"] = out["judge"].str.split("+").str[0] + ("" if parse == "default" else f"+{parse}")
    return out


def judge_lexical(pairs: pd.DataFrame, threshold: float, document: str = "response",
                  claim: str = "key_point") -> pd.DataFrame:
    """Eq. 1 by the deterministic judge: yes (1) when the lexical score reaches ``threshold`` (from
    :func:`calibrate`), else 0; never unparseable. Adds ``similarity``, ``label``, ``value``, ``judge``."""
    judged = pairs.copy()
    judged["similarity"] = lexical_scores(list(pairs[claim]), list(pairs[document]))
    judged["value"] = (judged["similarity"] >= threshold).astype(float)
    judged["label"] = np.where(judged["value"] == 1, K.YES, K.NO)
    judged["judge"] = "lexical"
    return judged


# ============================================================================================ judge calibration


def benchmark_pairs(bench: pd.DataFrame, human_yes: Sequence[str] = ("fully_covered",)) -> pd.DataFrame:
    """SummHay's human coverage labels as entailment pairs: one row per (annotated summary, insight).

    ``response`` = the summary's bullets joined by newlines (the Document of P6), ``key_point`` = the insight (the
    Claim), ``human`` = 1 when the annotators' label is in ``human_yes`` (default: full coverage only; pass
    ``("fully_covered", "partially_covered")`` for the lenient reading), ``half`` = fit (even record) / held-out.
    """
    rows = []
    for r in bench.to_dict("records"):
        text = {i["insight_id"]: i["insight"] for i in r["reference_insights"]}
        for a in r["annotation"]:
            rows.append({
                "record": r["record"],
                "half": "fit" if int(r["record"]) % 2 == 0 else "held-out",
                "question_id": f"bench/{r['record']}",
                "variant": "summhay-benchmark",
                "key_point_id": a["insight_id"],
                "key_point": text[a["insight_id"]],
                "response": "\n".join(r["summary"]),
                "coverage": a["coverage"],
                "human": int(a["coverage"] in human_yes),
            })
    return pd.DataFrame(rows)


def calibrate(pairs: pd.DataFrame) -> tuple[float, pd.DataFrame]:
    """The deterministic judge's threshold, fitted on the ``fit`` half of :func:`benchmark_pairs` (best accuracy),
    and its agreement with the human labels on each half (accuracy, Cohen's κ, ...)."""
    scored = pairs.assign(similarity=lexical_scores(list(pairs["key_point"]), list(pairs["response"])))
    fit = scored[scored["half"] == "fit"]
    t = K.fit_binary_threshold(fit["similarity"], fit["human"])
    rows = []
    for half, g in [("fit", fit), ("held-out", scored[scored["half"] == "held-out"]), ("all", scored)]:
        rows.append({"judge": "lexical", "half": half, "threshold": t,
                     **K.binary_agreement((g["similarity"] >= t).astype(float), g["human"])})
    return t, pd.DataFrame(rows)


def llm_agreement(judged: pd.DataFrame) -> pd.DataFrame:
    """Agreement of an LLM judge's values (:func:`judge_llm` on benchmark pairs) with the human labels."""
    rows = []
    for half, g in [*judged.groupby("half"), ("all", judged)]:
        rows.append({"judge": judged["judge"].iloc[0], "half": half, "threshold": np.nan,
                     **K.binary_agreement(g["value"], g["human"])})
    return pd.DataFrame(rows)


def sample_pairs(pairs: pd.DataFrame, n: int, seed: int = 0, half: str = "held-out") -> pd.DataFrame:
    """``n`` pairs of one half drawn at random (seeded), balanced between human yes and no when possible."""
    pool = pairs[pairs["half"] == half]
    yes, no = pool[pool["human"] == 1], pool[pool["human"] == 0]
    k = min(n // 2, len(yes), len(no))
    picked = pd.concat([yes.sample(k, random_state=seed), no.sample(n - k, random_state=seed)]) if n > 1 else (
        pool.sample(n, random_state=seed))
    return picked.sort_index()


# ============================================================================================ KPR tables


def kpr_table(judgments: pd.DataFrame, items: pd.DataFrame, by: str | None = None,
              unparseable: str = "zero") -> pd.DataFrame:
    """KPR per (judge, variant[, by]) from judged rows: kpr, n_questions, n_key_points, n_unparseable."""
    rows = []
    for (judge, variant), g in judgments.groupby(["judge", "variant"], sort=False):
        if by is None:
            rows.append({"judge": judge, "variant": variant, **K.kpr(g, unparseable)})
        else:
            t = K.kpr_by(g, items, by, unparseable)
            t.insert(0, "variant", variant)
            t.insert(0, "judge", judge)
            rows += t.to_dict("records")
    return pd.DataFrame(rows)


def judge_rank_agreement(table: pd.DataFrame, systems: str = "variant", judges: Sequence[str] | None = None) -> dict:
    """Spearman ρ and Kendall τ between two judges' KPR over the same systems (Table 3 analogue)."""
    from scipy.stats import kendalltau, spearmanr

    wide = table.pivot(index=systems, columns="judge", values="kpr").dropna()
    judges = list(judges or wide.columns)
    if len(judges) != 2:
        raise ValueError(f"need exactly two judges, got {judges}")
    a, b = wide[judges[0]], wide[judges[1]]
    if len(wide) < 2:
        return {"n_systems": len(wide), "spearman": np.nan, "kendall": np.nan, "judges": judges}
    return {"n_systems": len(wide), "spearman": float(spearmanr(a, b).statistic),
            "kendall": float(kendalltau(a, b).statistic), "judges": judges,
            "mean_difference": float((b - a).mean())}


#: Paper's Fig. 6 input-length bin edges (tokens, for windows of 32k+) and Fig. 7 generation-length edges.
PAPER_INPUT_EDGES = (8_000, 16_000, 25_000, 32_000)
PAPER_OUTPUT_EDGES = (1_000, 1_500, 2_000, 2_500, 3_000, 3_500, 4_000, 4_500, 5_000)


def scaled_edges(paper_edges: Sequence[int], paper_top: int, our_top: int) -> list[int]:
    """The paper's bin edges scaled by ``our_top / paper_top`` (rounded): input bins to our window
    (``paper_top`` = 32k, its last edge), generation bins to our ``max_tokens`` (``paper_top`` = 5k)."""
    return [int(round(e * our_top / paper_top)) for e in paper_edges]


def length_bins(values: Sequence[float], edges: Sequence[int]) -> list[str]:
    """Bin labels ``<a``, ``a-b``, ``>c`` (left-closed: a value equal to an edge goes to the upper bin)."""
    labels = []
    for v in values:
        if v < edges[0]:
            labels.append(f"<{edges[0]}")
        elif v >= edges[-1]:
            labels.append(f">{edges[-1]}")
        else:
            k = next(i for i in range(1, len(edges)) if v < edges[i])
            labels.append(f"{edges[k - 1]}-{edges[k]}")
    return labels


LENGTH_COLUMNS = ("input_tokens", "completion_tokens")


def response_kpr(judgments: pd.DataFrame, responses: pd.DataFrame | None = None,
                 unparseable: str = "zero") -> pd.DataFrame:
    """One row per judge and response (question, variant): its Key Point Recall (the inner sum of Eq. 2, with
    :func:`lcrag.metrics.kpr.question_kpr`'s counts), and with ``responses`` the response's ``input_tokens`` and
    ``completion_tokens``. The unit of the length analyses, of the claims' intervals and of the synthesis."""
    q = []
    for (judge, variant), g in judgments.groupby(["judge", "variant"], sort=False):
        t = K.question_kpr(g, unparseable)
        t["judge"], t["variant"] = judge, variant
        q.append(t)
    per = pd.concat(q, ignore_index=True)
    if responses is None:
        return per
    return per.merge(responses[["question_id", "variant", *LENGTH_COLUMNS]], on=["question_id", "variant"])


def with_length_bins(per_response: pd.DataFrame, column: str, edges: Sequence[int]) -> pd.DataFrame:
    """``per_response`` (:func:`response_kpr` with responses) and a ``bin`` column: :func:`length_bins` of
    ``column``, an ordered categorical whose categories run from the shortest bin to the longest."""
    order = [f"<{edges[0]}", *(f"{a}-{b}" for a, b in zip(edges, edges[1:], strict=False)), f">{edges[-1]}"]
    labels = pd.Categorical(length_bins(per_response[column], edges), categories=order, ordered=True)
    return per_response.assign(bin=labels)


def kpr_by_length(per_response: pd.DataFrame, column: str, edges: Sequence[int]) -> pd.DataFrame:
    """KPR per judge and length bin of ``column`` (``input_tokens`` or ``completion_tokens``) over every
    response of ``per_response`` (:func:`response_kpr` with responses); bins in order, empty bins left out."""
    per = with_length_bins(per_response, column, edges)
    out = per.groupby(["judge", "bin"], observed=True).agg(kpr=("recall", "mean"), n=("recall", "size"),
                                                           mean_length=(column, "mean")).reset_index()
    return out.assign(bin=out["bin"].astype(str))


def trusted_judge(agreement: pd.DataFrame, judges: Sequence[str]) -> str:
    """Among ``judges``, the one whose labels agree best with the humans: the highest held-out Cohen's kappa in
    an agreement table (columns ``judge``, ``half``, ``n``, ``kappa``, as the chapter's ``judge_agreement``),
    among judges measured on at least ``verdicts.MIN_JUDGE_PAIRS`` pairs (a kappa of 1.0 on 4 pairs decides
    nothing). Without an eligible judge, the first judge in sorted order."""
    from lcrag.book.verdicts import choose_judge

    judges = list(judges)
    if not judges:
        raise ValueError("no judge to choose from")
    return choose_judge(agreement, judges) or sorted(judges)[0]


# ============================================================================================ key-point pipeline

_POINT = re.compile(r"Point\s*\[?\s*(\d+)\s*\]?\s*:\s*(.*?)(?=\n?\s*Point\s*\[?\s*\d+\s*\]?\s*:|\Z)", re.S)
_CONTENT = re.compile(r"<point_start>(.*?)(?:<point_end>|$)", re.S)
_SPAN = re.compile(r"<span_start>(.*?)(?:<span_end>|$)", re.S)


def parse_points(text: str) -> list[dict]:
    """P5 output as ``[{number, point, spans}]``: each ``Point N:`` block's ``<point_start>`` content (or, without
    the markers, the block's text up to its first span) and its ``<span_start>`` spans. Empty points are dropped."""
    out = []
    for number, block in _POINT.findall(text or ""):
        m = _CONTENT.search(block)
        content = m.group(1) if m else block.split("<span_start>")[0]
        content = content.strip().strip("[]").strip()
        if content:
            out.append({"number": int(number), "point": content,
                        "spans": [s.strip() for s in _SPAN.findall(block) if s.strip()]})
    return out


def extract_key_points(model, items: pd.DataFrame, max_tokens: int = 256,
                       demonstration: str = OUR_P5_DEMONSTRATION) -> pd.DataFrame:
    """P5 on every document of every item (one call per document, one round): one row per extracted point,
    with question_id, doc (0-based), number, point, spans, span_verbatim (every span is a substring of the
    document). Documents are cut in the middle if they do not fit the window."""
    requests, where = [], []
    for r in items.to_dict("records"):
        for d, doc in enumerate(r["documents"]):
            requests.append({"prompt": P5_EXTRACT.format(demonstration=demonstration, query=r["question"], text=doc),
                             "max_tokens": max_tokens, "temperature": 0.0, "context_policy": "truncate_middle"})
            where.append((r["question_id"], d, doc))
    rows = []
    for (qid, d, doc), c in zip(where, model.map("ask", requests), strict=True):
        for p in parse_points(c.text):
            rows.append({"question_id": qid, "doc": d, **p,
                         "span_verbatim": bool(p["spans"]) and all(s in doc for s in p["spans"])})
    return pd.DataFrame(rows, columns=["question_id", "doc", "number", "point", "spans", "span_verbatim"])


_GROUP = re.compile(r"\[([\d,\s]+)\]\s*$")


def parse_dedup(text: str, n_original: int) -> tuple[list[dict], dict]:
    """P7 output as ``[{point, sources}]`` and the check the paper describes: every original point in exactly
    one de-duplicated point. ``check`` = {ok, missing, repeated, unknown} (original numbers, 1-based)."""
    groups = []
    for _, block in _POINT.findall(text or ""):
        line = block.strip().splitlines()[0] if block.strip() else ""
        m = _GROUP.search(line)
        sources = [int(x) for x in re.findall(r"\d+", m.group(1))] if m else []
        content = _GROUP.sub("", line).strip()
        if content:
            groups.append({"point": content, "sources": sources})
    seen = [s for g in groups for s in g["sources"]]
    missing = sorted(set(range(1, n_original + 1)) - set(seen))
    repeated = sorted({s for s in seen if seen.count(s) > 1})
    unknown = sorted({s for s in seen if not 1 <= s <= n_original})
    return groups, {"ok": not (missing or repeated or unknown), "missing": missing, "repeated": repeated,
                    "unknown": unknown}


def deduplicate(model, points: pd.DataFrame, max_tokens: int = 512,
                demonstration: str = OUR_P7_DEMONSTRATION) -> pd.DataFrame:
    """P7 per question over its extracted points. When the output fails the partition check, the original points
    are kept unchanged (the paper does not say what it did; this loses nothing) and ``fallback`` is True.
    One row per kept point: question_id, point, sources, fallback."""
    rows = []
    for qid, g in points.groupby("question_id", sort=False):
        originals = list(g["point"])
        listing = "\n".join(f"Point {i}: {p}" for i, p in enumerate(originals, start=1))
        c = model.ask(P7_DEDUPLICATE.format(demonstration=demonstration, points=listing), max_tokens=max_tokens,
                      temperature=0.0, context_policy="truncate_middle")
        groups, check = parse_dedup(c.text, len(originals))
        if check["ok"]:
            rows += [{"question_id": qid, "point": x["point"], "sources": x["sources"], "fallback": False}
                     for x in groups]
        else:
            rows += [{"question_id": qid, "point": p, "sources": [i], "fallback": True}
                     for i, p in enumerate(originals, start=1)]
    return pd.DataFrame(rows, columns=["question_id", "point", "sources", "fallback"])


def yes_no_score(top: dict[str, float]) -> float:
    """Eq. 3: exp(l_YES) / (exp(l_YES) + exp(l_NO)) from the first answer token's top logprobs.

    Tokens are matched after stripping spaces, any case (``"YES"``, ``" Yes"``), keeping the best logprob of
    each; one side absent from the top list counts as probability 0; neither present -> NaN.
    """
    best: dict[str, float] = {}
    for token, lp in (top or {}).items():
        t = token.strip().upper()
        if t in ("YES", "NO"):
            best[t] = max(lp, best.get(t, -math.inf))
    if not best:
        return float("nan")
    y, n = best.get("YES", -math.inf), best.get("NO", -math.inf)
    m = max(y, n)
    return math.exp(y - m) / (math.exp(y - m) + math.exp(n - m))


def autods_scores(model, questions: Sequence[str], points: Sequence[str], top_logprobs: int = 20) -> list[float]:
    """The AutoDS score (P8) of each (question, point): one call with logprobs, max_tokens 1."""
    requests = [{"prompt": P8_AUTODS.format(question=q, point=p), "max_tokens": 1, "temperature": 0.0,
                 "logprobs": True, "top_logprobs": top_logprobs, "context_policy": "truncate_middle"}
                for q, p in zip(questions, points, strict=True)]
    return [yes_no_score(c.top_logprobs(0)) for c in model.map("ask", requests)]


def recovery(items: pd.DataFrame, points: pd.DataFrame, threshold: float, stage: str) -> pd.DataFrame:
    """How many of each item's human key points (SummHay insights) the pipeline's points recover: an insight is
    recovered when its lexical score against some point (each point one "sentence") reaches ``threshold`` (the
    deterministic judge's cut). One row per item: n_key_points, n_points, n_recovered, recall, stage."""
    rows = []
    for r in items.to_dict("records"):
        pts = list(points.loc[points["question_id"] == r["question_id"], "point"])
        if pts:
            sim = lexical_similarity(r["key_points"], pts).max(axis=1)
            hit = int((sim >= threshold).sum())
        else:
            hit = 0
        rows.append({"question_id": r["question_id"], "stage": stage, "n_key_points": len(r["key_points"]),
                     "n_points": len(pts), "n_recovered": hit, "recall": hit / len(r["key_points"])})
    return pd.DataFrame(rows)


# ============================================================================================ KPP


def response_points_precision(model, responses: pd.DataFrame, items: pd.DataFrame, threshold: float,
                              max_tokens: int = 256) -> pd.DataFrame:
    """KPP per response (our definition; the paper gives none): P5 extracts the response's key points ([Text] =
    the response), and a point is supported when its lexical score against the item's documents (each sentence
    of the concatenation) reaches ``threshold``. Columns: question_id, variant, n_points, n_supported, precision
    (NaN when no point was extracted)."""
    docs = items.set_index("question_id")["documents"]
    question = items.set_index("question_id")["question"]
    requests = [{"prompt": P5_EXTRACT.format(demonstration=OUR_P5_DEMONSTRATION, query=question[q], text=t),
                 "max_tokens": max_tokens, "temperature": 0.0, "context_policy": "truncate_middle"}
                for q, t in zip(responses["question_id"], responses["response"], strict=True)]
    rows = []
    for r, c in zip(responses.to_dict("records"), model.map("ask", requests), strict=True):
        pts = [p["point"] for p in parse_points(c.text)]
        doc_text = "\n".join(docs[r["question_id"]])
        ok = int((lexical_scores(pts, [doc_text] * len(pts)) >= threshold).sum()) if pts else 0
        rows.append({"question_id": r["question_id"], "variant": r["variant"], "n_points": len(pts),
                     "n_supported": ok, "precision": ok / len(pts) if pts else np.nan})
    return pd.DataFrame(rows)
