"""Summary of a Haystack's chapter: ``notebooks/summhay.md``."""

from lcrag.chapters import Chapter, Paper
from lcrag.papers.summhay import comparison

PAPER = Paper("summhay", "Summary of a Haystack (Laban et al. 2024)", "SummHay")
CHAPTERS = (
    Chapter("summhay", "Summary of a Haystack: the released artefacts, rescored", PAPER, order=50,
            family=comparison.FAMILY),
)
