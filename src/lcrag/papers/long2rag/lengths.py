"""Long²RAG's Figs 6 and 7: KPR by input length and by generation length, on bins scaled to our setting.

The paper's bin edges (:data:`.numbers.PAPER_INPUT_EDGES`, :data:`.numbers.PAPER_OUTPUT_EDGES`) are scaled to our
longest input (at most the window) and generation cap (:func:`scaled_edges`), each response binned (:func:`length_bins`,
:func:`with_length_bins`; the answers that hit the generation cap get a bin of their own, named so) and KPR averaged
per bin (:func:`kpr_by_length`, through :mod:`lcrag.metrics.kpr`; :func:`bins_sentence` says which variants fill
each input bin). The trend claims on input and on generation length are decided within each document variant and
kind of haystack, news or conversations (:func:`within_variant_rank`), not on the bins, which mix the variants.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from lcrag.metrics import kpr as K
from lcrag.stats import spearman, stratified_ci


def scaled_edges(paper_edges: Sequence[int], paper_top: int, our_top: int) -> list[int]:
    """The paper's bin edges scaled by ``our_top / paper_top`` (rounded): input bins to our window
    (``paper_top`` = 32k, its last edge), generation bins to our ``max_tokens`` (``paper_top`` = 5k)."""
    return [int(round(e * our_top / paper_top)) for e in paper_edges]


def cap_label(cap: int) -> str:
    """The label of the bin of the answers that stopped at the generation cap ``cap`` (``max_new_tokens``)."""
    return f"{cap} (hit the cap)"


def _top_label(edges: Sequence[int], cap: int | None) -> str:
    return cap_label(cap) if cap is not None and edges[-1] >= cap else f">{edges[-1]}"


def length_bins(values: Sequence[float], edges: Sequence[int], cap: int | None = None) -> list[str]:
    """Bin labels ``<a``, ``a-b``, ``>c`` (left-closed: a value equal to an edge goes to the upper bin). With the
    generation ``cap`` (``max_new_tokens``) at or below the last edge, the last bin holds only the answers that
    stopped at the cap, labelled :func:`cap_label` (``256 (hit the cap)``), not ``>256``."""
    labels = []
    for v in values:
        if v < edges[0]:
            labels.append(f"<{edges[0]}")
        elif v >= edges[-1]:
            labels.append(_top_label(edges, cap))
        else:
            k = next(i for i in range(1, len(edges)) if v < edges[i])
            labels.append(f"{edges[k - 1]}-{edges[k]}")
    return labels


def with_length_bins(per_response: pd.DataFrame, column: str, edges: Sequence[int],
                     cap: int | None = None) -> pd.DataFrame:
    """``per_response`` (:func:`lcrag.metrics.kpr.response_kpr` with responses) and a ``bin`` column:
    :func:`length_bins` of ``column`` (with the generation ``cap``), an ordered categorical whose categories run
    from the shortest bin to the longest."""
    order = [f"<{edges[0]}", *(f"{a}-{b}" for a, b in zip(edges, edges[1:], strict=False)), _top_label(edges, cap)]
    labels = pd.Categorical(length_bins(per_response[column], edges, cap), categories=order, ordered=True)
    return per_response.assign(bin=labels)


def kpr_by_length(per_response: pd.DataFrame, column: str, edges: Sequence[int], cap: int | None = None) -> pd.DataFrame:
    """KPR per judge and length bin of ``column`` (``input_tokens`` or ``completion_tokens``, whose answers that
    hit ``cap`` get their own bin) over every response of ``per_response`` (:func:`lcrag.metrics.kpr.response_kpr`
    with responses); bins in order, empty bins left out."""
    per = with_length_bins(per_response, column, edges, cap)
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
    input (``paper_input_top``) to our longest input (at most the model's ``window``: scaled to a window the
    inputs do not fill, every input fell in the first bin) and from its longest answer to ``max_new_tokens`` (the
    answers that stop there get a bin of their own, :func:`cap_label`). Returns the per-response table, the two edge lists and the two tables."""
    per_response = K.response_kpr(judgments, responses)
    longest = int(per_response["input_tokens"].max()) + 1 if len(per_response) else window
    in_edges = sorted(set(scaled_edges(input_edges, paper_input_top, min(window, longest))))
    out_edges = sorted(set(scaled_edges(output_edges, paper_output_top, max_new_tokens)))
    return LengthStudy(per_response, in_edges, out_edges, kpr_by_length(per_response, "input_tokens", in_edges),
                       kpr_by_length(per_response, "completion_tokens", out_edges, max_new_tokens))


def bins_sentence(per_response: pd.DataFrame, edges: Sequence[int]) -> str:
    """Section 6's sentence on the input bins of one judge's ``per_response`` rows: how many bins hold responses
    and which document variants fill each (their responses per bin), so no trend is read across bins that hold
    different variants."""
    per = with_length_bins(per_response, "input_tokens", edges)
    fill = per.groupby(["bin", "variant"], observed=True).size()
    parts = [f"{b}: " + ", ".join(f"{v} {n}" for (bb, v), n in fill.items() if bb == b)
             for b in per["bin"].cat.categories if b in fill.index.get_level_values(0)]
    return (f"The {len(per)} responses' inputs run from {int(per['input_tokens'].min()):,} to "
            f"{int(per['input_tokens'].max()):,} tokens and fill {len(parts)} input {'bin' if len(parts) == 1 else 'bins'}, by variant: "
            f"{'; '.join(parts)}. A difference between bins is mostly one between variants.")


#: The two kinds of SummHay haystack the items come from, by the haystack named in the question id
#: (``news1/<subtopic>``), as the claims name them.
KINDS = {"news": "news", "conv": "conversations"}


def haystack_kind(question_id: str) -> str:
    """``news`` or ``conversations``: the kind of SummHay haystack of an item (:data:`KINDS`, from the haystack
    that begins its id); "" for an id of no such haystack (one stratum for them all)."""
    head = str(question_id).split("/", 1)[0].rstrip("0123456789")
    return KINDS.get(head, "") if "/" in str(question_id) else ""


class RankTrend(NamedTuple):
    rho: float  # mean over the cells (variant x haystack kind) of Spearman's rho (length, KPR) across questions
    lo: float
    hi: float
    variants: list[str]  # the variants with a cell where both the length and the KPR vary
    questions: int
    responses: int  # of those cells
    capped: int  # of those responses, the ones that stopped at the cap (tied at the top rank)
    cells: list[str]  # ``variant/kind`` (``none/news``), or the variant alone where no kind is known
    #: per kind: (questions, mean length, mean KPR) over all its responses, what differs between the kinds
    kinds: dict[str, tuple[int, float, float]]
    cell_questions: tuple[int, ...] = ()  # the questions of each cell, in the order of ``cells``


def within_variant_rank(per_response: pd.DataFrame, column: str = "completion_tokens", cap: int | None = None,
                        n_boot: int = 2000, seed: int = 0, by=haystack_kind) -> RankTrend:
    """Does KPR grow with ``column``'s length *within* a document variant and a haystack kind? Spearman's rho
    between ``column`` and ``recall`` across the questions of each cell, a variant x a kind of haystack (``by`` of
    the question id, :func:`haystack_kind`: news or conversations), in one judge's
    :func:`lcrag.metrics.kpr.response_kpr` rows, averaged over the cells in which both vary over three or more
    questions, with a 95 % percentile bootstrap interval over questions, resampled within each kind (each
    question's answers in every variant together). Within a variant, the variants' own differences (the truncated
    documents give both shorter inputs and lower KPR) stay out of the trend; within a kind, the kinds' (the
    conversation items have both longer inputs and lower KPR than the news items: across them, length would stand
    for the kind). Ranks keep the answers that hit the generation ``cap`` (their true length unknown, at least
    ``cap``) where they belong, tied at the top. Questions missing a variant are left out of that kind's cells.
    A resample in which a cell's length or KPR no longer varies counts as rho 0 there (it says nothing about the
    trend), so that no resample is lost; the value itself is taken only on cells where both vary. The interval is
    the percentile one (:func:`lcrag.stats.stratified_ci`): a mean of rank correlations is not a mean of items."""
    kind = per_response["question_id"].map(by) if len(per_response) else pd.Series(dtype=str)
    per = per_response.assign(kind=kind)
    strata, cells, variants, rows_used, capped = [], [], set(), 0, 0
    for k, g in per.groupby("kind", sort=True):
        length = g.pivot_table(index="question_id", columns="variant", values=column)
        recall = g.pivot_table(index="question_id", columns="variant", values="recall")
        keep = [v for v in length if length[v].nunique() > 1 and recall[v].nunique() > 1]
        rows = pd.concat([length[keep], recall[keep]], axis=1, keys=["length", "recall"]).dropna()
        if not keep or len(rows) < 3:
            continue
        strata.append([(rows[("length", v)].to_numpy(float), rows[("recall", v)].to_numpy(float)) for v in keep])
        cells += [f"{v}/{k}" if k else v for v in keep]
        variants |= set(keep)
        rows_used += len(rows)
        capped += int((rows["length"] >= cap).to_numpy().sum()) if cap is not None else 0
    kinds = {k: (g["question_id"].nunique(), float(g[column].mean()), float(g["recall"].mean()))
             for k, g in per.groupby("kind", sort=True) if k and column in g}
    if not strata:
        return RankTrend(np.nan, np.nan, np.nan, [], rows_used, 0, 0, [], kinds)

    def mean_rho(*idx, axis=-1):
        rhos = [spearman(x[np.asarray(i, dtype=int)], y[np.asarray(i, dtype=int)], axis, constant=0.0)
                for i, stratum in zip(idx, strata, strict=True) for x, y in stratum]
        return np.mean(np.stack(rhos), axis=0)

    rho, lo, hi = stratified_ci([len(s[0][0]) for s in strata], mean_rho, n_boot=n_boot, seed=seed)
    responses = sum(len(x) for s in strata for x, _ in s)
    return RankTrend(rho, lo, hi, sorted(variants), rows_used, responses, capped, cells, kinds,
                     tuple(len(x) for s in strata for x, _ in s))
