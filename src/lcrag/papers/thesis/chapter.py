"""The thesis's chapters: BAMBOO (``notebooks/thesis.md``) and the needle in a haystack (``notebooks/needle.md``)."""

from itertools import product

from lcrag.chapters import Chapter, Paper
from lcrag.data.bamboo import SIZES, TASKS
from lcrag.papers.thesis import comparison
from lcrag.papers.thesis.needle import comparison as needle_comparison
from lcrag.papers.thesis.needle.haystack import MIN_CONTEXT_TOKENS
from lcrag.papers.thesis.needle.needles import NEEDLES, RULER_VARIANTS
from lcrag.papers.thesis.needle.plan import RAG_MODES
from lcrag.papers.thesis.pipelines import CHUNKING_CODES, QUERY_CODES, RANKER_CODES
from lcrag.papers.thesis.prompts import OPTIONS_FORMATS, PROMPTS

#: Every pipeline code (ranker x query x chunking, e.g. ``CQT``: lcrag.papers.thesis.pipelines.parse_pipeline).
PIPELINES = tuple("".join(c) for c in product(RANKER_CODES, QUERY_CODES, CHUNKING_CODES))

PAPER = Paper("thesis", "Thesis (Lu 2024)", "Thesis")
CHAPTERS = (
    Chapter("needle", "Thesis: needle in a haystack (Fig. 6.1)", PAPER, order=10, family=needle_comparison.FAMILY,
            minimums=tuple((p, MIN_CONTEXT_TOKENS) for p in ("lengths", "lengths_by_model", "variant_lengths")),
            models=("models", "embedded_models", "judge"), datasets=("paul_graham_essays",),
            choices=(("rag", RAG_MODES), ("needles", (*NEEDLES, *RULER_VARIANTS)), ("variants", RULER_VARIANTS))),
    Chapter("thesis", "BAMBOO: Full vs RAG vs Evidence, and how much the prompt matters", PAPER, order=20,
            family=comparison.FAMILY, minimums=(("grid_per_task", -1),),  # -1: every kept case
            models=(), datasets=("bamboo",),
            choices=(("size", SIZES), ("tasks", TASKS), ("main_prompt", tuple(PROMPTS)),
                     ("grid_prompts", tuple(PROMPTS)), ("options_format", OPTIONS_FORMATS),
                     ("main_pipelines", PIPELINES), ("grid_pipelines", PIPELINES))),
)
