"""LongRAG's published tables (Tables 1-15) as tidy DataFrames, read from ``tables/*.csv``.

The CSV files keep each table as printed (row order, number order, Table 1's "value(gain↑)" cells), with a
``source`` column naming the table; they are read here as text and parsed, so every value is the printed one.
:func:`paper_table1` ... :func:`paper_table15` return long tables whose paper numbers sit only in columns named
``paper_*`` (``paper_f1`` in F1 points 0-100, ``paper_tokens``, ``paper_gain``, ``paper_value``). No model call.
"""

from __future__ import annotations

import re
from functools import cache

import pandas as pd

from lcrag.papers.longrag.names import DATASETS, SETTINGS, STRATEGIES, TRANSFER_ARMS, llm_name
from lcrag.papers.tables import printed_table

PAPER = "longrag"


def _number(text: str) -> float:
    """A printed number; ``-`` (no result) is NaN."""
    return float("nan") if text == "-" else float(text)


_GAIN = re.compile(r"^(?P<value>[\d.]+|-)(?:\((?P<gain>[\d.]+)↑\))?$")


def _value_and_gain(cell: str) -> tuple[float, float]:
    """Split a Table 1 cell, ``value`` or ``value(gain↑)``, into (value, printed gain); the gain is NaN if absent."""
    m = _GAIN.match(cell)
    if m is None:
        raise ValueError(f"Table 1 cell {cell!r} is neither a number nor 'number(gain↑)'")
    gain = m.group("gain")
    return _number(m.group("value")), (float(gain) if gain else float("nan"))


@cache
def _table1() -> pd.DataFrame:
    records = []
    for row in printed_table(PAPER, "table1").to_dict("records"):
        for dataset in (*DATASETS, "average"):
            value, gain = _value_and_gain(row[dataset])
            records.append(
                {
                    "group": row["group"],
                    "model": row["model"],
                    "llm": llm_name(row["model"]),
                    "sft": row["group"] == "LongRAG with SFT",
                    "dataset": dataset,
                    "paper_f1": value,
                    "paper_gain": gain,
                }
            )
    return pd.DataFrame(records)


def paper_table1() -> pd.DataFrame:
    """Table 1 (overall F1, 200*7): group, model (as printed), llm, sft, dataset (incl. ``average``),
    paper_f1 and paper_gain (the printed "↑" gain over the same LLM's vanilla RAG; NaN where none is printed).

    CFIC-7B has no 2WikiMQA result (NaN); its printed average is over two datasets.
    """
    return _table1().copy()


def paper_table2() -> pd.DataFrame:
    """Table 2 (data statistics): dataset, statistic (as printed), paper_value. Lengths are word counts."""
    records = [
        {"dataset": d, "statistic": row["statistic"], "paper_value": _number(row[d])}
        for row in printed_table(PAPER, "table2").to_dict("records")
        for d in DATASETS
    ]
    return pd.DataFrame(records)


@cache
def _table3() -> pd.DataFrame:
    records = []
    for row in printed_table(PAPER, "table3").to_dict("records"):
        for dataset in DATASETS:
            for strategy in STRATEGIES:
                records.append(
                    {
                        "llm": llm_name(row["model"]),
                        "sft": row["group"] == "with SFT",
                        "dataset": dataset,
                        "strategy": strategy,
                        "paper_f1": _number(row[f"{dataset} {strategy}"]),
                    }
                )
    return pd.DataFrame(records)


def paper_table3() -> pd.DataFrame:
    """Table 3 (ablation, 200*7): llm, sft, dataset, strategy, paper_f1; 11 model rows x 3 datasets x 5
    strategies. ``sft`` rows use the fine-tuned model as extractor, filter and generator."""
    return _table3().copy()


def paper_table4() -> pd.DataFrame:
    """Table 4 (ReAct with GPT-3.5-Turbo): model, dataset (incl. ``average``), paper_f1."""
    (row,) = printed_table(PAPER, "table4").to_dict("records")
    columns = (*DATASETS, "average")
    return pd.DataFrame(
        {"model": row["model"], "dataset": columns, "paper_f1": [_number(row[d]) for d in columns]},
    )


def paper_table5() -> pd.DataFrame:
    """Table 5 (Self-RAG with GPT-3.5-Turbo, strategy 2: answer without the chunks): model, dataset, paper_f1.

    The paper prints no average. Strategy 1 (answer with the last round's chunks) is Table 1's Self-RAG row.
    """
    (row,) = printed_table(PAPER, "table5").to_dict("records")
    return pd.DataFrame(
        {"model": row["model"], "dataset": DATASETS, "paper_f1": [_number(row[d]) for d in DATASETS]}
    )


@cache
def _tables_6_8() -> pd.DataFrame:
    records = []
    for row in printed_table(PAPER, "tables_6_8").to_dict("records"):
        group, model = row["group"], row["model"]
        for setting in SETTINGS:
            chunk, k = setting.split("*")
            records.append(
                {
                    "group": group,
                    "llm": llm_name(model),
                    "sft": group == "LongRAG with SFT",
                    "longrag": group != "vanilla RAG",
                    "dataset": row["dataset"],
                    "setting": setting,
                    "chunk_size": int(chunk),
                    "top_k": int(k),
                    "paper_f1": _number(row[setting]),
                }
            )
    return pd.DataFrame(records)


def paper_tables_6_8() -> pd.DataFrame:
    """Tables 6-8 (retrieval settings): group, llm, sft, longrag, dataset, setting, chunk_size, top_k,
    paper_f1. The vanilla rows are R&B without SFT, the LongRAG rows E&F; 15 rows x 3 datasets x 4 settings."""
    return _tables_6_8().copy()


@cache
def _tables_9_11() -> pd.DataFrame:
    records = []
    for row in printed_table(PAPER, "tables_9_11").to_dict("records"):
        model = row["model"]
        for arm in TRANSFER_ARMS:
            transfer = arm.startswith("E&F w/ SFT")
            records.append(
                {
                    "generator": llm_name(model),
                    "dataset": row["dataset"],
                    "arm": arm,
                    "strategy": "R&B" if arm == "R&B" else "E&F",
                    "ef_llm": "ChatGLM3-6B-32k (SFT)" if transfer else llm_name(model),
                    "paper_f1": _number(row[arm]),
                }
            )
    return pd.DataFrame(records)


def paper_tables_9_11() -> pd.DataFrame:
    """Tables 9-11 (component transfer): generator, dataset, arm (as printed), strategy, ef_llm (the model
    used as extractor and filter; "ChatGLM3-6B-32k (SFT)" in the transfer arm), paper_f1."""
    return _tables_9_11().copy()


@cache
def _tables_12_14() -> pd.DataFrame:
    records = []
    for row in printed_table(PAPER, "tables_12_14").to_dict("records"):
        for strategy in STRATEGIES:
            records.append(
                {
                    "llm": llm_name(row["model"]),
                    "sft": True,
                    "dataset": row["dataset"],
                    "strategy": strategy,
                    "paper_tokens": _number(row[strategy]),
                }
            )
    return pd.DataFrame(records)


def paper_tables_12_14() -> pd.DataFrame:
    """Tables 12-14 (mean generator input tokens, ChatGLM tokenizer; Figure 3 is the ChatGLM3 row):
    llm, sft (all True), dataset, strategy, paper_tokens."""
    return _tables_12_14().copy()


def paper_table15() -> pd.DataFrame:
    """Table 15 (LRGinstruction): data_type, dataset (incl. ``qasper``), paper_value (NaN for "-")."""
    columns = (*DATASETS, "qasper")
    records = [
        {"data_type": row["data type"], "dataset": d, "paper_value": _number(row[d])}
        for row in printed_table(PAPER, "table15").to_dict("records")
        for d in columns
    ]
    return pd.DataFrame(records)
