"""Long²RAG's Figs 6 and 7: KPR by input length and by generation length, on bins scaled to our setting.

The paper's bin edges (:data:`.numbers.PAPER_INPUT_EDGES`, :data:`.numbers.PAPER_OUTPUT_EDGES`) are scaled to our
window and generation cap (:func:`scaled_edges`), each response binned (:func:`length_bins`,
:func:`with_length_bins`) and KPR averaged per bin (:func:`kpr_by_length`, through :mod:`lcrag.metrics.kpr`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import pandas as pd

from lcrag.metrics import kpr as K


def scaled_edges(paper_edges: Sequence[int], paper_top: int, our_top: int) -> list[int]:
    """The paper's bin edges scaled by ``our_top / paper_top`` (rounded): input bins to our window
    (``paper_top`` = 32k, its last edge), generation bins to our ``max_tokens`` (``paper_top`` = 5k)."""
    return [int(round(e * our_top / paper_top)) for e in paper_edges]


def length_bins(values: Sequence[float], edges: Sequence[int]) -> list[str]:
    """Bin labels ``<a``, ``a-b``, ``>c`` (left-closed: a value equal to an edge goes to the upper bin)."""
    labels = []
    for v in values:
        if v < edges[0]:
            labels.append(f"<{edges[0]}")
        elif v >= edges[-1]:
            labels.append(f">{edges[-1]}")
        else:
            k = next(i for i in range(1, len(edges)) if v < edges[i])
            labels.append(f"{edges[k - 1]}-{edges[k]}")
    return labels


def with_length_bins(per_response: pd.DataFrame, column: str, edges: Sequence[int]) -> pd.DataFrame:
    """``per_response`` (:func:`lcrag.metrics.kpr.response_kpr` with responses) and a ``bin`` column:
    :func:`length_bins` of ``column``, an ordered categorical whose categories run from the shortest bin to the
    longest."""
    order = [f"<{edges[0]}", *(f"{a}-{b}" for a, b in zip(edges, edges[1:], strict=False)), f">{edges[-1]}"]
    labels = pd.Categorical(length_bins(per_response[column], edges), categories=order, ordered=True)
    return per_response.assign(bin=labels)


def kpr_by_length(per_response: pd.DataFrame, column: str, edges: Sequence[int]) -> pd.DataFrame:
    """KPR per judge and length bin of ``column`` (``input_tokens`` or ``completion_tokens``) over every
    response of ``per_response`` (:func:`lcrag.metrics.kpr.response_kpr` with responses); bins in order, empty bins
    left out."""
    per = with_length_bins(per_response, column, edges)
    out = K.group_kpr(per, ["judge", "bin"], mean_length=(column, "mean"))
    return out.assign(bin=out["bin"].astype(str))


class LengthStudy(NamedTuple):
    per_response: pd.DataFrame  # lcrag.metrics.kpr.response_kpr: one row per judge and response, with its lengths
    in_edges: list[int]
    out_edges: list[int]
    by_input: pd.DataFrame
    by_output: pd.DataFrame


def length_study(judgments: pd.DataFrame, responses: pd.DataFrame, window: int, max_new_tokens: int,
                 input_edges: Sequence[int], output_edges: Sequence[int], paper_input_top: int = 32_000,
                 paper_output_top: int = 5_000) -> LengthStudy:
    """KPR by input and by generation length (§6.2-6.3), with the paper's bin edges scaled from its longest
    input (``paper_input_top``) to our model's ``window`` and from its longest answer to ``max_new_tokens``.
    Returns the per-response table, the two edge lists and the two tables."""
    in_edges = scaled_edges(input_edges, paper_input_top, window)
    out_edges = sorted(set(scaled_edges(output_edges, paper_output_top, max_new_tokens)))
    per_response = K.response_kpr(judgments, responses)
    return LengthStudy(per_response, in_edges, out_edges, kpr_by_length(per_response, "input_tokens", in_edges),
                       kpr_by_length(per_response, "completion_tokens", out_edges))
