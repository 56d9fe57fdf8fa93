"""A small synthetic haystack written by a model (the paper's §3.2 and A.1 steps; its prompts are not released, ours
are :data:`~lcrag.papers.summhay.prompts.SYNTHESIS_PROMPTS`): topic -> subtopics -> insights -> documents holding
sampled insights -> verification -> queries, written as a haystack file in the SummHay schema and loaded with the
real loader (:func:`synthesize_haystack`, :func:`load_synthetic`)."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from lcrag.papers.summhay.prompts import SYNTHESIS_PROMPTS

_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+(.*\S)\s*$")


def parse_list(text: str) -> list[str]:
    """The items of a list answer: lines starting with ``-``, ``*``, a bullet or ``1.``/``1)``, markup stripped,
    duplicates (case-insensitive) removed, in order. An answer with no such line (small models often ignore the
    format) gives its non-empty lines instead, except preambles ending with ":"."""
    lines = (text or "").splitlines()
    marked = [m.group(1) for m in map(_LIST_ITEM.match, lines) if m]
    candidates = marked or [line for line in lines if not line.strip().endswith(":")]
    seen, items = set(), []
    for c in candidates:
        item = c.strip().strip("*").strip()
        if item and item.lower() not in seen:
            seen.add(item.lower())
            items.append(item)
    return items


_QUESTION = re.compile(r"[A-Z][^.!?\n]*\?")


def parse_question(text: str, subtopic: str) -> str:
    """The first question (a capitalised sentence ending in "?", of three words or more) in a query answer, else
    the fallback ``Is "<subtopic>" discussed?``."""
    for q in _QUESTION.findall(text or ""):
        if len(q.split()) >= 3:
            return q.strip()
    return f'Is "{subtopic}" discussed?'


def _fill(template: str, **values) -> str:
    for k, v in values.items():
        template = template.replace(f"[{k.upper()}]", str(v))
    return template


def plan_documents(
    insight_ids: Sequence[Sequence[str]], n_documents: int, per_subtopic: int = 1, seed: int = 0
) -> list[list[str]]:
    """Which insights each document must hold: every document takes ``per_subtopic`` insights from each of two
    subtopics (as the news haystacks: two subtopics per document), picked by least use so far (ties at random),
    so that insights spread evenly. ``insight_ids``: one list per subtopic."""
    rng = random.Random(seed)
    uses = {i: 0 for ids in insight_ids for i in ids}
    subs = [list(ids) for ids in insight_ids if ids]
    plan = []
    for d in range(n_documents):
        pair = [subs[d % len(subs)], subs[(d + 1) % len(subs)]] if len(subs) > 1 else subs[:1]
        chosen: list[str] = []
        for ids in pair:
            pool = sorted(ids, key=lambda i: (uses[i], rng.random()))
            for i in pool[:per_subtopic]:
                if i not in chosen:
                    chosen.append(i)
                    uses[i] += 1
        plan.append(chosen)
    return plan


def verify_document(text: str, insights: Mapping[str, str], threshold: float) -> list[str]:
    """Insight ids whose text the document states, by the lexical judge: the share of the insight's content words
    found in the document reaches ``threshold`` (section 5's fitted "full" threshold)."""
    from lcrag.text.stopwords import RECALL_STOP_WORDS
    from lcrag.text.words import word_recall

    return [i for i, t in insights.items() if word_recall(text, t, RECALL_STOP_WORDS) >= threshold]


def _id(prefix: str, *parts) -> str:
    from lcrag.models.cache import content_key

    return prefix + content_key({"parts": [str(p) for p in parts]})[:20]


def synthesize_haystack(
    model,
    topic: str,
    *,
    n_subtopics: int = 2,
    n_insights: int = 3,
    n_documents: int = 10,
    per_subtopic: int = 2,
    words: int = 250,
    threshold: float = 0.6,
    repairs: int = 1,
    seed: int = 0,
    max_tokens: int = 512,
    document_temperature: float = 0.7,
) -> tuple[dict, pd.DataFrame]:
    """A small haystack in the SummHay schema written by ``model``, and a log of every step (one row per call).

    Steps: subtopics (:data:`~lcrag.papers.summhay.prompts.SYNTHESIS_PROMPTS`), insights per subtopic (told to
    avoid the previous ones), a document plan (:func:`plan_documents`), documents, verification
    (:func:`verify_document`; a document missing a planned insight is repaired up to ``repairs`` times), then
    ``insights_included`` = the insights the verified document really states (planned or leaked, all subtopics),
    and a query per subtopic. An insight that ends in no document stays in its subtopic (the news prompt's
    ``[N_insights]`` counts only insights found in a document). Every call is at temperature 0 except documents
    (``document_temperature``, seeded ``seed + k`` for document k, so that documents given the same facts still
    differ, and a re-run gets the same answers from the cache).
    """
    log = []

    def ask(step: str, prompt: str, temperature: float = 0.0, call_seed: int = seed):
        c = model.ask(prompt, max_tokens=max_tokens, temperature=temperature, seed=call_seed)
        log.append(
            {
                "step": step,
                "prompt_tokens": c.prompt_tokens,
                "completion_tokens": c.completion_tokens,
                "latency_s": c.latency_s,
                "answer": c.text,
            }
        )
        return c.text

    subtopics = parse_list(
        ask("subtopics", _fill(SYNTHESIS_PROMPTS["subtopics"], topic=topic, n=n_subtopics))
    )
    subtopics = subtopics[:n_subtopics]
    if not subtopics:
        raise ValueError(
            f"{model.spec} gave no parseable subtopic for {topic!r}: {log[-1]['answer'][:200]!r}"
        )
    subs, texts = [], {}
    for s in subtopics:
        avoid = f"; do not repeat these facts: {'; '.join(texts.values())}" if texts else ""
        ins = parse_list(
            ask(
                "insights",
                _fill(SYNTHESIS_PROMPTS["insights"], topic=topic, subtopic=s, n=n_insights, avoid=avoid),
            )
        )[:n_insights]
        ins = [t for t in ins if t not in texts.values()]
        sid = _id("S", topic, s)
        items = [{"insight_id": _id("I", sid, t), "insight_name": t[:40], "insight": t} for t in ins]
        texts.update({x["insight_id"]: x["insight"] for x in items})
        query = parse_question(ask("query", _fill(SYNTHESIS_PROMPTS["query"], topic=topic, subtopic=s)), s)
        subs.append(
            {
                "subtopic_id": sid,
                "subtopic_name": s[:40],
                "subtopic": s,
                "insights": items,
                "query": query,
                "retriever": {},
                "summaries": {},
                "eval_summaries": {},
            }
        )
    if not texts:
        raise ValueError(
            f"{model.spec} gave no parseable insight for {topic!r}; answers: {[r['answer'][:80] for r in log]}"
        )
    plan = plan_documents(
        [[x["insight_id"] for x in s["insights"]] for s in subs], n_documents, per_subtopic, seed
    )
    documents = []
    for k, ids in enumerate(plan):
        facts = "\n".join(f"- {texts[i]}" for i in ids)
        doc = ask(
            "document",
            _fill(SYNTHESIS_PROMPTS["document"], topic=topic, words=words, facts=facts),
            temperature=document_temperature,
            call_seed=seed + k,
        )
        for _ in range(repairs):
            missing = [i for i in ids if i not in verify_document(doc, {i: texts[i]}, threshold)]
            if not missing:
                break
            doc = ask(
                "repair",
                _fill(
                    SYNTHESIS_PROMPTS["repair"],
                    document=doc,
                    facts="\n".join(f"- {texts[i]}" for i in missing),
                ),
            )
        included = verify_document(doc, texts, threshold)
        documents.append(
            {
                "document_id": _id("D", k, doc),
                "document_text": doc,
                "idx": k,
                "insights_included": included,
                "planned_insights": list(ids),
            }
        )
    for s in subs:
        ids = {x["insight_id"] for x in s["insights"]}
        s["retriever"]["oracle"] = {
            d["document_id"]: len(ids & set(d["insights_included"])) for d in documents
        }
    raw = {
        "topic_id": _id("T", topic),
        "topic": topic,
        "topic_metadata": {
            "synthesized_by": model.spec,
            "prompts": "lcrag SYNTHESIS_PROMPTS (the paper's are unreleased)",
        },
        "subtopics": subs,
        "documents": documents,
    }
    return raw, pd.DataFrame(log)


def load_synthetic(raw: dict, path: Path | str | None = None, name: str = "synthetic"):
    """Write ``raw`` to ``path`` (default: a new temporary directory's ``topic_synthetic.json``) and read it back
    with the SummHay loader (:func:`lcrag.data.load_haystack`), which checks the schema; returned as a news
    haystack named ``name``."""
    import tempfile

    from lcrag.data.summhay import load_haystack

    path = Path(path) if path is not None else Path(tempfile.mkdtemp()) / "topic_synthetic.json"
    path.write_text(json.dumps(raw, indent=1))
    h = load_haystack("news1", path)  # the loader validates names; the file is ours
    h.name = name
    return h


def synthesis_report(raw: dict) -> pd.DataFrame:
    """Per insight: its subtopic, in how many documents it was planned and in how many verification found it."""
    rows = []
    for s in raw["subtopics"]:
        for x in s["insights"]:
            i = x["insight_id"]
            rows.append(
                {
                    "subtopic": s["subtopic"],
                    "insight": x["insight"],
                    "planned_in": sum(i in d["planned_insights"] for d in raw["documents"]),
                    "found_in": sum(i in d["insights_included"] for d in raw["documents"]),
                    "found_where_planned": sum(
                        i in d["planned_insights"] and i in d["insights_included"] for d in raw["documents"]
                    ),
                }
            )
    return pd.DataFrame(rows)


def synthesis_reading(raw: dict, report: pd.DataFrame, planned_insights: int, calls: int) -> str:
    """What the synthesis produced, in one Markdown sentence or two from the haystack file and
    :func:`synthesis_report`: subtopics, insights (of those planned), documents, model calls; and a warning when
    the haystack is degenerate (fewer than two insights, or insights that only repeat their subtopic's title), so
    that the scores computed on it are not read as a measurement."""
    from lcrag.text import count

    echoes = int(sum(_content_words(r.insight) <= _content_words(r.subtopic) for r in report.itertuples()))
    text = (f"The model wrote {count(len(raw['subtopics']), 'subtopics')} with {count(len(report), 'insights')} "
            f"({planned_insights} planned) and {count(len(raw['documents']), 'documents')}, in "
            f"{count(calls, 'model calls')}.")
    if len(report) >= 2 and echoes == 0:
        return text
    why = [f"only {count(len(report), 'insights')}"] if len(report) < 2 else []
    if echoes:
        why.append(f"insights that only repeat their subtopic's title: {echoes} of {len(report)}")
    return (text + f" **This haystack is degenerate** ({'; '.join(why)}): a summary that names the topic covers it, "
            "so the scores below describe the model's failure to write a haystack, not the benchmark.")


def _content_words(text: str) -> set[str]:
    """The word tokens of ``text`` outside NLTK's stop words, as a set."""
    from lcrag.text.stopwords import NLTK_STOPWORDS
    from lcrag.text.words import content_words

    return set(content_words(text, NLTK_STOPWORDS))


def shared_insights(report: pd.DataFrame, overlap: float = 0.5) -> list[tuple[str, str, str]]:
    """Pairs of insights planted under different subtopics that say nearly the same thing (Jaccard overlap of their
    content words at least ``overlap``), as (insight, its subtopic, the other's subtopic)."""
    rows = list(report.itertuples())
    out = []
    for i, x in enumerate(rows):
        for y in rows[i + 1:]:
            a, b = _content_words(x.insight), _content_words(y.insight)
            if x.subtopic != y.subtopic and a and b and len(a & b) / len(a | b) >= overlap:
                out.append((x.insight, x.subtopic, y.subtopic))
    return out


def contexts_sentence(results: pd.DataFrame, report: pd.DataFrame, n_documents: int) -> str:
    """What §7's comparison of settings can say, from its results (``n_documents`` and ``relevant_in_context`` per
    setting, means over subtopics) and :func:`synthesis_report`: when every setting's context holds all
    ``n_documents`` of the haystack, the settings differ only in the order of the documents and their scores say
    nothing about retrieval; insights shared between subtopics (:func:`shared_insights`) are named."""
    rows = results.drop_duplicates("setting")
    if rows.empty:
        return "No setting was run on the synthetic haystack."
    whole = rows["n_documents"].eq(n_documents).all()
    if whole:
        names = " and ".join(rows["setting"].str.capitalize())
        text = (f"Every setting's context ({names}) holds all {n_documents} documents of the haystack, the relevant "
                f"ones included (`relevant_in_context` {rows['relevant_in_context'].iloc[0]:g} in each): the settings "
                "differ only in the order of the documents, so the difference of their scores says nothing about "
                "retrieval; a haystack larger than the context is what would test it.")
    else:
        text = ("The settings' contexts hold different documents (`n_documents`, `relevant_in_context` above), so "
                "their scores compare what each retrieved.")
    shared = shared_insights(report)
    if shared:
        insight, a, b = shared[0]
        text += (f" {len(shared)} pair{'' if len(shared) == 1 else 's'} of insights planted under different subtopics "
                 f"say nearly the same thing (e.g. \"{insight}\" under \"{a}\", and its near copy under \"{b}\"), so "
                 "a bullet for one subtopic can cover an insight of another.")
    return text
