"""LongRAG's chapter: ``notebooks/longrag.md``."""

from lcrag.chapters import Chapter, Paper
from lcrag.data.longbench import TASKS
from lcrag.papers.longrag import comparison
from lcrag.papers.longrag.lrginstruction.judgement import RULES
from lcrag.papers.longrag.names import ARMS, STRATEGIES
from lcrag.retrieval.rerank import RERANKERS

PAPER = Paper("longrag", "LongRAG (Zhao et al. 2024)", "LongRAG")
CHAPTERS = (
    Chapter("longrag", "LongRAG: extractor, filter, and the long-context arm the paper left out", PAPER, order=40,
            family=comparison.FAMILY, models=("component_model", "transfer_component", "lrg_model"),
            datasets=("longbench", "longrag_eval"),
            choices=(("datasets", TASKS), ("strategies", STRATEGIES), ("arms", ARMS),
                     ("reranker", (*RERANKERS, "<directory>")), ("lrg_rule", RULES))),
)
