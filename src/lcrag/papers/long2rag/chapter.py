"""Long²RAG's chapter: ``notebooks/long2rag.md``."""

from lcrag.chapters import Chapter, Paper
from lcrag.papers.long2rag import comparison

PAPER = Paper("long2rag", "Long²RAG (Qi et al. 2024)", "Long²RAG")
CHAPTERS = (
    Chapter("long2rag", "Long²RAG: Key Point Recall on long retrieved documents", PAPER, order=30,
            family=comparison.FAMILY),
)
