"""Kamradt's needle-in-a-haystack test (thesis §6.2, Fig. 6.1) on any model of the book.

Method (``gkamradt/LLMTest_NeedleInAHaystack``, ``LLMNeedleHaystackTester``):

1. the essays are concatenated in a fixed order (sorted by file name here) and repeated as needed;
2. the haystack is the first ``context_tokens - buffer - len(needle)`` tokens of that text in the **model's own
   tokens** (buffer: 200 tokens for the system prompt, the question and the answer);
3. the needle is inserted at ``depth`` % of the haystack, backed up to the end of a sentence: the insertion point
   moves back until the token before it is a ``"."`` token (depth 100: the needle is appended);
4. the model gets Kamradt's three messages (system, the haystack, the question); a judge scores the answer 1-10.

Everything here is a small function of plain data: :func:`make_haystack` builds one haystack (with where its
needle landed), :func:`needle_grid` the cells of a length x depth x needle grid, :func:`prefix_order` the order
that lets llama.cpp reuse the longest prompt prefix, :func:`answer_cells` asks the model, :func:`judge_cells`
runs Kamradt's judge, :func:`rag_cells` answers the same questions from BM25 chunks of the haystack. Tables are
tidy: one row per model x needle x setting x length x depth.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lcrag.metrics import needle as metrics
from lcrag.retrieval import BM25Retriever, thesis_tokenize
from lcrag.text.chunking import recursive_split, split_sentences

SIMPLE_NEEDLE = "The best thing to do in San Francisco is eat a sandwich and sit in Dolores Park on a sunny day."
SIMPLE_QUESTION = "What is the best thing to do in San Francisco?"
# The thesis's second needle, from "a 2024 academic paper" it does not cite. Its question is not stated anywhere:
# this one is ours (the inventory's suggestion, §4.2 item 12), and the chapter flags it.
COMPLEX_NEEDLE = (
    "A simple cost-effective laser diode can selectively amplify only one sideband of a "
    "fiber-electrooptically-modulated seed laser and produce moderate-power phase-locked light with sub-Hz "
    "relative linewidth and tunable difference frequencies up to 15 GHz."
)
COMPLEX_QUESTION = "What can a simple cost-effective laser diode do?"
SYSTEM = "You are a helpful AI bot that answers questions for a user. Keep your response short and direct"
QUESTION_SUFFIX = " Don't give information outside the document or repeat your findings"
BUFFER_TOKENS = 200
KAMRADT_SEP = "\n"  # Kamradt's default needle is "\nThe best thing ... day.\n"


@dataclass(frozen=True)
class Needle:
    """A needle, the question that retrieves it, and who wrote the question."""

    name: str
    text: str
    question: str
    question_by: str = "Kamradt"  # "Kamradt" | "ours" | "RULER"
    values: tuple[str, ...] = ()  # RULER variants: the values the answer must contain (empty: needle words)
    parts: tuple[str, ...] = ()  # RULER variants: several needle sentences, inserted apart

    @property
    def sentences(self) -> tuple[str, ...]:
        return self.parts or (self.text,)

    def score(self, answer: str) -> float:
        """Deterministic recall of this needle in an answer (0..1)."""
        if self.values:
            return metrics.values_recall(answer, list(self.values))
        return metrics.answer_recall(answer, self.text, self.question)


NEEDLES = {
    "simple": Needle("simple", SIMPLE_NEEDLE, SIMPLE_QUESTION, "Kamradt"),
    "complex": Needle("complex", COMPLEX_NEEDLE, COMPLEX_QUESTION, "ours"),
}


# ----------------------------------------------------------------------------- RULER-style variants

_RULER_WORDS = (
    "amber anchor apple arrow basket beacon bridge candle canyon cobalt comet copper crystal desert falcon feather "
    "forest garnet glacier harbor hollow island ivory jasper lantern maple marble meadow mirror orchid pebble "
    "pepper pillow prism quartz raven river saddle silver spruce summit thistle timber velvet willow"
).split()
RULER_TEMPLATE = "One of the special magic numbers for {key} is: {value}."


def ruler_needle(kind: str, n: int = 4, seed: int = 0) -> Needle:
    """A RULER-style variant (Hsieh et al. 2024): ``n`` needle sentences "One of the special magic numbers for
    <key> is: <7 digits>." inserted apart in the haystack.

    - ``multi_key``: ``n`` different keys; the question asks for the first key's number (the others distract);
    - ``multi_value``: one key with ``n`` numbers; the question asks for all of them.

    Keys and numbers come from a seeded generator, so a variant is the same on every run.
    """
    rng = random.Random(f"{kind}-{n}-{seed}")
    keys = ["-".join(rng.sample(_RULER_WORDS, 2)) for _ in range(n)]
    values = [str(rng.randrange(1_000_000, 10_000_000)) for _ in range(n)]
    if kind == "multi_key":
        parts = tuple(RULER_TEMPLATE.format(key=k, value=v) for k, v in zip(keys, values, strict=True))
        question = f"What is the special magic number for {keys[0]} mentioned in the provided text?"
        wanted = (values[0],)
    elif kind == "multi_value":
        parts = tuple(RULER_TEMPLATE.format(key=keys[0], value=v) for v in values)
        question = f"What are all the special magic numbers for {keys[0]} mentioned in the provided text?"
        wanted = tuple(values)
    else:
        raise ValueError(f"unknown RULER variant {kind!r}: use multi_key or multi_value")
    return Needle(kind, " ".join(parts), question, "RULER", values=wanted, parts=parts)


def needles_for(names: Sequence[str]) -> list[Needle]:
    """Needles by name: ``simple``, ``complex``, ``multi_key``, ``multi_value``."""
    out = []
    for name in names:
        if name in NEEDLES:
            out.append(NEEDLES[name])
        elif name in ("multi_key", "multi_value"):
            out.append(ruler_needle(name))
        else:
            raise ValueError(f"unknown needle {name!r}: use simple, complex, multi_key or multi_value")
    return out


# ----------------------------------------------------------------------------- haystacks


@functools.lru_cache(maxsize=4)
def _encoded(encode, text: str) -> tuple[int, ...]:
    """``encode(text)``, memoised: the essays (640k characters) are encoded once per tokenizer and process."""
    return tuple(encode(text))


def haystack_tokens(essays: Sequence[str], encode, n_tokens: int) -> list[int]:
    """The first ``n_tokens`` tokens of the essays concatenated (and repeated while too short)."""
    if not essays:
        raise ValueError("no essays to build a haystack from")
    text = "".join(essays)
    once = _encoded(encode, text)
    if not once:
        raise ValueError("the essays are empty")
    tokens = list(once)
    while len(tokens) < n_tokens:
        tokens += once
    return tokens[:n_tokens]


def insertion_point(tokens: Sequence[int], depth_percent: float, periods: set[int]) -> int:
    """Where Kamradt's tester puts a needle: ``int(len * depth / 100)``, moved back until the previous token is a
    period (the start of a sentence), or 0; depth 100 appends."""
    if not 0 <= depth_percent <= 100:
        raise ValueError(f"depth must be within 0..100, not {depth_percent}")
    if depth_percent == 100:
        return len(tokens)
    cut = int(len(tokens) * depth_percent / 100)
    while cut > 0 and tokens[cut - 1] not in periods:
        cut -= 1
    return cut


def insert_needle(tokens: list[int], needle: str, depth_percent: float, encode, decode, sep: str = " ") -> str:
    """The haystack text with the needle at ``depth_percent`` (0 = start, 100 = end), at a sentence boundary.

    The needle is framed by ``sep`` on both sides (the quickstart's " "; Kamradt's "\\n")."""
    at = insertion_point(tokens, depth_percent, set(encode(".")))
    return decode(tokens[:at] + encode(sep + needle.strip() + sep) + tokens[at:])


def build_haystack(model, essays: Sequence[str], context_tokens: int, depth_percent: float,
                   needle: str = SIMPLE_NEEDLE, buffer: int = BUFFER_TOKENS, sep: str = " ") -> str:
    """A haystack of ``context_tokens - buffer`` tokens of ``model`` with the needle at the given depth."""
    tok = model.tokenizer
    n = max(0, context_tokens - buffer) - len(tok.encode(sep + needle + sep))
    return insert_needle(haystack_tokens(essays, tok.encode, n), needle, depth_percent, tok.encode, tok.decode,
                         sep)


@dataclass(frozen=True)
class Haystack:
    """One haystack: its text, the token offsets of its needle sentences, and its length in tokens."""

    text: str
    context_tokens: int  # the requested context length (haystack + buffer)
    depth: float  # the requested depth, %
    needle_at: tuple[int, ...]  # token offset of each needle sentence in the haystack's tokens
    n_tokens: int  # haystack + needle tokens (= context_tokens - buffer)
    needle_tokens: int

    @property
    def actual_depth(self) -> float:
        """Where the (first) needle starts, in % of the haystack's tokens."""
        return 100 * self.needle_at[0] / self.n_tokens


def make_haystack(base: Sequence[int], tokenizer, context_tokens: int, depth: float, needle: Needle,
                  buffer: int = BUFFER_TOKENS, sep: str = KAMRADT_SEP) -> Haystack:
    """Kamradt's haystack of ``context_tokens - buffer`` tokens from the essay tokens ``base``.

    One needle sentence: at ``depth`` (sentence boundary). Several (RULER variants): Kamradt's multi-needle
    tester, the first at ``depth``, the next evenly spaced between it and the end.
    """
    parts = [tokenizer.encode(sep + s.strip() + sep) for s in needle.sentences]
    n_needle = sum(len(p) for p in parts)
    n = context_tokens - buffer - n_needle
    if n <= 0:
        raise ValueError(f"context of {context_tokens} tokens leaves no room for a haystack (buffer {buffer}, "
                         f"needle {n_needle} tokens)")
    if len(base) < n:
        raise ValueError(f"only {len(base)} essay tokens for a haystack of {n}: build `base` longer")
    tokens = list(base[:n])
    periods = set(tokenizer.encode("."))
    step = (100 - depth) / len(parts)
    offsets = []
    d = depth
    for p in parts:
        at = insertion_point(tokens, d, periods)
        tokens[at:at] = p
        offsets = [o + len(p) if o >= at else o for o in offsets] + [at]
        d += step
    return Haystack(tokenizer.decode(tokens), context_tokens, float(depth), tuple(offsets), len(tokens), n_needle)


# ----------------------------------------------------------------------------- prompts


def needle_messages(haystack: str, question: str = SIMPLE_QUESTION) -> list[dict]:
    """Kamradt's three messages: system, the context, the question."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": haystack},
        {"role": "user", "content": question + QUESTION_SUFFIX},
    ]


def completion_prompt(haystack: str, question: str = SIMPLE_QUESTION) -> str:
    """Kamradt's three messages as one text for a base model (no roles), ending with an answer cue."""
    return f"{SYSTEM}\n\n{haystack}\n\n{question}{QUESTION_SUFFIX}\nAnswer:"


def request_for(model, haystack: str, question: str, max_tokens: int) -> tuple[str, dict]:
    """The call to make for one cell: ``("chat", kwargs)`` for chat models, ``("complete", kwargs)`` for base
    models (a completion-style prompt; the answer stops at a blank line or a new "Question"/"Answer:" line)."""
    if model.info.kind == "chat":
        return "chat", {"messages": needle_messages(haystack, question), "max_tokens": max_tokens,
                        "temperature": 0.0}
    return "complete", {"prompt": completion_prompt(haystack, question), "max_tokens": max_tokens,
                        "temperature": 0.0, "stop": ["\n\n", "\nQuestion", "\nAnswer:"]}


# ----------------------------------------------------------------------------- the grid


def lengths_for(model, lengths: Sequence[int], max_length: int = 0, answer_tokens: int = 64) -> list[int]:
    """The grid's context lengths a model can take: at most its window minus the answer (and ``max_length``)."""
    cap = model.info.context_window - answer_tokens
    if max_length:
        cap = min(cap, max_length)
    return sorted({int(n) for n in lengths if int(n) <= cap})


def needle_grid(model, essays: Sequence[str], lengths: Sequence[int], depths: Sequence[float],
                needles: Sequence[Needle], buffer: int = BUFFER_TOKENS) -> list[dict]:
    """One cell per needle x length x depth: the haystack and where its needle landed (no model call)."""
    if not lengths:
        raise ValueError(f"no context length fits {model.spec}")
    tok = model.tokenizer
    base = haystack_tokens(essays, tok.encode, max(lengths))
    cells = []
    for needle in needles:
        for length in lengths:
            for depth in depths:
                h = make_haystack(base, tok, length, depth, needle, buffer)
                cells.append({"model": model.spec, "needle": needle.name, "context_tokens": int(length),
                              "depth": float(depth), "needle_at": h.needle_at[0], "haystack_tokens": h.n_tokens,
                              "actual_depth": round(h.actual_depth, 2), "haystack": h, "_needle": needle})
    return cells


def prefix_order(cells: list[dict], how: str = "prefix") -> list[dict]:
    """The order in which to ask the cells.

    - ``prefix``: by needle position, latest first (ties: by needle, then longer haystack first). A prompt then
      shares with the previous one everything before its own needle (the haystacks of all lengths are prefixes of
      the same essay tokens), so llama.cpp evaluates only the tokens from its needle on: the least any order can
      cost; and at depth 0, where every length puts the same needle first, a shorter haystack follows a longer
      one with the same needle and costs nothing but the question;
    - ``length_depth``: for each length, descending depth (the prefix is shared within a length only);
    - ``kamradt``: Kamradt's loops (ascending length, ascending depth; needle by needle).
    """
    if how == "prefix":
        return sorted(cells, key=lambda c: (-c["needle_at"], c["needle"], -c["context_tokens"]))
    if how == "length_depth":
        return sorted(cells, key=lambda c: (c["context_tokens"], -c["depth"], c["needle"]))
    if how == "kamradt":
        return sorted(cells, key=lambda c: (c["needle"], c["context_tokens"], c["depth"]))
    raise ValueError(f"unknown order {how!r}: use prefix, length_depth or kamradt")


def prefill_cost(cells: Sequence[dict]) -> int:
    """Haystack tokens llama.cpp must evaluate for ``cells`` asked in this order with prefix reuse: each cell
    costs its tokens after the prefix it shares with the previous cell (a needle-position model of the cache)."""
    total, prev = 0, None
    for c in cells:
        shared = 0
        if prev is not None:
            shared = min(prev["needle_at"], c["needle_at"])
            if prev["needle_at"] == c["needle_at"] and prev["needle"] == c["needle"]:
                shared = min(prev["haystack_tokens"], c["haystack_tokens"])
        total += c["haystack_tokens"] - shared
        prev = c
    return total


# ----------------------------------------------------------------------------- asking the model


def _ask(model, cells: list[dict], make: Callable[[dict], tuple[str, dict]], progress: bool) -> list[dict]:
    if progress:
        from tqdm.auto import tqdm
    else:
        def tqdm(x, **_):
            return x
    rows = []
    for c in tqdm(cells, desc=model.spec):
        method, kwargs = make(c)
        r = getattr(model, method)(**kwargs)
        rows.append({**c, "response": r.text, "prompt_tokens": r.prompt_tokens,
                     "completion_tokens": r.completion_tokens, "latency_s": r.latency_s, "source": r.source})
    return rows


def answer_cells(model, cells: list[dict], max_tokens: int = 64, order: str = "prefix",
                 progress: bool = False) -> pd.DataFrame:
    """Ask ``model`` every cell with the full haystack (setting ``full``), in :func:`prefix_order`; score each
    answer deterministically (``recall``: :meth:`Needle.score`)."""
    ordered = prefix_order(cells, order)
    rows = _ask(model, ordered, lambda c: request_for(model, c["haystack"].text, c["_needle"].question,
                                                      max_tokens), progress)
    for i, r in enumerate(rows):
        r["setting"], r["call_order"] = "full", i
    return _tidy(rows)


def rag_context(haystack: str, question: str, top_k: int = 5, chunk_size: int = 512,
                chunk_overlap: int = 50) -> tuple[str, list[int]]:
    """The top-k BM25 chunks of the haystack for the question (the thesis's 512/50 splitter and BM25), in
    document order, joined by blank lines; and the chunk indices kept."""
    chunks = recursive_split(haystack, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    kept = sorted(h.index for h in BM25Retriever(chunks).rank(question, top_k))
    return "\n\n".join(chunks[i] for i in kept), kept


def rag_cells(model, cells: list[dict], top_k: int = 5, max_tokens: int = 64, progress: bool = False,
              chunk_size: int = 512, chunk_overlap: int = 50) -> pd.DataFrame:
    """The same questions answered from the top-k BM25 chunks of each haystack (setting ``rag``);
    ``needle_retrieved``: every needle sentence is inside the kept chunks."""
    rows = []
    for c in cells:
        context, _ = rag_context(c["haystack"].text, c["_needle"].question, top_k, chunk_size, chunk_overlap)
        found = all(s.strip() in context for s in c["_needle"].sentences)
        rows.append({**c, "rag_context": context, "needle_retrieved": found})
    out = _ask(model, rows, lambda c: request_for(model, c["rag_context"], c["_needle"].question, max_tokens),
               progress)
    for i, r in enumerate(out):
        r["setting"], r["call_order"] = "rag", i
        r.pop("rag_context")
    return _tidy(out)


def _tidy(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    df["recall"] = [c.score(a) for c, a in zip(df["_needle"], df["response"], strict=True)]
    df["question_by"] = [c.question_by for c in df["_needle"]]
    if "needle_retrieved" not in df:
        df["needle_retrieved"] = True
    return df


def public(df: pd.DataFrame) -> pd.DataFrame:
    """The table without the in-memory objects (haystacks, needles): what the chapter saves."""
    return df.drop(columns=[c for c in ("haystack", "_needle") if c in df.columns]).reset_index(drop=True)


# ----------------------------------------------------------------------------- the judge


def judge_prompt(judge, messages: list[dict]) -> str | None:
    """The judge's chat template applied to ``messages``, as text, when the judge is a local GGUF chat model
    (None otherwise): the book then starts the judge's answer itself with "Rating: [[" (see :func:`judge_cells`)."""
    if not (judge.info.is_local and judge.info.kind == "chat"):
        return None
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    llm = getattr(judge.tokenizer, "_llm", None)
    template = (llm.metadata or {}).get("tokenizer.chat_template") if llm is not None else None
    if not template:
        return None
    def text(token: int) -> str:
        return llm.detokenize([token], special=True).decode("utf-8", errors="ignore") if token >= 0 else ""

    fmt = Jinja2ChatFormatter(template, eos_token=text(llm.token_eos()), bos_token=text(llm.token_bos()),
                              add_generation_prompt=True)
    return fmt(messages=messages).prompt


def judge_cells(judge, answers: pd.DataFrame, max_tokens: int = 256, progress: bool = False) -> pd.DataFrame:
    """Kamradt's 1-10 judge on every answer (reference: the needle; input: the question).

    A local chat judge gets Kamradt's prompt through its own chat template and its answer is started with
    ``"Rating: [["`` (a 4-token completion that stops at ``"]]"``): the score without LangChain's explanation,
    which a 135M model cannot give in a parseable form and which would cost ~10x more. Other judges get the
    prompt as chat messages and answer freely (LangChain's parser, then a loose one). Identical requests are
    answered once (the cache), so repeated answers cost nothing.
    """
    rows = answers.to_dict("records")
    order = sorted(range(len(rows)), key=lambda i: (rows[i]["needle"], str(rows[i]["response"])))
    scores: dict[int, tuple] = {}
    it = order
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(order, desc=f"judge {judge.spec}")
    for i in it:
        row = rows[i]
        needle = row["_needle"]
        msgs = metrics.judge_messages(needle.question, needle.text, str(row["response"]))
        prompt = judge_prompt(judge, msgs)
        if prompt is not None:
            r = judge.complete(prompt + metrics.RATING_PREFIX, max_tokens=4, temperature=0.0, stop=["]]"])
            text = metrics.RATING_PREFIX + r.text
            score, how = metrics.parse_rating(text)
            how = "forced" if score is not None else how
        else:
            r = judge.chat(msgs, max_tokens=max_tokens, temperature=0.0)
            text = r.text
            score, how = metrics.parse_rating(text)
        scores[i] = (score, how, text)
    out = answers.copy()
    out["judge"] = judge.spec
    out["judge_score"] = [scores[i][0] for i in range(len(rows))]
    out["judge_parse"] = [scores[i][1] for i in range(len(rows))]
    out["judge_text"] = [scores[i][2] for i in range(len(rows))]
    return out


# ----------------------------------------------------------------------------- analysis

FOUND_RECALL = 0.5  # an answer "finds" the needle when it holds at least half of the needle's answer words
FOUND_JUDGE = 7  # Kamradt's rubric: 7 = "aligns with the reference but has minor omissions"


def add_found(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    out["found"] = out["recall"] >= FOUND_RECALL
    if "judge_score" in out:
        out["judge_found"] = out["judge_score"].astype("float") >= FOUND_JUDGE
    return out


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Cohen's kappa of two binary raters (NaN when both say the same thing everywhere: undefined)."""
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    po = float(np.mean(a == b))
    pe = float(a.mean() * b.mean() + (1 - a.mean()) * (1 - b.mean()))
    return float("nan") if pe == 1 else (po - pe) / (1 - pe)


def scorer_agreement(df: pd.DataFrame, by: Sequence[str] = ("model", "needle")) -> pd.DataFrame:
    """How the judge and the deterministic recall agree, per group: found rates, agreement, kappa, Spearman r,
    and how the judge's answers were parsed."""
    from scipy.stats import spearmanr

    rows = []
    for key, g in df.groupby(list(by), sort=False):
        g = g[g["judge_score"].notna()]
        if g.empty:
            continue
        r = spearmanr(g["recall"], g["judge_score"]).statistic if g["recall"].nunique() > 1 and \
            g["judge_score"].nunique() > 1 else float("nan")
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)), "n": len(g),
                     "found_recall": g["found"].mean(), "found_judge": g["judge_found"].mean(),
                     "agreement": (g["found"] == g["judge_found"]).mean(),
                     "kappa": cohen_kappa(g["found"], g["judge_found"]), "spearman": r,
                     "judge_mean": g["judge_score"].mean(), "recall_mean": g["recall"].mean(),
                     "wordy_correct_low": int(((g["recall"] == 1) & (g["judge_score"] < FOUND_JUDGE)).sum())})
    return pd.DataFrame(rows)


def depth_profile(df: pd.DataFrame, value: str = "recall") -> pd.DataFrame:
    """Mean score per model, needle, setting and depth, averaged over lengths (the lost-in-the-middle view)."""
    return (df.groupby(["model", "needle", "setting", "depth"], sort=False)[value].mean()
            .reset_index().sort_values(["model", "needle", "setting", "depth"]))


def heatmap_table(scored: pd.DataFrame) -> pd.DataFrame:
    """The answers with a column ``length`` for the heatmaps' x axis: the context length of full-context answers
    ("1000", ...), then "RAG <length>" for the BM25 answers at that length (a column beside the heatmap); an
    ordered categorical, so the RAG columns come last."""
    df = scored.copy()
    rag = df["setting"] == "rag"
    df["length"] = df["context_tokens"].astype(int).astype(str).where(~rag, "RAG " + df["context_tokens"].astype(str))
    order = [str(n) for n in sorted(df.loc[~rag, "context_tokens"].unique())]
    order += [f"RAG {n}" for n in sorted(df.loc[rag, "context_tokens"].unique())]
    df["length"] = pd.Categorical(df["length"], categories=order, ordered=True)
    return df


def full_vs_rag(scored: pd.DataFrame) -> pd.DataFrame:
    """Per model and needle, over the cells asked both ways: share found with the full haystack, with the BM25
    chunks, share *rescued* by retrieval (missed in full, found with RAG) and *lost* (the reverse), and how often
    BM25 kept the needle."""
    keys = ["model", "needle", "context_tokens", "depth"]
    full = scored[scored["setting"] == "full"][[*keys, "found"]]
    rag = scored[scored["setting"] == "rag"][[*keys, "found", "needle_retrieved"]]
    p = full.merge(rag, on=keys, suffixes=("_full", "_rag"))
    p = p.assign(rescued=~p["found_full"] & p["found_rag"], lost=p["found_full"] & ~p["found_rag"])
    return (p.groupby(["model", "needle"], sort=False)
            .agg(cells=("found_full", "size"), full_found=("found_full", "mean"), rag_found=("found_rag", "mean"),
                 rescued=("rescued", "mean"), lost=("lost", "mean"), needle_retrieved=("needle_retrieved", "mean"))
            .reset_index())


def word_frequencies(haystack: str, needles: Sequence[Needle]) -> pd.DataFrame:
    """How often each content word of each needle occurs in the haystack (the thesis's explanation: the simple
    needle's common words recur in the essays, the complex needle's technical terms do not)."""
    counts: dict[str, int] = {}
    words = thesis_tokenize(haystack)
    n = len(words)
    for w in words:
        for part in w.replace("-", " ").split():
            counts[part] = counts.get(part, 0) + 1
    rows = []
    for nd in needles:
        for w in metrics.content_words(nd.text):
            rows.append({"needle": nd.name, "word": w, "count": counts.get(w, 0),
                         "per_10k_words": round(1e4 * counts.get(w, 0) / n, 2)})
    return pd.DataFrame(rows)


def needle_bm25_rank(haystack: str, needle: Needle) -> dict:
    """BM25-rank the needle sentence(s) among the haystack's sentences, the question as the query: rank 1 means
    the question points straight at the needle; ``competitors`` counts sentences scoring at least half the
    needle's score (distractors a reader, or a model, might latch on to)."""
    sentences = [s for s in split_sentences(haystack) if s.strip()]
    target = needle.sentences[0].strip()
    idx = next((i for i, s in enumerate(sentences) if target in s or s in target), None)
    if idx is None:
        raise ValueError(f"needle {needle.name!r} not found among the haystack's sentences")
    scores = BM25Retriever(sentences).scores(needle.question)
    rank = int((scores > scores[idx]).sum()) + 1
    return {"needle": needle.name, "sentences": len(sentences), "rank": rank,
            "rank_percentile": round(100 * (rank - 1) / len(sentences), 2),
            "competitors": int((scores >= scores[idx] / 2).sum()) - 1, "needle_score": float(scores[idx]),
            "best_other": float(np.delete(scores, idx).max()) if len(sentences) > 1 else 0.0}


def explanation_table(answers: pd.DataFrame, needles: Sequence[Needle], haystacks: dict) -> pd.DataFrame:
    """Per model, needle and length: the needle's BM25 rank among the haystack's sentences (depth 50) and the
    failure rate of the full-context answers, to relate the thesis's explanation to the failure cells."""
    full = answers[answers["setting"] == "full"]
    rows = []
    for (model, needle_name, length), g in full.groupby(["model", "needle", "context_tokens"], sort=False):
        nd = next(n for n in needles if n.name == needle_name)
        hay = haystacks.get((model, needle_name, length))
        if hay is None:
            continue
        rows.append({"model": model, "needle": needle_name, "context_tokens": length,
                     **{k: v for k, v in needle_bm25_rank(hay, nd).items() if k != "needle"},
                     "fail_rate": 1 - g["found"].mean(), "recall_mean": g["recall"].mean()})
    return pd.DataFrame(rows)


def h4_tests(df: pd.DataFrame, window: int) -> dict:
    """The three parts of H4 on one model's full-context answers (``found`` from the deterministic scorer).

    - ``complex_everywhere``: every complex-needle cell found;
    - ``simple_fails_late``: the simple needle fails somewhere, and never below 30 % of ``window``;
    - ``no_upper_right``: the failure rate in the upper-right quadrant (length above the grid's median, depth
      >= 50 %) is not significantly above the rest's (Fisher's exact test, one-sided, 5 %); undecidable when the
      model finds the needle in fewer than half of the other cells (no drop can show against a floor).
    """
    from scipy.stats import fisher_exact

    full = df[df["setting"] == "full"]
    cx, sp = full[full["needle"] == "complex"], full[full["needle"] == "simple"]
    out: dict = {"complex_found": cx["found"].mean() if len(cx) else float("nan")}
    out["complex_everywhere"] = bool(cx["found"].all()) if len(cx) else None
    fails = sp[~sp["found"]]
    early = fails[fails["context_tokens"] < 0.3 * window]
    out["simple_fail_rate"] = 1 - sp["found"].mean() if len(sp) else float("nan")
    out["simple_early_fails"] = len(early)
    out["simple_fails_late"] = (len(fails) > 0 and len(early) == 0) if len(sp) else None
    both = pd.concat([cx, sp])
    if both.empty:
        out.update(ur_fail=float("nan"), rest_fail=float("nan"), ur_p=float("nan"), no_upper_right=None)
        return out
    median = both["context_tokens"].median()
    ur = (both["context_tokens"] > median) & (both["depth"] >= 50)
    a, b = both[ur], both[~ur]
    out["ur_fail"], out["rest_fail"] = 1 - a["found"].mean(), 1 - b["found"].mean()
    table = [[int((~a["found"]).sum()), int(a["found"].sum())], [int((~b["found"]).sum()), int(b["found"].sum())]]
    out["ur_p"] = float(fisher_exact(table, alternative="greater").pvalue) if len(a) and len(b) else float("nan")
    if not len(a) or not len(b) or b["found"].mean() < 0.5:
        out["no_upper_right"] = None
    else:
        out["no_upper_right"] = bool(out["ur_p"] >= 0.05)
    return out


def check_h4(ledger, df: pd.DataFrame, window: int, lengths_note: str = "") -> dict:
    """H4's three parts as claims of ``ledger`` (one ledger per model); returns :func:`h4_tests`' values."""
    t = h4_tests(df, window)
    note = f" ({lengths_note})" if lengths_note else ""
    ledger.check("H4a", "The complex (laser) needle is found at every length and depth", "all cells (perfect)",
                 f"{t['complex_found']:.0%} of cells found", t["complex_everywhere"],
                 evidence=f"deterministic recall >= {FOUND_RECALL} in every complex-needle cell{note}",
                 anchor="needle-claims")
    ledger.check("H4b", "The simple (San Francisco) needle fails only beyond ~30% of the window",
                 "some misses, none below 30% of the window",
                 f"fail rate {t['simple_fail_rate']:.0%}; {t['simple_early_fails']} misses below "
                 f"{int(0.3 * window)} tokens", t["simple_fails_late"],
                 evidence=f"window taken as {window} tokens (the longest length tested){note}",
                 anchor="needle-claims")
    ledger.check("H4c", "No failure cluster at long context with the needle near the end (upper right)",
                 "no significant drop", f"fail {t.get('ur_fail', float('nan')):.0%} upper right vs "
                 f"{t.get('rest_fail', float('nan')):.0%} elsewhere (p = {t.get('ur_p', float('nan')):.3f})",
                 t["no_upper_right"],
                 evidence="Fisher exact, one-sided, both needles; inconclusive when fewer than half of the other "
                          f"cells are found{note}", anchor="needle-claims")
    return t


# ----------------------------------------------------------------------------- timing


def time_estimate(cells: Sequence[dict], tokens_per_s: float, answer_s: float) -> float:
    """Seconds to answer ``cells`` in their order at a prompt speed and a per-answer cost (for planning)."""
    return prefill_cost(cells) / tokens_per_s + answer_s * len(cells)


__all__ = [
    "BUFFER_TOKENS", "COMPLEX_NEEDLE", "COMPLEX_QUESTION", "NEEDLES", "QUESTION_SUFFIX", "SIMPLE_NEEDLE",
    "SIMPLE_QUESTION", "SYSTEM", "Haystack", "Needle", "answer_cells", "build_haystack", "check_h4",
    "completion_prompt", "explanation_table", "haystack_tokens", "insert_needle", "insertion_point", "judge_cells",
    "make_haystack", "needle_grid", "needle_messages", "needles_for", "prefix_order", "rag_cells", "ruler_needle",
    "scorer_agreement", "word_frequencies",
]
