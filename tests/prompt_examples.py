"""Every prompt the book sends, rendered from small fixed inputs, and its sha256: what
``tests/test_prompt_digests.py`` compares with ``tests/fixtures/prompt_digests.json``.

The book replays recorded responses keyed by their exact requests, so a prompt that changes by one byte misses the
response store (only the slow book build would notice). This module lists each prompt template constant and a
rendered example of each prompt builder of every chapter (thesis: BAMBOO, CTX1, CTX2 and the needle; LongRAG and
its LRGinstruction steps; SummHay; Long²RAG; the judges of :mod:`lcrag.judges`; the quickstart). Builders that fill
a template inline (Long²RAG's P5-P8, snippets and summaries, SummHay's synthesis, the quickstart's solver) are run
on a recording stand-in model, so the digest covers the request they really send.

To change a prompt deliberately (and re-record its responses), regenerate the digests::

    PYTHONPATH=src .venv/bin/python tests/prompt_examples.py --update

and commit the changed ``tests/fixtures/prompt_digests.json`` with the prompt and the new responses.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pandas as pd

DIGESTS = Path(__file__).parent / "fixtures" / "prompt_digests.json"

QUESTION = "Which bird sings the longer song?"
OPTIONS = ["A. The nightingale", "B. The sparrow", "C. Neither", "D. Both"]
PARTS = ["The nightingale's song is complex.\nIt lasts a minute.", "The sparrow's chirp is short."]
DOCUMENTS = ["Calls are genetic; songs are learned. The nightingale's song is complex.",
             "The sparrow's chirp is simpler and more straightforward. Ünïcode — “quotes”."]
ESSAYS = ["The first essay has sentences. Each one ends with a period. " * 20,
          "A second essay follows. It also has several short sentences. " * 20]


# ----------------------------------------------------------------------------- a recording stand-in model


class CharTokenizer:
    """One token per character: enough for the haystack builders."""

    def encode(self, text: str) -> list[int]:
        return [ord(c) for c in text]

    def decode(self, tokens) -> str:
        return "".join(map(chr, tokens))


@dataclass
class RecordingModel:
    """Answers every request with ``answer`` and records it (method and keyword arguments)."""

    answer: str = "[yes]"
    answers: list[str] = field(default_factory=list)  # answered in turn before ``answer``
    calls: list = field(default_factory=list)
    spec: str = "fake/recorder"
    info: SimpleNamespace = field(default_factory=lambda: SimpleNamespace(
        context_window=100_000, kind="chat", is_local=False))
    tokenizer: CharTokenizer = field(default_factory=CharTokenizer)

    def _completion(self):
        from lcrag.models.client import Completion

        text = self.answers.pop(0) if self.answers else self.answer
        return Completion(text, "stop", 10, 2, "k", "network", 0.0, None)

    def ask(self, prompt, **kwargs):
        self.calls.append({"method": "ask", "prompt": prompt, **kwargs})
        return self._completion()

    def map(self, method, requests, progress=False):
        out = []
        for r in requests:
            self.calls.append({"method": method, **r})
            out.append(self._completion())
        return out

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def fit(self, prompt, n, policy):
        return prompt, None


# ----------------------------------------------------------------------------- the prompts, per chapter


def thesis() -> dict:
    from lcrag.papers.thesis import prompts as p

    out = {f"thesis.{k}": getattr(p, k) for k in ("SYSTEM", "BAMBOO_INSTRUCTION", "BAMBOO_TAIL", "CTX1_INSTRUCTION",
                                                  "CTX1_TAIL", "CTX2_SEP", "CTX2_MUST", "CTX2_TAIL")}
    for name in p.PROMPTS:
        for setting in ("full", "evidence", "rag"):
            for n_parts in (1, 2):
                for fmt in p.OPTIONS_FORMATS if name == "BAMBOO" else ("tab",):
                    out[f"thesis.build_prompt[{name},{setting},{n_parts} parts,{fmt}]"] = p.build_prompt(
                        name, QUESTION, OPTIONS, PARTS[:n_parts], setting=setting, options_format=fmt)
    return out


def needle() -> dict:
    from lcrag.judges import kamradt
    from lcrag.papers.thesis.needle import asking, haystack, needles

    out = {"needle.SYSTEM": asking.SYSTEM, "needle.QUESTION_SUFFIX": asking.QUESTION_SUFFIX,
           "needle.RULER_TEMPLATE": needles.RULER_TEMPLATE, "needle.KAMRADT_SEP": haystack.KAMRADT_SEP}
    hay = "".join(ESSAYS)
    for n in needles.needles_for(["simple", "complex", "multi_key", "multi_value"]):
        out[f"needle.needle[{n.name}]"] = [n.text, n.question, list(n.sentences), list(n.values)]
        out[f"needle.needle_messages[{n.name}]"] = asking.needle_messages(hay, n.question)
        out[f"needle.completion_prompt[{n.name}]"] = asking.completion_prompt(hay, n.question)
        out[f"needle.rag_context[{n.name}]"] = asking.rag_context(hay + n.text + hay, n.question, 2, 200, 20)[0]
        out[f"judges.kamradt.judge_messages[{n.name}]"] = kamradt.judge_messages(n.question, n.text, "An answer.")
        tok = CharTokenizer()
        base = haystack.haystack_tokens(ESSAYS, tok.encode, 2000)
        out[f"needle.make_haystack[{n.name}]"] = haystack.make_haystack(base, tok, 1200, 40, n).text
    return out


def longrag() -> dict:
    from lcrag.papers.longrag import prompts as p
    from lcrag.papers.longrag.lrginstruction import prompts as lrg

    out = {f"longrag.{k}": getattr(p, k) for k in ("GENERATOR_PROMPT", "CLOSED_BOOK_PROMPT", "EXTRACTOR_PROMPT",
                                                   "COT_PROMPT", "FILTER_PROMPT")}
    out["longrag.generator_prompt"] = p.generator_prompt("\n".join(DOCUMENTS), QUESTION)
    out["longrag.closed_book"] = p.CLOSED_BOOK_PROMPT.format(question=QUESTION)
    out["longrag.extractor_prompt"] = p.extractor_prompt(DOCUMENTS, QUESTION)
    out["longrag.cot_prompt"] = p.cot_prompt(DOCUMENTS, QUESTION)
    out["longrag.filter_prompt"] = p.filter_prompt(DOCUMENTS[0], QUESTION, "A thought.")
    out.update({f"longrag.lrginstruction.CODE_PROMPTS[{t},{s}]": v for (t, s), v in lrg.CODE_PROMPTS.items()})
    out["longrag.lrginstruction.FIL_OUTPUT"] = [lrg.FIL_OUTPUT[True], lrg.FIL_OUTPUT[False]]
    out["longrag.lrginstruction.ext_step1_prompt"] = lrg.ext_step1_prompt(DOCUMENTS, QUESTION)
    out["longrag.lrginstruction.ext_step2_prompt"] = lrg.ext_step2_prompt(QUESTION, "Some information.", "Both")
    out["longrag.lrginstruction.cot_step1_prompt"] = lrg.cot_step1_prompt(DOCUMENTS, QUESTION, "Both")
    out["longrag.lrginstruction.cot_step2_prompt"] = lrg.cot_step2_prompt(QUESTION, "A thought.", "Both")
    out["longrag.lrginstruction.instructions"] = [
        lrg.ext_instruction(DOCUMENTS[0], QUESTION, "Info."), lrg.cot_instruction(DOCUMENTS[0], QUESTION, "CoT."),
        lrg.fil_instruction(DOCUMENTS[0], QUESTION, "CoT.", True), lrg.rag_instruction(DOCUMENTS[0], QUESTION, "B")]
    return out


def _summhay_haystack(kind: str) -> SimpleNamespace:
    subtopics = pd.DataFrame([{"subtopic_id": "S1", "description": "Bird songs", "query": "Are songs discussed?",
                               "n_insights": 2}])
    insights = pd.DataFrame([{"subtopic_id": "S1", "insight_id": i} for i in ("I1", "I2", "I3")])
    documents = pd.DataFrame([{"insights_included": ["I1"]}, {"insights_included": ["I1", "I2"]}])
    return SimpleNamespace(kind=kind, topic="Birds", subtopics=subtopics, insights=insights, documents=documents)


def summhay() -> dict:
    from lcrag.judges import insight
    from lcrag.papers.summhay import live_contexts, synthetic
    from lcrag.papers.summhay import prompts as p

    out = {f"summhay.SUMMARIZATION_PROMPTS[{k}]": v for k, v in p.SUMMARIZATION_PROMPTS.items()}
    out.update({f"summhay.SYNTHESIS_PROMPTS[{k}]": v for k, v in p.SYNTHESIS_PROMPTS.items()})
    docs = [(d, i) for i, d in enumerate(DOCUMENTS)]
    for kind in ("news", "conv"):
        out[f"summhay.summary_prompt[{kind}]"] = live_contexts.summary_prompt(
            _summhay_haystack(kind), "S1", docs, ["Ann", "Bob"])
    out["judges.insight.EVAL_PROMPT"] = insight.EVAL_PROMPT
    out["judges.insight.judge_prompt"] = insight.judge_prompt("Songs are learned.", ["- Songs are learned [1]",
                                                                                     "- Calls are genetic [2]"])
    fake = RecordingModel(answers=["- Songs\n- Calls", "- Songs are learned in 1990.\n- Nightingales sing.",
                                   "Are songs discussed?", "- Calls are genetic in 2001.\n- Sparrows chirp.",
                                   "Are calls discussed?"], answer="An article about birds.")
    synthetic.synthesize_haystack(fake, "Birds", n_subtopics=2, n_insights=2, n_documents=2, repairs=1)
    out["summhay.synthesize_haystack.requests"] = fake.calls
    return out


def long2rag() -> dict:
    from lcrag.papers.long2rag import generation, judges, key_points
    from lcrag.papers.long2rag import prompts as p

    out = {f"long2rag.PAPER_PROMPTS[{k}]": v for k, v in p.PAPER_PROMPTS.items()}
    out.update({f"long2rag.{k}": getattr(p, k) for k in ("OUR_SEPARATOR", "OUR_GENERATION", "OUR_SNIPPET",
                                                         "OUR_SUMMARY", "OUR_P5_DEMONSTRATION",
                                                         "OUR_P7_DEMONSTRATION")})
    out["long2rag.generation_prompt"] = generation.generation_prompt(QUESTION, DOCUMENTS)
    items = pd.DataFrame([{"question_id": "q1", "question": QUESTION, "documents": DOCUMENTS}])
    for variant in ("snippet", "summary"):
        fake = RecordingModel(answer="A passage.")
        generation.process_documents(fake, items, variant)
        out[f"long2rag.process_documents[{variant}].requests"] = fake.calls
    fake = RecordingModel(answer="A response.")
    generation.generate(fake, items)
    out["long2rag.generate.requests"] = fake.calls
    fake = RecordingModel()
    judges.judge_llm(fake, pd.DataFrame([{"response": DOCUMENTS[0], "key_point": "Songs are learned."}]))
    out["long2rag.judge_llm[P6].requests"] = fake.calls
    fake = RecordingModel(answer="Point 1: <point_start>Songs are learned.<point_end><span_start>songs are "
                                 "learned<span_end>")
    key_points.extract_key_points(fake, items)
    out["long2rag.extract_key_points[P5].requests"] = fake.calls
    fake = RecordingModel(answer="YES")
    key_points.autods_scores(fake, [QUESTION], ["Songs are learned."])
    out["long2rag.autods_scores[P8].requests"] = fake.calls
    return out


def quickstart() -> dict:
    from lcrag import quickstart as q

    items = pd.DataFrame([{"task": "paperqa", "case": 1, "question": QUESTION, "options": OPTIONS, "answer": "A",
                           "content": " ".join(ESSAYS)}])
    prompts = q.bamboo_prompts(items, chunk_size=200, chunk_overlap=20, top_k=2)
    out = {f"quickstart.bamboo_prompts[{r.setting}]": r.prompt for r in prompts.itertuples()}
    fake = RecordingModel(answer="A")
    q.solve(fake, prompts)
    out["quickstart.solve.requests"] = fake.calls
    needle_prompts = q.needle_prompts(RecordingModel(), ESSAYS, [1000], [0.0, 50.0], top_k=2, chunk_size=200,
                                      chunk_overlap=20)
    out.update({f"quickstart.needle_prompts[{r.setting},{r.depth}]": r.prompt for r in needle_prompts.itertuples()})
    return out


CHAPTERS = (thesis, needle, longrag, summhay, long2rag, quickstart)


def rendered() -> dict:
    """Every example, by name: a string, or a JSON-able structure (chat messages, recorded requests)."""
    out = {}
    for chapter in CHAPTERS:
        out.update(chapter())
    return out


def digest(value) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def digests() -> dict[str, str]:
    return {name: digest(value) for name, value in sorted(rendered().items())}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help=f"rewrite {DIGESTS.name} (a deliberate prompt change)")
    args = parser.parse_args(argv)
    now = digests()
    if not args.update:
        old = json.loads(DIGESTS.read_text()) if DIGESTS.exists() else {}
        changed = sorted(k for k in now.keys() | old.keys() if now.get(k) != old.get(k))
        print("\n".join(changed) or "no prompt changed")
        return 1 if changed else 0
    DIGESTS.write_text(json.dumps(now, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(now)} digests to {DIGESTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
