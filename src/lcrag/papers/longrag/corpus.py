"""LongRAG's retrieval corpus: LongBench contexts split into paragraphs, pooled per dataset, and chunked.

1. **Corpus**: every LongBench context of a dataset split into its ``Passage N:`` paragraphs, deduplicated
   across the dataset's records and pooled (:func:`build_corpus`);
2. **Chunks**: the released clause chunker (:func:`lcrag.text.chunking.clause_chunks`), each chunk mapped to
   its paragraph (:func:`chunk_corpus`).

:func:`questions` turns the same records into the questions the pipeline answers; :func:`corpus_counts` is the
chapter's table beside the paper's Table 2, and :func:`paper_corpus_sentence` and :func:`paragraph_words_sentence`
the chapter's sentences on them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lcrag.data.longbench import split_passages
from lcrag.papers.longrag.names import DATASET_NAMES
from lcrag.text import join_words
from lcrag.text.chunking import clause_chunks


def build_corpus(records: pd.DataFrame) -> pd.DataFrame:
    """A dataset's retrieval corpus: one row per distinct paragraph of all its records' contexts.

    Columns ``paragraph_id`` (0-based, first-seen order), ``text`` (without its ``Passage N:`` label: the same
    paragraph carries different labels in different records), ``words``, ``first_record`` (``_id`` of the first
    record it appears in) and ``n_records`` (how many records contain it).
    """
    seen: dict[str, int] = {}
    rows: list[dict] = []
    for rid, context in zip(records["_id"], records["context"], strict=True):
        for text in dict.fromkeys(split_passages(context, rid)):  # a paragraph twice in one record counts once
            if text in seen:
                rows[seen[text]]["n_records"] += 1
                continue
            seen[text] = len(rows)
            rows.append({"paragraph_id": len(rows), "text": text, "words": len(text.split()),
                         "first_record": rid, "n_records": 1})
    return pd.DataFrame(rows, columns=["paragraph_id", "text", "words", "first_record", "n_records"])


def chunk_corpus(corpus: pd.DataFrame, chunk_size: int = 200, min_units: int = 2, overlap: int = 2) -> pd.DataFrame:
    """Every paragraph cut by the released chunker: ``chunk_id``, ``paragraph_id``, ``text``."""
    rows = [
        (pid, chunk)
        for pid, text in zip(corpus["paragraph_id"], corpus["text"], strict=True)
        for chunk in clause_chunks(text, chunk_size, min_units, overlap)
    ]
    df = pd.DataFrame(rows, columns=["paragraph_id", "text"])
    df.insert(0, "chunk_id", range(len(df)))
    return df


def questions(records: pd.DataFrame) -> pd.DataFrame:
    """LongBench records as the questions the pipeline answers: ``question_id``, ``question``, ``answers``,
    ``context`` (for the Full arm) and ``index`` (the row in the full LongBench file)."""
    return records.rename(columns={"_id": "question_id", "input": "question"})[
        ["question_id", "question", "answers", "context", "index"]
    ].reset_index(drop=True)


def corpus_counts(corpora: dict[str, pd.DataFrame], chunks: dict[str, pd.DataFrame],
                  records: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per dataset: records, passages before deduplication, distinct paragraphs, mean words, chunks."""
    rows = []
    for name, corpus in corpora.items():
        rows.append({"dataset": name, "records": len(records[name]),
                     "passages": int(records[name]["n_passages"].sum()), "paragraphs": len(corpus),
                     "mean_words": round(float(np.mean(corpus["words"])), 1), "chunks": len(chunks[name])})
    return pd.DataFrame(rows)


#: The paper's Table 2 statistics, as named in our columns beside the corpus counts.
TABLE2_COLUMNS = {"Num of Samples": "paper_records", "Num of p": "paper_paragraphs",
                  "Avg. Length of p": "paper_mean_words", "Avg. Length of P": "paper_context_words"}


def corpus_vs_paper(index: dict) -> pd.DataFrame:
    """:func:`corpus_counts` of every dataset's index (records, corpus, retriever) with the paper's Table 2
    beside it (``paper_*`` columns)."""
    from lcrag.papers.longrag.published import paper_table2

    counts = corpus_counts({ds: v[1] for ds, v in index.items()}, {ds: v[2].chunks for ds, v in index.items()},
                           {ds: v[0] for ds, v in index.items()})
    t2 = paper_table2().pivot(index="dataset", columns="statistic", values="paper_value").rename(columns=TABLE2_COLUMNS)
    return counts.join(t2, on="dataset")


def _paper_table2() -> pd.DataFrame:
    """Table 2 with one row per dataset and one column per printed statistic."""
    from lcrag.papers.longrag.published import paper_table2

    return paper_table2().pivot(index="dataset", columns="statistic", values="paper_value")


def paper_corpus_sentence() -> str:
    """Section 1's sentence on the paper's pools of paragraphs (Table 2)."""
    t2 = _paper_table2()
    records = set(t2["Num of Samples"])
    each = f" ({records.pop():.0f} records each)" if len(records) == 1 else ""
    paragraphs = " / ".join(f"{t2.loc[d, 'Num of p']:,.0f}" for d in DATASET_NAMES)
    return f"The paper reports {paragraphs} paragraphs for {' / '.join(DATASET_NAMES.values())}{each}."


def paragraph_words_sentence(counts: pd.DataFrame) -> str:
    """Section 1's sentences on the table's two counts of paragraphs (``passages`` before deduplication,
    ``paragraphs`` after) and on the mean words per paragraph of our pools (:func:`corpus_vs_paper`, rounded to ten
    words) beside the paper's (Table 2)."""
    kept = [f"{r.paragraphs:,} of {r.passages:,} in {DATASET_NAMES[r.dataset]}" for r in counts.itertuples()]
    ours = [f"{round(r.mean_words, -1):,.0f}" + (" words" if i == 0 else "") + f" in {DATASET_NAMES[r.dataset]}"
            for i, r in enumerate(counts.itertuples())]
    paper = [f"{r.paper_mean_words:,.0f}" for r in counts.itertuples()]
    return ("`passages` counts the records' paragraphs as LongBench lists them, `paragraphs` the distinct ones the "
            f"pool keeps after deduplication ({join_words(kept)}). "
            f"A paragraph averages about {join_words(ours)}, close to the paper's {join_words(paper)} per paragraph.")


