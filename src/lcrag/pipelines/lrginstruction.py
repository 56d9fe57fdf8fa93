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

The prompts sent are the released code's strings (``src/task.py``: the paper's Tables 16-18 with their true line
breaks; :data:`PAPER_TABLES` keeps the tables as printed and :func:`wording_differences` lists where they differ).
Everything is a small pure function except :func:`build_record` / :func:`build_dataset`, which call a model.

Deviation forced by the data: LongBench records carry no supporting-paragraph labels (the paper used IRCoT's
training splits, which do), so :func:`silver_support` labels a paragraph supporting when its title is named in
the question or it contains a gold answer.
"""

from __future__ import annotations

import difflib
import json
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lcrag import config
from lcrag.data.longbench import split_passages
from lcrag.metrics.qa import normalize_answer
from lcrag.pipelines.longrag import parse_status
from lcrag.text import as_text

TASKS = ("ext", "cot", "fil", "rag")
MIN_CONTEXT_TOKENS = {"hotpotqa": 1500, "2wikimqa": 1500, "2wikimultihopqa": 1500, "musique": 2500}
"""App. C.1 / ``gen_LRGinstruction.py``: a record whose paragraphs total fewer tokens is "short" and discarded."""
MIN_RESPONSE_TOKENS = 20
"""App. C.2-C.3: a [STEP-1] output shorter than this is discarded (the code's ``--min_res_tokens``)."""
MAX_INSTRUCTION_TOKENS = 7000
"""App. C.5: "each multi-hop instruction is < 7k tokens"."""
PAPER_TABLE15 = {"hotpotqa": 200, "2wikimqa": 200, "musique": 200, "qasper": 100}
"""Table 15: instructions per task and dataset (QASPER: ext and cot only)."""

# --------------------------------------------------------------------------- prompts (released code, verbatim)

EXT_STEP1 = (
    "{support}.\nBased on the above background only, please output the original information that needs to be "
    "cited to answer the following questions. Please ensure that the information cited is detailed and "
    "comprehensive.\nQuestion: {question}.\nOutput only the original information of the required reference:"
)
EXT_STEP2 = (
    "I am going to provide you a question, the background information, and the answer to that question. Please "
    "evaluate whether the answer can be solely derived from the given background information. If it can, set "
    "the status value as True, if it can't, set the status value as False.\nQuestion: {question}\nBackground "
    "Information: {response}\nAnswer: {answer}\nYour output format should be the following json format: "
    '{"status": "{the value of status}"}'
)
EXT_RESULT = (
    "{content}\n\nBased on the above background, please output the information you need to cite to answer the "
    "question below.\n{question}"
)
COT_STEP1 = (
    "{support}\n\nGiven question: {question}\nThe answer is: {answer}\nYour task is to give your thought process "
    "for this given question based on the above information, only give me your thought process and do not "
    "output other information.\nThought process:"
)
COT_STEP2 = (
    "Question: {question},\nThought process of the question: {response}\nAnswer: {answer}\nPlease evaluate "
    "whether the thought process of this question can explain the answer to this question. If it can explain "
    'the answer, set the value of status to "True". If it cannot explain the answer, set the value of status to '
    '"False".\nYour output format should be the following json format: {"status": "{the value of status}"}'
)
COT_RESULT = (
    "{content}\nPlease combine the above information and give your thought process for the following "
    "question:\n{question}."
)
FIL_RESULT = (
    "Given an article: {content}\nQuestion: {question}.\nThought process for the question: {response}\nYour "
    "task is to use the thought process provided to decide whether you need to cite the article to answer this "
    "question. If you need to cite the article, set the status value to True. If not, set the status value to "
    'False. Please output the response in the following json format: {"status": "{the value of status}"}'
)
RAG_RESULT = (
    "{content}\nBased on the above information, only give me the answer and do not output any other words.\n"
    "Question: {question}\nAnswer: "
)
FIL_OUTPUT = {True: '{"status":"True"}', False: '{"status":"False"}'}
"""The filtering records' gold outputs, exactly as the code writes them."""

CODE_PROMPTS = {
    ("Table 16", "STEP-1"): EXT_STEP1,
    ("Table 16", "STEP-2"): EXT_STEP2,
    ("Table 16", "RESULT"): EXT_RESULT,
    ("Table 17", "STEP-1"): COT_STEP1,
    ("Table 17", "STEP-2"): COT_STEP2,
    ("Table 17", "RESULT-1"): COT_RESULT,
    ("Table 17", "RESULT-2"): FIL_RESULT,
    ("Table 18", "RESULT"): RAG_RESULT,
}

# --------------------------------------------------------------------------- the paper's tables, as printed

PAPER_TABLES = {
    ("Table 16", "STEP-1"): """{supporting paragraphs}
Based on the above background only, please output the original information that
needs to be cited to answer the following questions. Please ensure that the
information cited is detailed and comprehensive.
Question:{question}
Output only the original information of the required reference:
{global information}""",
    ("Table 16", "STEP-2"): """I am going to provide you with a question, the background information, and
the answer to that question. Please evaluate whether the answer can be solely
derived from the given background information. If it can, set the status value
as True, if it can't, set the status value as False.
Question:{question}
Background Information:{global information}
Answer:{answer}
Your output format should be the following json format:
status: {the value of status}""",
    ("Table 16", "RESULT"): """Instruction:
{content}
Based on the above background, please output the information you need to cite
to answer the question below.
{question}
Output:
{global information}""",
    ("Table 17", "STEP-1"): """{supporting paragraphs}
Given question:{question}
The answer is:{answer}
Your task is to give your thought process for this given question based
on the above information, only give me your thought process and do not output
other information.
Thought process: {CoT}""",
    ("Table 17", "STEP-2"): """Question:{question}
Thought process of the question:{CoT}
Answer:{answer}
Please evaluate whether the thought process of this question can explain
the answer to this question. If it can explain the answer, set the value of
status to True. If it cannot explain the answer, set the value of status to
False. Your output format should be the following json format:
status: {the value of status}""",
    ("Table 17", "RESULT-1"): """Instruction:
{content}
Please combine the above information and give your thought process for the
following
Question:{question}
Output:
{CoT}""",
    ("Table 17", "RESULT-2"): """Instruction:
Given an article:{content}
Question:{question}
Thought process for the question:{CoT}
Your task is to use the thought process provided to decide whether you
need to cite the article to answer this question. If you need to cite the
article, set the status value to True. If not, set the status value to False.
Please output the response in the following json format:
{"status": {the value of status}}
Output:
{status}""",
    ("Table 18", "RESULT"): """Instruction:
{content}
Based on the above information, Only give me the answer and do not output any
other words.
Question:{question}
Output:
{answer}""",
}
"""Tables 16-18 of the paper, verbatim (line breaks from the PDF's wrapping)."""

_SLOT = re.compile(r"\{(support|question|answer|response|content)\}")
_ANY_SLOT = re.compile(r"\{[A-Za-z ]+\}")


def fill(template: str, **values: str) -> str:
    """Substitute the ``{support}``/``{question}``/... slots in one pass.

    One pass, so a paragraph that happens to contain ``{question}`` is not substituted again; the literal JSON
    ``{"status": "{the value of status}"}`` of the judgement prompts is left alone. A slot without a value raises.
    """

    def value(m: re.Match) -> str:
        if m.group(1) not in values:
            raise KeyError(f"no value for slot {{{m.group(1)}}}")
        return values[m.group(1)]

    return _SLOT.sub(value, template)


def ext_step1_prompt(support: Sequence[str], question: str) -> str:
    """[STEP-1] of Table 16: the supporting paragraphs joined with newlines, as the code does."""
    return fill(EXT_STEP1, support="\n".join(support), question=question)


def ext_step2_prompt(question: str, information: str, answer: str) -> str:
    return fill(EXT_STEP2, question=question, response=information, answer=answer)


def cot_step1_prompt(support: Sequence[str], question: str, answer: str) -> str:
    return fill(COT_STEP1, support="\n".join(support), question=question, answer=answer)


def cot_step2_prompt(question: str, cot: str, answer: str) -> str:
    return fill(COT_STEP2, question=question, response=cot, answer=answer)


def record(instruction: str, output: str) -> dict:
    """One training record in the paper's (LLaMA-Factory's) format."""
    return {"instruction": instruction, "input": "", "output": output}


def ext_instruction(content: str, question: str, information: str) -> dict:
    return record(fill(EXT_RESULT, content=content, question=question), information)


def cot_instruction(content: str, question: str, cot: str) -> dict:
    return record(fill(COT_RESULT, content=content, question=question), cot)


def fil_instruction(article: str, question: str, cot: str, supporting: bool) -> dict:
    return record(fill(FIL_RESULT, content=article, question=question, response=cot), FIL_OUTPUT[supporting])


def rag_instruction(content: str, question: str, answer: str) -> dict:
    return record(fill(RAG_RESULT, content=content, question=question), answer)


def paper_prompt(text: str) -> str:
    """The prompt part of a printed table: without the RESULT tables' "Instruction:" / "Output: {...}" frame and
    without the model-output slot that STEP-1 tables print after the prompt."""
    text = text.removeprefix("Instruction:\n")
    text = re.sub(r"\nOutput:\n\{[^{}]*\}$", "", text)
    return re.sub(r"\s*\{(global information|CoT)\}$", "", text)


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", _ANY_SLOT.sub(" SLOT ", text.lower().replace("’", "'")))


def wording_differences(paper: str, code: str) -> list[tuple[str, str]]:
    """Where a printed table and the code's string differ, as ``(paper, code)`` token runs.

    Both are lower-cased, every ``{slot}`` becomes ``SLOT`` (the two name the same slots differently) and
    whitespace is ignored (the paper's line breaks are the PDF's wrapping); words and punctuation are compared.
    """
    a, b = _tokens(paper_prompt(paper)), _tokens(code)
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    return [(" ".join(a[i1:i2]), " ".join(b[j1:j2])) for op, i1, i2, j1, j2 in ops if op != "equal"]


def prompt_table() -> pd.DataFrame:
    """One row per construction prompt: the paper's table, the code's wording, and their differences."""
    rows = []
    for (table, step), code in CODE_PROMPTS.items():
        diffs = wording_differences(PAPER_TABLES[(table, step)], code)
        rows.append(
            {
                "table": table,
                "step": step,
                "words_differ": sum(bool(re.search(r"\w", p + c)) for p, c in diffs),
                "differences (paper -> code)": "; ".join(f"{p or '∅'} -> {c or '∅'}" for p, c in diffs),
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- the self-evaluator's verdict


@dataclass(frozen=True)
class Judgement:
    """A self-evaluator's answer, read strictly: ``status`` True/False, or None when ``form`` is "malformed".

    ``form``: "json" (the whole answer is ``{"status": ...}``), "embedded_json" (such an object inside other
    text), "status_line" (the paper's printed format ``status: True``), or "malformed".
    ``code_true``: what the released code decides (:func:`lcrag.pipelines.longrag.parse_status`: JSON, else
    "True"/"true" anywhere in the text counts as True).
    """

    status: bool | None
    form: str
    code_true: bool

    def accepted(self, rule: str = "strict") -> bool:
        """Keep the sample? ``strict``: a well-formed True; ``code``: the released code's lenient reading."""
        if rule not in ("strict", "code"):
            raise ValueError(f"unknown rule {rule!r}: 'strict' or 'code'")
        return self.code_true if rule == "code" else self.status is True


_OBJECT = re.compile(r"\{[^{}]*\}")
_STATUS_LINE = re.compile(r"""["']?status["']?\s*[:=]\s*["'{]*\s*(true|false)\b""", re.IGNORECASE)


def _status_value(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _json_status(text: str) -> bool | None:
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    return _status_value(obj.get("status")) if isinstance(obj, dict) else None


def parse_judgement(text: str | None) -> Judgement:
    """Read a [STEP-2] answer; never raises. Fences such as ```json are ignored."""
    raw = as_text(text)
    body = re.sub(r"^```(?:json)?\s*|\s*```$", "", raw.strip())
    code_true = parse_status(raw)
    status = _json_status(body)
    if status is not None:
        return Judgement(status, "json", code_true)
    for obj in _OBJECT.findall(body):
        status = _json_status(obj)
        if status is not None:
            return Judgement(status, "embedded_json", code_true)
    m = _STATUS_LINE.search(body)
    if m:
        return Judgement(m.group(1).lower() == "true", "status_line", code_true)
    return Judgement(None, "malformed", code_true)


# --------------------------------------------------------------------------- records: labels, sampling, budget


def title(paragraph: str) -> str:
    """A LongBench paragraph's Wikipedia title: its first line, without a trailing "(disambiguation)"."""
    return re.sub(r"\s*\([^()]*\)\s*$", "", paragraph.split("\n", 1)[0]).strip()


def silver_support(paragraphs: Sequence[str], question: str, answers: Sequence[str]) -> list[str]:
    """Silver supporting labels, one per paragraph: "title" (its title is named in the question), "answer" (it
    contains a gold answer), "title+answer", or "" (a distractor). Matching is on LongBench-normalised text, on
    whole words.

    A stand-in for the ``is_supporting`` labels of the paper's training data, which LongBench records lack.
    """
    q = f" {normalize_answer(question)} "
    golds = [f" {g} " for g in (normalize_answer(a) for a in answers) if g]
    labels = []
    for p in paragraphs:
        t = normalize_answer(title(p))
        text = f" {normalize_answer(p)} "
        named = bool(t) and f" {t} " in q
        has_answer = any(g in text for g in golds)
        labels.append("+".join(k for k, on in (("title", named), ("answer", has_answer)) if on))
    return labels


def sample_distractors(n: int, rng: random.Random) -> list[int]:
    """App. C.1: a number drawn uniformly from [2, n] (all of them when n < 2), then that many distinct
    distractor positions, in draw order."""
    if n <= 0:
        return []
    k = rng.randint(min(2, n), n)
    return rng.sample(range(n), k)


def fit_distractors(support_tokens: int, distractor_tokens: Sequence[int], budget: int) -> int:
    """How many of the drawn distractors (taken in draw order) fit beside the support in ``budget`` tokens."""
    used, kept = support_tokens, 0
    for n in distractor_tokens:
        if used + n > budget:
            break
        used, kept = used + n, kept + 1
    return kept


@dataclass(frozen=True)
class Settings:
    """The pipeline's knobs; the paper's values unless said otherwise."""

    min_context_tokens: int | None = None  # None: the paper's per-dataset threshold (MIN_CONTEXT_TOKENS)
    min_response_tokens: int = MIN_RESPONSE_TOKENS
    max_instruction_tokens: int = MAX_INSTRUCTION_TOKENS
    step1_tokens: int = 1000  # the code's max new tokens for [STEP-1]
    judge_tokens: int = 1000  # the code's max new tokens for [STEP-2]; a JSON verdict needs ~10
    rule: str = "strict"  # "strict" or "code" (see Judgement.accepted)
    seed: int = 42  # the released generator sets none


def prepare(
    item: Mapping, dataset: str, count_tokens: Callable[[str], int], settings: Settings | None = None
) -> dict:
    """Pre-processing (App. C.1) of one LongBench record: labels, the length test, the distractor draw and the
    ``{content}`` of its instructions. Pure (given ``count_tokens``); ``skip`` names why a record is unusable.

    ``item`` (a LongBench record as a dict) has ``_id``, ``input``, ``answers`` and ``context``. The draw uses ``random.Random(f"{seed}:{_id}")``,
    so a record gets the same draw whatever else is run.
    """
    settings = settings or Settings()
    rid, question, answers = item["_id"], item["input"], list(item["answers"])
    paragraphs = split_passages(item["context"], rid)
    labels = silver_support(paragraphs, question, answers)
    support = [i for i, lab in enumerate(labels) if lab]
    others = [i for i, lab in enumerate(labels) if not lab]
    sizes = [count_tokens(p) for p in paragraphs]
    threshold = settings.min_context_tokens or MIN_CONTEXT_TOKENS.get(dataset, 1500)
    rng = random.Random(f"{settings.seed}:{rid}")
    drawn = [others[j] for j in sample_distractors(len(others), rng)]
    frame = count_tokens(fill(EXT_RESULT, content="", question=question)) + 16
    support_tokens = sum(sizes[i] for i in support) + len(support)
    kept = fit_distractors(
        support_tokens, [sizes[i] + 1 for i in drawn], settings.max_instruction_tokens - frame
    )
    chosen = sorted(support + drawn[:kept])  # P_s ∪ P_d in the record's own order
    skip = ""
    if sum(sizes) < threshold:
        skip = f"short context (< {threshold} tokens)"
    elif not support:
        skip = "no silver supporting paragraph"
    elif support_tokens + frame > settings.max_instruction_tokens:
        skip = f"supporting paragraphs over {settings.max_instruction_tokens} tokens"
    return {
        "dataset": dataset,
        "record_id": rid,
        "question": question,
        "answer": answers[0],
        "context_tokens": sum(sizes),
        "paragraphs": len(paragraphs),
        "n_support": len(support),
        "support_titles": " | ".join(f"{title(paragraphs[i])} [{labels[i]}]" for i in support),
        "n_distractors": len(others),
        "n_drawn": len(drawn),
        "n_drawn_kept": kept,
        "skip": skip,
        "support": [paragraphs[i] for i in support],
        "distractors": [paragraphs[i] for i in others],
        "content": "\n".join(paragraphs[i] for i in chosen),
    }


# --------------------------------------------------------------------------- one record through the pipeline


def _call(model, step: str, task: str, prompt: str, max_tokens: int) -> tuple[dict, str]:
    out = model.ask(prompt, max_tokens=max_tokens, temperature=0.0, context_policy="truncate_middle")
    row = {
        "task": task,
        "step": step,
        "prompt_tokens": out.prompt_tokens,
        "completion_tokens": out.completion_tokens,
        "finish_reason": out.finish_reason,
        "input_truncated": bool(out.truncation),
        "latency_s": out.latency_s,
        "source": out.source,
        "response": out.text,
    }
    return row, out.text


def rejection(judgement: Judgement | None, rule: str, too_short: bool = False) -> str:
    """Why a generated sample is not kept under ``rule`` ("" = kept). ``too_short``: [STEP-1] gave fewer than
    the minimum tokens (no judgement was asked); ``judgement`` None otherwise means none was asked either."""
    if too_short:
        return "too short"
    if judgement is None:
        return "not judged"
    if judgement.accepted(rule):
        return ""
    if rule == "strict" and judgement.form == "malformed":
        return "judgement malformed"
    return "judged False"


def _judge(model, task: str, prompt: str, settings: Settings) -> tuple[dict, Judgement]:
    row, answer = _call(model, "STEP-2", task, prompt, settings.judge_tokens)
    j = parse_judgement(answer)
    row.update(
        judge_form=j.form,
        judge_status=j.status,
        judge_code_true=j.code_true,
        verdict=rejection(j, settings.rule) or "accepted",
    )
    return row, j


def _generate_and_judge(
    model, task: str, step1: str, judge: Callable[[str], str], settings: Settings
) -> tuple[list[dict], str, Judgement | None, bool]:
    """[STEP-1], then [STEP-2] when the output is long enough: the call rows, the output, the judgement (None
    when not asked) and whether the output was too short."""
    row1, output = _call(model, "STEP-1", task, step1, settings.step1_tokens)
    output = output.strip()
    row1["response_tokens"] = model.count_tokens(output)
    if row1["response_tokens"] < settings.min_response_tokens:
        row1["verdict"] = f"too short (< {settings.min_response_tokens} tokens)"
        return [row1], output, None, True
    row1["verdict"] = "long enough"
    row2, j = _judge(model, task, judge(output), settings)
    return [row1, row2], output, j, False


def build_record(prepared: dict, model, settings: Settings | None = None) -> tuple[list[dict], list[dict]]:
    """Run one prepared record through all four constructions: ``(call rows, instruction rows)``.

    Four model calls (ext STEP-1/2, cot STEP-1/2; a fifth when the CoT is too short for the cot task). The
    filtering records reuse the cot task's thought process: the code's filter builder sends the very same
    [STEP-1]/[STEP-2] prompts (without the length test), so with greedy decoding its calls return the same text.
    Every candidate instruction gets a row, kept or not, with the reason under ``settings.rule`` and whether
    each rule (``kept_strict``, ``kept_code``) would keep it.
    """
    settings = settings or Settings()
    q, a, content = prepared["question"], prepared["answer"], prepared["content"]
    ext_calls, info, ext_j, ext_short = _generate_and_judge(
        model, "ext", ext_step1_prompt(prepared["support"], q), lambda o: ext_step2_prompt(q, o, a), settings
    )
    cot_calls, cot, cot_j, cot_short = _generate_and_judge(
        model,
        "cot",
        cot_step1_prompt(prepared["support"], q, a),
        lambda o: cot_step2_prompt(q, o, a),
        settings,
    )
    calls = ext_calls + cot_calls
    fil_j = cot_j
    if cot_short:  # too short for the cot task; the code's filter builder judges it anyway
        row, fil_j = _judge(model, "fil", cot_step2_prompt(q, cot, a), settings)
        calls.append(row)
    rng = random.Random(f"{settings.seed}:{prepared['record_id']}:fil")
    candidates = [
        ("ext", None, ext_instruction(content, q, info), ext_j, ext_short),
        ("cot", None, cot_instruction(content, q, cot), cot_j, cot_short),
    ]
    for supporting, pool in ((True, prepared["support"]), (False, prepared["distractors"])):
        rec = fil_instruction(rng.choice(pool), q, cot, supporting) if pool else None
        candidates.append(("fil", supporting, rec, fil_j, False))
    candidates.append(("rag", None, rag_instruction(content, q, a), None, False))
    rows = []
    for task, label, rec, j, short in candidates:
        if rec is None:
            why = {r: "no paragraph with this label" for r in ("strict", "code")}
        elif task == "rag":
            why = {"strict": "", "code": ""}  # the dataset's own answer: no model, no judgement
        else:
            why = {r: rejection(j, r, short) for r in ("strict", "code")}
        rows.append(
            {
                "dataset": prepared["dataset"],
                "record_id": prepared["record_id"],
                "task": task,
                "fil_label": label,
                "kept": not why[settings.rule],
                "reason": why[settings.rule] or "kept",
                "kept_strict": not why["strict"],
                "kept_code": not why["code"],
                "instruction_tokens": model.count_tokens(rec["instruction"]) if rec else None,
                "output_tokens": model.count_tokens(rec["output"]) if rec else None,
                **(rec or record("", "")),
            }
        )
    for c in calls:
        c.update(dataset=prepared["dataset"], record_id=prepared["record_id"])
    return calls, rows


def build_dataset(
    records: pd.DataFrame, dataset: str, model, n_records: int, settings: Settings | None = None
) -> dict[str, pd.DataFrame]:
    """Walk ``records`` in order until ``n_records`` usable ones have been built; every record looked at is in
    ``records`` (with its skip reason). Returns tidy tables ``records``, ``calls`` and ``instructions``."""
    settings = settings or Settings()
    looked, calls, rows = [], [], []
    built = 0
    for item in records.to_dict("records"):
        if built >= n_records:
            break
        prepared = prepare(item, dataset, model.count_tokens, settings)
        looked.append({k: v for k, v in prepared.items() if k not in ("support", "distractors", "content")})
        if prepared["skip"]:
            continue
        c, r = build_record(prepared, model, settings)
        calls += c
        rows += r
        built += 1
    call_cols = [
        "dataset",
        "record_id",
        "task",
        "step",
        "prompt_tokens",
        "completion_tokens",
        "response_tokens",
        "finish_reason",
        "input_truncated",
        "judge_form",
        "judge_status",
        "judge_code_true",
        "verdict",
        "latency_s",
        "source",
        "response",
    ]
    return {
        "records": pd.DataFrame(looked),
        "calls": pd.DataFrame(calls).reindex(columns=call_cols),
        "instructions": pd.DataFrame(rows),
    }



def stack(built: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The tables of :func:`build_dataset` for several datasets (``{dataset: tables}``), stacked:
    (records looked at, model calls, candidate instructions); empty tables when nothing was built."""
    keys = ("records", "calls", "instructions")
    if not built:
        return pd.DataFrame(), pd.DataFrame(), pd.DataFrame()
    return tuple(pd.concat([b[k] for b in built.values()], ignore_index=True) for k in keys)

def summary(instructions: pd.DataFrame) -> pd.DataFrame:
    """Candidates, kept instructions and the reasons for the rest (under the run's rule), per dataset and task;
    how many each rule would keep; and Table 15's count beside."""
    by = instructions.groupby(["dataset", "task"], sort=False)
    out = by["reason"].value_counts().unstack(fill_value=0)
    out.insert(0, "candidates", out.sum(axis=1))
    if "kept" not in out:
        out["kept"] = 0
    out["kept_strict"] = by["kept_strict"].sum()
    out["kept_code"] = by["kept_code"].sum()
    out.columns.name = None
    out = out.reset_index()
    out["paper_table15"] = [
        PAPER_TABLE15.get(d, 0) if (t in ("ext", "cot") or d != "qasper") else 0
        for d, t in zip(out["dataset"], out["task"], strict=True)
    ]
    return out


def write_jsonl(rows: Iterable[dict], name: str = "lrginstruction") -> Path:
    """Write training records (``instruction``, ``input``, ``output`` only) as ``<name>.jsonl`` next to the
    executed notebook (the run directory, else the working directory); return the path."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name) or name.endswith(".jsonl"):
        raise ValueError(f"name must be a plain file stem like 'lrginstruction', not {name!r}")
    path = (config.run_dir() or Path.cwd()) / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(
                json.dumps({k: r[k] for k in ("instruction", "input", "output")}, ensure_ascii=False) + "\n"
            )
    return path
