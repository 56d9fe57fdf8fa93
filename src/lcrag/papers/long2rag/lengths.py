"""Long²RAG's Figs 6 and 7: KPR by input length and by generation length, on bins scaled to our setting.

The paper's bin edges (:data:`.numbers.PAPER_INPUT_EDGES`, :data:`.numbers.PAPER_OUTPUT_EDGES`) are scaled to our
window and generation cap (:func:`scaled_edges`), each response binned (:func:`length_bins`,
:func:`with_length_bins`) and KPR averaged per bin (:func:`kpr_by_length`, through :mod:`lcrag.metrics.kpr`).
"""

from __future__ import annotations

from collections.abc import Sequence

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
