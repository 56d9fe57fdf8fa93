"""Summary of a Haystack's names: summarizers, settings, the released summary keys, the printed table headers.

Settings are named by what ran (``vector`` = all-mpnet-base-v2, ``longembed`` = dwzhu/e5-base-4k), not by the
paper's headers, whose Vect/LongE labels look swapped (see :data:`PAPER_SETTING`).
"""

from __future__ import annotations

#: The ``model`` of the claims decided by the released files, saying what in them is the evidence: the summarizers'
#: outputs judged by GPT-4o (the Table 2, 3 and 5 claims); the LLM judges' labels set against the humans' (the
#: evaluator study, Tables 1 and 4); files in which no model's output is the evidence (costs, the dataset's shape).
#: Each names the source ``released artefacts`` (:func:`lcrag.book.verdicts.source_of`). The human studies' claims,
#: whose data were never released, have only the paper's printed numbers: source ``paper tables``.
ARTEFACT_MODEL = "released artefacts (GPT-4o judge)"
ARTEFACT_JUDGES_MODEL = "released artefacts (LLM judges vs humans)"
ARTEFACT_NO_MODEL = "released artefacts (no model)"
PAPER_TABLES_MODEL = "the paper's published tables"
#: The artefact claims whose evidence is not the GPT-4o judgments of the summaries, with the model that says what it is.
ARTEFACT_CLAIM_MODELS = {
    "C15": ARTEFACT_JUDGES_MODEL,
    "C16": ARTEFACT_NO_MODEL,
    "C17": ARTEFACT_JUDGES_MODEL,
    "C19": PAPER_TABLES_MODEL,
    "C20": ARTEFACT_NO_MODEL,
    "C20b": ARTEFACT_NO_MODEL,
    "C21": PAPER_TABLES_MODEL,
}

#: Summarizers in the row order of the paper's Table 2 (the repo's model-card names), with the paper's names.
SUMMARIZERS: dict[str, str] = {
    "gpt3.5": "GPT3.5",
    "claude3-haiku": "Claude 3 Haiku",
    "gpt4-turbo": "GPT4-turbo",
    "command-r": "Command-r",
    "gemini-1.5-flash": "Gemini-1.5-flash",
    "command-r-plus": "Command-r +",
    "claude3-sonnet": "Claude 3 Sonnet",
    "claude3-opus": "Claude 3 Opus",
    "gpt-4o": "GPT-4o",
    "gemini-1.5-pro": "Gemini-1.5-pro",
}

#: Settings, named by what ran. The first seven are Table 2's columns; the last three are Table 3's orders.
SETTINGS: dict[str, str] = {
    "random": "random scores (Rand)",
    "vector": "all-mpnet-base-v2 embeddings",
    "longembed": "dwzhu/e5-base-4k (LongEmbed) embeddings",
    "keywords": "NLTK keyword overlap (KWs)",
    "rerank3": "Cohere rerank-english-v3.0 (RR3)",
    "oracle": "oracle: number of the subtopic's insights in the document",
    "full": "full haystack, stored order",
    "top": "full haystack, relevant documents first",
    "bottom": "full haystack, relevant documents last",
    "middle": "full haystack, relevant documents in the middle (not in the paper)",
}
TABLE2_SETTINGS = ("random", "vector", "longembed", "keywords", "rerank3", "oracle", "full")
POSITION_SETTINGS = ("top", "bottom", "full", "middle")

#: The retriever part of a released summary key, when it is not already a setting name.
_KEY_SETTING = {
    "dwzhu/e5-base-4k": "longembed",
    "fl-ctxt-sort": "top",
    "fl-ctxt-rev-sort": "bottom",
    "fl-ctxt-middle": "middle",
}
_KEY_PREFIX = "summary_subtopic_"


def parse_summary_key(key: str) -> tuple[str, str]:
    """``(summarizer, setting)`` of a released summary key.

    ``summary_subtopic_<retriever>_<summarizer>`` is a retrieval run; ``summary_subtopic_<summarizer>`` is the
    full-context run (as ``utils_eval.compute_2d_rag_results`` reads them).
    """
    if not key.startswith(_KEY_PREFIX):
        raise ValueError(f"not a SummHay summary key: {key!r}")
    rest = key[len(_KEY_PREFIX) :]
    if rest.count("_") == 1:
        retriever, summarizer = rest.split("_")
    elif "_" not in rest:
        retriever, summarizer = "full", rest
    else:
        raise ValueError(f"cannot split summary key {key!r} into retriever and summarizer")
    setting = _KEY_SETTING.get(retriever, retriever)
    if setting not in SETTINGS:
        raise ValueError(f"unknown retriever {retriever!r} in summary key {key!r}")
    return summarizer, setting


#: Table 2's column headers, in order, and the setting each is compared with. The inventory
#: (../shared/papers/summhay.md §4.2) found the authors' notebook reproduces Table 2 only if "Vect" is the
#: repo's longembed column and "LongE" its vector column; ``swap=False`` in
#: :func:`~lcrag.papers.summhay.paper_numbers.paper_table2` takes the headers literally instead.
PAPER_COLUMNS = ("Rand", "Vect", "LongE", "KWs", "RR3", "Orac", "Full")
PAPER_SETTING = {
    "Rand": "random",
    "Vect": "longembed",
    "LongE": "vector",
    "KWs": "keywords",
    "RR3": "rerank3",
    "Orac": "oracle",
    "Full": "full",
}
PAPER_SETTING_LITERAL = {**PAPER_SETTING, "Vect": "vector", "LongE": "longembed"}

#: The evaluators of Table 4's columns, in the printed order (GPT-4o, Claude 3 Opus, Gemini-1.5-pro).
TABLE4_EVALUATORS = ("gpt-4o", "claude3-opus", "gemini-1.5-pro")
