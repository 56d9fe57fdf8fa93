"""The thesis's chapters: BAMBOO (``notebooks/thesis.md``) and the needle in a haystack (``notebooks/needle.md``)."""

from lcrag.chapters import Chapter, Paper
from lcrag.papers.thesis import comparison
from lcrag.papers.thesis.needle import comparison as needle_comparison
from lcrag.papers.thesis.needle.haystack import MIN_CONTEXT_TOKENS

PAPER = Paper("thesis", "Thesis (Lu 2024)", "Thesis")
CHAPTERS = (
    Chapter("needle", "Thesis: needle in a haystack (Fig. 6.1)", PAPER, order=10, family=needle_comparison.FAMILY,
            minimums=tuple((p, MIN_CONTEXT_TOKENS) for p in ("lengths", "lengths_by_model", "variant_lengths"))),
    Chapter("thesis", "BAMBOO: Full vs RAG vs Evidence, and how much the prompt matters", PAPER, order=20,
            family=comparison.FAMILY, minimums=(("grid_per_task", -1),)),  # -1: every kept case
)
