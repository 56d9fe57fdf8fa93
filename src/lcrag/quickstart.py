"""The quickstart: the whole path of the book on a few real items.

Two small experiments on the embedded model, each as *dataset → solver → scorer* (the inspect_ai shape):

1. BAMBOO multiple choice, **Full** (the whole document in the prompt) vs **RAG** (the top-k BM25 chunks of the
   document, query = the question);
2. one needle in a Paul Graham essay haystack, **Full** vs **RAG** (BM25 over the haystack's chunks).

Every function returns a tidy table (one row per item and setting) that the chapter saves and plots.
"""

from __future__ import annotations

import pandas as pd

from lcrag.book.claims import NOT_TESTABLE
from lcrag.book.verdicts import accuracy_at_floor, floor_reason
from lcrag.metrics import bamboo_letter, lenient_letter
from lcrag.metrics.multiple_choice import LETTERS
from lcrag.metrics.needle import answer_recall
from lcrag.papers.thesis.accuracy import CHANCE
from lcrag.papers.thesis.cases import clean_cases
from lcrag.papers.thesis.needle.asking import needle_messages, rag_context
from lcrag.papers.thesis.needle.haystack import build_haystack
from lcrag.papers.thesis.needle.needles import SIMPLE_NEEDLE, SIMPLE_QUESTION
from lcrag.papers.thesis.prompts import SYSTEM, bamboo_prompt
from lcrag.papers.thesis.solver import solve as thesis_solve
from lcrag.retrieval import BM25Retriever
from lcrag.stats import exact_interval, label_permutation
from lcrag.text.chunking import recursive_split

SETTINGS = ("full", "rag")


# ----------------------------------------------------------------------------- datasets


def bamboo_items(df: pd.DataFrame, n_items: int) -> pd.DataFrame:
    """The first ``n_items`` cases the thesis chapter keeps, in file order: its cleaning
    (:func:`lcrag.papers.thesis.cases.clean_cases`: four options, one of each pair of duplicates), so the quickstart
    asks no question twice (MeetingQA 4k case 5 = case 12)."""
    cleaned = clean_cases(df)
    items = cleaned[cleaned["kept"]].head(n_items).reset_index(drop=True)
    last = items["case"].max() if len(items) else 0
    items.attrs["skipped"] = {int(c): r for c, r in zip(cleaned["case"], cleaned["removed"], strict=True)
                              if r and c < last}  # the cases the cleaning removed among the first ones
    return items


def items_sentence(items: pd.DataFrame) -> str:
    """Which cases :func:`bamboo_items` took, and which it skipped before the last one and why: ``3 questions,
    cases 4, 6, 7 (the cleaning skipped case 5: duplicate of case 12)``."""
    skipped = "; ".join(f"{c}: {why}" for c, why in items.attrs.get("skipped", {}).items())
    return (f"{len(items)} questions, cases {', '.join(map(str, items['case']))}"
            + (f" (the cleaning skipped case {skipped})" if skipped else ""))


def bamboo_prompts(items: pd.DataFrame, settings=SETTINGS, top_k: int = 5, chunk_size: int = 512,
                   chunk_overlap: int = 50) -> pd.DataFrame:
    """One prompt per item and setting: the whole document (``full``) or its top-k BM25 chunks in rank order
    (``rag``)."""
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise ValueError(f"settings must be among {SETTINGS}, not {sorted(unknown)}")
    rows = []
    for setting, item in ((s, i) for s in settings for i in items.itertuples()):
        if setting == "full":
            parts, chunk_ids = [item.content], []
        else:
            chunks = recursive_split(item.content, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
            hits = BM25Retriever(chunks).rank(item.question, top_k)
            parts, chunk_ids = [h.text for h in hits], [h.index + 1 for h in hits]
        rows.append({"task": item.task, "case": item.case, "setting": setting, "answer": item.answer,
                     "prompt": bamboo_prompt(item.question, list(item.options), parts), "chunks": chunk_ids})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- solver


def solve(model, prompts: pd.DataFrame, *, system: str | None = SYSTEM, max_tokens: int = 5,
          context_policy: str = "truncate_middle", max_context_tokens: int | None = None) -> pd.DataFrame:
    """Ask ``model`` every prompt (greedy; concurrently for remote endpoints, in order for local ones) with the
    thesis chapter's solver (:func:`lcrag.papers.thesis.solver.solve`); add the response and its accounting to the
    table (without the thesis's logprob columns and answer source).

    ``max_context_tokens`` (for the smoke profile) cuts each text prompt to that many tokens first.
    """
    answers = thesis_solve(model, prompts.rename(columns={"prompt": "prompt_text"}), system=system,
                           max_tokens=max_tokens, context_policy=context_policy,
                           max_context_tokens=max_context_tokens)
    return answers.drop(columns=[*(f"lp_{x}" for x in LETTERS), "pred_logprob", "source"])


# ----------------------------------------------------------------------------- scorers


def score_choices(answers: pd.DataFrame) -> pd.DataFrame:
    """BAMBOO's raw scorer (first character) and a lenient letter parser, side by side."""
    df = answers.copy()
    df["pred_raw"] = df["response"].map(bamboo_letter)
    df["pred_lenient"] = df["response"].map(lenient_letter)
    df["correct_raw"] = df["pred_raw"] == df["answer"]
    df["correct_lenient"] = df["pred_lenient"] == df["answer"]
    return df


def accuracy_table(scored: pd.DataFrame) -> pd.DataFrame:
    """Per setting: accuracy (raw and lenient) with its exact 95 % interval (Clopper-Pearson: the one the floor rule
    reads, so ``ci_low`` reaches ``chance`` exactly when ``at_floor``), its baselines (``chance``, the model's
    ``letter_prior``: :func:`lcrag.stats.label_permutation`) and the floor flag, mean prompt tokens and latency."""
    rows = []
    for setting, g in scored.groupby("setting", sort=False):
        k, n = int(g["correct_lenient"].sum()), len(g)
        lo, hi = exact_interval(k, n)
        prior, _ = label_permutation(g["pred_lenient"], g["answer"])
        rows.append({"setting": setting, "n": n, "accuracy_raw": g["correct_raw"].mean(),
                     "accuracy": k / n, "ci_low": lo, "ci_high": hi, "chance": CHANCE, "letter_prior": prior,
                     "at_floor": accuracy_at_floor(k, n, CHANCE),
                     "prompt_tokens": g["prompt_tokens"].mean(), "latency_s": g["latency_s"].mean()})
    return pd.DataFrame(rows)


def floor_reading(acc: pd.DataFrame) -> str:
    """A sentence on an :func:`accuracy_table`: the settings at the floor (their exact 95 % interval reaches chance,
    book/verdicts.md's rule 3, :func:`lcrag.book.verdicts.floor_reason`) and what that leaves of Full − RAG."""
    reason = floor_reason({r.setting: {"correct": round(r.accuracy * r.n), "n": int(r.n), "chance": r.chance}
                           for r in acc.itertuples()})
    if reason is None:
        return ("No setting is at the floor (each exact 95 % interval lies above chance), so the Full − RAG "
                "difference speaks to long context against retrieval, within intervals this wide.")
    floored = int(acc["at_floor"].sum())
    which = "a setting" if floored < len(acc) else "both settings" if floored == 2 else "every setting"
    return (f"At the floor (the exact 95 % interval reaches chance, or lies below it): {reason}. With {which} at "
            f"the floor, the Full − RAG comparison is *{NOT_TESTABLE}*: it measures the model, not long context "
            "against retrieval.")


def letter_counts(scored: pd.DataFrame) -> pd.DataFrame:
    """How often each setting answered each letter (``none``: no letter found), above how often each letter is the
    correct one (row ``answer key``): a setting that answers one letter whatever the question shows here."""
    counts = pd.crosstab(scored["setting"], scored["pred_lenient"].fillna("none"))
    key = scored.drop_duplicates("case")["answer"].value_counts().rename("answer key").to_frame().T
    out = pd.concat([counts, key]).fillna(0).astype(int)
    return out[sorted(out.columns, key=lambda c: (c == "none", c))].rename_axis(index="setting", columns="letter")


# ----------------------------------------------------------------------------- needle


def needle_prompts(model, essays: list[str], lengths: list[int], depths: list[float], top_k: int = 5,
                   chunk_size: int = 512, chunk_overlap: int = 50, needle: str = SIMPLE_NEEDLE,
                   question: str = SIMPLE_QUESTION) -> pd.DataFrame:
    """One Full and one RAG prompt per (length, depth) cell; RAG keeps the top-k BM25 chunks in document order (the
    needle chapter's :func:`~lcrag.papers.thesis.needle.asking.rag_context`). ``needle_retrieved`` (RAG rows): the
    needle is inside the kept chunks; None on Full rows, which send it whole."""
    rows = []
    for length in lengths:
        for depth in depths:
            hay = build_haystack(model, essays, length, depth, needle)
            kept, _ = rag_context(hay, question, top_k, chunk_size, chunk_overlap)
            for setting, context in (("full", hay), ("rag", kept)):
                rows.append({"setting": setting, "context_tokens": length, "depth": depth,
                             "needle_retrieved": (needle in kept) if setting == "rag" else None,  # full: all of it
                             "prompt": needle_messages(context, question)})
    return pd.DataFrame(rows)


def score_needle(answers: pd.DataFrame, needle: str = SIMPLE_NEEDLE, question: str = SIMPLE_QUESTION) -> pd.DataFrame:
    """``recall``: the share of the needle's answer words in each answer, as the needle chapter scores it
    (:func:`lcrag.metrics.needle.answer_recall`: repeating the question earns nothing)."""
    df = answers.copy()
    df["recall"] = df["response"].map(lambda a: answer_recall(a, needle, question))
    return df
