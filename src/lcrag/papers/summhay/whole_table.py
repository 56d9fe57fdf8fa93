"""What the news half says about the whole of Tables 2 and 3: the range a pooled cell can take when the conversation
half's insights are unknown (:func:`pooled_bounds`), and the range of a position sensitivity built from such cells
(:func:`sensitivity_bounds`). The conversation half was released, but its summaries and judgments are in no file
this book can fetch (:data:`CONVERSATION_HALF`)."""

from __future__ import annotations

from itertools import combinations

from lcrag.papers.summhay.paper_numbers import PAPER_INSIGHTS

#: Why the conversation half is missing, as the claims' evidence says it (book/deviations.md gives the detail).
CONVERSATION_HALF = ("the conversation half (released, but not fetchable here: the original files exceed the data "
                     "mirror's size limit, the public copies have the summaries removed)")


def pooled_bounds(part: float, n_part: int, n_total: int = PAPER_INSIGHTS) -> tuple[float, float]:
    """The range a mean over ``n_total`` insights (0-100) can take when the mean over ``n_part`` of them is
    ``part`` and the others are unknown: what the news half says about a cell of the whole Table 2."""
    w = n_part / n_total
    return w * part, w * part + (1 - w) * 100


def named_levels(news: dict[str, float], whole: dict[str, tuple[float, float]]) -> str:
    """Our value of a level claim on several systems, each named: its news-half score and the range its whole-table
    score can take (:func:`pooled_bounds`), e.g. ``news half gpt-4o 16.3 / claude3-opus 25.2; whole table:
    gpt-4o between 8.8 and 54.7, claude3-opus between 13.7 and 59.6``."""
    return (f"news half {' / '.join(f'{s} {x:.1f}' for s, x in news.items())}; whole table: "
            + ", ".join(f"{s} between {lo:.1f} and {hi:.1f}" for s, (lo, hi) in whole.items()))


def _distance(x: float, interval: tuple[float, float]) -> float:
    lo, hi = interval
    return max(lo - x, 0.0, x - hi)


def sensitivity_bounds(top: tuple[float, float], bottom: tuple[float, float],
                       stored: tuple[float, float]) -> tuple[float, float]:
    """The range of the paper's position sensitivity, max(|Top − Random|, |Bottom − Random|) (Random: the stored
    order), when each Joint can be anywhere in its range (:func:`pooled_bounds`). The largest is at two ends; the
    smallest, a convex piecewise-linear function of the stored order's Joint, at an end or at a midpoint of two ends
    (taken inside the stored order's range)."""
    ends = [*top, *bottom, *stored]
    candidates = ends + [(a + b) / 2 for a, b in combinations(ends, 2)]
    lowest = min(max(_distance(f, top), _distance(f, bottom))
                 for f in (min(max(c, stored[0]), stored[1]) for c in candidates))
    highest = max(top[1] - stored[0], stored[1] - top[0], bottom[1] - stored[0], stored[1] - bottom[0])
    return lowest, highest
