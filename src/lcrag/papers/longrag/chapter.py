"""LongRAG's chapter: ``notebooks/longrag.md``."""

from lcrag.chapters import Chapter, Paper
from lcrag.papers.longrag import comparison

PAPER = Paper("longrag", "LongRAG (Zhao et al. 2024)", "LongRAG")
CHAPTERS = (
    Chapter("longrag", "LongRAG: extractor, filter, and the long-context arm the paper left out", PAPER, order=40,
            family=comparison.FAMILY),
)
