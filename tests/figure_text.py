"""Where a figure's texts land on the canvas as matplotlib draws them: for the tests that no label is printed
over another (tests/test_plots.py, tests/papers/thesis/test_figures.py)."""

from __future__ import annotations

import itertools


def text_boxes(fig) -> list[tuple[str, object]]:
    """Every visible, non-empty text of the figure (titles, Venn labels, annotations) with its extent on the
    canvas as the renderer draws it."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = []
    for ax in fig.axes:
        for t in [ax.title, ax._left_title, ax._right_title, *ax.texts]:
            if t.get_visible() and t.get_text().strip():
                boxes.append((t.get_text(), t.get_window_extent(renderer)))
    return boxes


def overlaps(fig) -> list[tuple[str, str]]:
    boxes = text_boxes(fig)
    return [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.overlaps(bb)]
