"""Long²RAG's chapter: ``notebooks/long2rag.md``."""

from lcrag.chapters import Chapter, Paper
from lcrag.data.summhay import HAYSTACKS
from lcrag.judges.entailment import PARSERS
from lcrag.papers.long2rag import comparison
from lcrag.papers.long2rag.generation import VARIANTS
from lcrag.papers.long2rag.judges import ANSWER_JUDGES

PAPER = Paper("long2rag", "Long²RAG (Qi et al. 2024)", "Long²RAG")
CHAPTERS = (
    Chapter("long2rag", "Long²RAG: Key Point Recall on long retrieved documents", PAPER, order=30,
            family=comparison.FAMILY, models=("judge_model",), datasets=("summhay",),
            choices=(("parse", tuple(PARSERS)), ("judge_answers", ANSWER_JUDGES), ("haystacks", HAYSTACKS),
                     ("variants", VARIANTS), ("kpp_variant", VARIANTS))),
)
