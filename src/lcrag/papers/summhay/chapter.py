"""Summary of a Haystack's chapter: ``notebooks/summhay.md``."""

from lcrag.chapters import Chapter, Paper
from lcrag.data.summhay import HAYSTACKS, NEWS
from lcrag.judges.default import judge_label
from lcrag.metrics.summhay import LINK_POLICIES
from lcrag.papers.summhay import comparison
from lcrag.papers.summhay.live_contexts import POSITION_ORDERS
from lcrag.papers.summhay.llm_judge import JUDGE_HALVES
from lcrag.papers.summhay.our_judges import LIVE_CHOICES
from lcrag.papers.summhay.retrievers import LIVE_RETRIEVERS

PAPER = Paper("summhay", "Summary of a Haystack (Laban et al. 2024)", "SummHay")
CHAPTERS = (
    Chapter("summhay", "Summary of a Haystack: the released artefacts, rescored", PAPER, order=50,
            family=comparison.FAMILY, models=("judge_models",), datasets=("summhay",),
            choices=(("haystacks", NEWS), ("live_haystacks", HAYSTACKS), ("link_policy", LINK_POLICIES),
                     ("judge_half", JUDGE_HALVES), ("live_retrievers", tuple(LIVE_RETRIEVERS)),
                     ("position_orders", tuple(POSITION_ORDERS)),
                     ("live_evaluator", (*LIVE_CHOICES, judge_label("<model name>", style="evaluator"))))),
)
