"""LongRAG's vocabulary: datasets, strategies, arms, retrieval settings and model names, one spelling each.

Datasets go by LongBench's names (``hotpotqa``, ``2wikimqa``, ``musique``; ``average`` for a printed average
column). Strategies are ``R&B``, ``R&L``, ``Ext``, ``Fil``, ``E&F`` (the paper prints "Ext." and "Fil."). ``llm``
is a base model under one spelling (:func:`llm_name`: Table 1 prints "Qwen-1.5-7B-32k", Table 3 "Qwen1.5-7B-32k");
``sft`` is True for a model fine-tuned on LRGinstruction. Retrieval settings are "chunk size*top-k", e.g. ``200*7``.
"""

from __future__ import annotations

DATASETS: tuple[str, ...] = ("hotpotqa", "2wikimqa", "musique")
#: The datasets as the paper writes them.
DATASET_NAMES = {"hotpotqa": "HotpotQA", "2wikimqa": "2WikiMQA", "musique": "MuSiQue"}

STRATEGIES = ("R&B", "R&L", "Ext", "Fil", "E&F")
"""The paper's five component strategies (Table 3): what the generator reads.

- ``R&B`` (vanilla RAG): the top-k reranked chunks;
- ``R&L`` (RAG-Long): the chunks' source paragraphs;
- ``Ext``: the chunks, then the extractor's output ``I_g``;
- ``Fil``: the chunks the filter kept ``I_d``;
- ``E&F`` (LongRAG): ``I_d`` then ``I_g``.
"""
ARMS = ("Full", "Closed")
"""Beyond the paper: the whole context (middle-truncated) and no context, same generator and prompt."""

SETTINGS: tuple[str, ...] = ("200*7", "200*12", "500*3", "500*5")
DEFAULT_SETTING = "200*7"

#: Small models fine-tuned on LRGinstruction (Tables 3, 12-14 "with SFT" rows), in Table 3's order.
SFT_LLMS: tuple[str, ...] = ("ChatGLM3-6B-32k", "Qwen1.5-7B-32k", "Vicuna-v1.5-7B-16k", "Llama3-8B-8k")

#: The arms of Tables 9-11 (component transfer), as printed.
TRANSFER_ARMS: tuple[str, ...] = ("R&B", "E&F w/o SFT", "E&F w/ SFT (ChatGLM3-6b-32k)")

#: Printed model names -> one spelling of the base LLM (``LongRAG-`` prefix and Table 1's "Qwen-1.5" dropped).
_LLM_ALIASES = {"Qwen-1.5-7B-32k": "Qwen1.5-7B-32k"}


def llm_name(model: str) -> str:
    """The base LLM of a printed model name: ``LongRAG-Qwen-1.5-7B-32k`` -> ``Qwen1.5-7B-32k``."""
    name = model.removeprefix("LongRAG-")
    return _LLM_ALIASES.get(name, name)
