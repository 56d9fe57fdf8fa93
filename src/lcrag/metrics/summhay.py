"""Summary of a Haystack metrics (Laban et al. 2024, §4.1), exactly as the released ``utils_eval.py`` computes them.

A summary is a list of *bullets*: the stripped, non-empty lines of the generated text (a preamble such as
"Here are 9 insights:" counts as a bullet, as in the released code). An evaluator (an LLM judge, or a human)
gives each reference insight of the subtopic a coverage label and the one bullet that covers it.

- **Coverage** of an insight: 1 (``FULL_COVERAGE``), 0.5 (``PARTIAL_COVERAGE``), 0 (``NO_COVERAGE``).
- **Citation** of a *covered* insight: precision / recall / F1 of the document ids cited in its bullet
  (regex ``\\[([\\d, ]+)\\]``, so ``[1,2]`` and ``[1][2]`` both work) against the documents that contain the
  insight. Nothing cited gives P = R = F1 = 0. Insights that are not covered have no citation score.
- **Joint** of an insight: coverage x F1 (0 when not covered).

Scores of a system are **micro-averages over insights** pooled across subtopics (and haystacks), not means of
per-summary scores: coverage and joint over all insights, citation / precision / recall over covered ones.
All scores here are on the 0-1 scale; tables multiply by 100 where the paper does.

One latent bug of the released code is reproduced on request: an insight judged covered whose ``bullet_id``
is not an integer (e.g. ``"NA"``) is linked to ``bullets[-2]`` (``link_policy="parity"``); the alternative
``"zero"`` scores such an insight as citing nothing. The released news judgments contain no such case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

CITATION_PATTERN = re.compile(r"\[([\d, ]+)\]")
FULL, PARTIAL, NONE = "FULL_COVERAGE", "PARTIAL_COVERAGE", "NO_COVERAGE"

#: Coverage labels as the judge prompt returns them and as the human annotation file spells them.
_LABELS = {
    "full_coverage": FULL,
    "fully_covered": FULL,
    "partial_coverage": PARTIAL,
    "partially_covered": PARTIAL,
    "no_coverage": NONE,
    "not_covered": NONE,
}
LINK_POLICIES = ("parity", "zero")

INSIGHT_COLUMNS = [
    "insight_id",
    "label",
    "coverage",
    "bullet_id",
    "linked_bullet",
    "n_cited",
    "n_gold",
    "precision",
    "recall",
    "f1",
    "joint",
]


def split_bullets(summary: str) -> list[str]:
    """Bullets of a generated summary: its stripped, non-empty lines (released ``populate_summaries.py``)."""
    return [line.strip() for line in summary.split("\n") if line.strip()]


def extract_citations(bullet: str) -> list[int]:
    """Document ids cited in ``bullet``, in order, as the released ``extract_citations`` returns them.

    ``"... [3][8], and [5, 12]"`` -> ``[3, 8, 5, 12]``. Ids outside brackets, or brackets holding anything but
    digits, commas and spaces (``[Doc 3]``, ``[3-5]``), are not citations.
    """
    ids: list[int] = []
    for match in CITATION_PATTERN.findall(bullet):
        ids += [int(part.strip()) for part in match.split(",") if part.strip()]
    return ids


def normalize_label(label: str) -> str:
    """``FULL_COVERAGE`` / ``PARTIAL_COVERAGE`` / ``NO_COVERAGE`` for a judge's or an annotator's label."""
    key = str(label).strip().lower()
    if key not in _LABELS:
        raise ValueError(f"unknown coverage label {label!r}; expected one of {sorted(set(_LABELS.values()))}")
    return _LABELS[key]


def coverage_score(label: str, partial: float = 0.5) -> float:
    """1 for full, ``partial`` (0.5) for partial, 0 for no coverage."""
    return {FULL: 1.0, PARTIAL: partial, NONE: 0.0}[normalize_label(label)]


def citation_prf(cited: Iterable[int], gold: Iterable[int]) -> tuple[float, float, float]:
    """Precision, recall, F1 of the cited document ids (as a set) against the gold ids; 0 when nothing is cited."""
    cited, gold = set(cited), set(gold)
    hit = len(cited & gold)
    p = hit / len(cited) if cited else 0.0
    r = hit / len(gold) if gold else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f1


def bullet_index(bullet_id, n_bullets: int, link_policy: str = "parity") -> int | None:
    """0-based index of the bullet a judgment links to, or None when it links to none.

    ``bullet_id`` k is 1-based and read with ``int()`` (so ``3`` and ``"3"`` both give index 2; Python indexing,
    as in the released code). One ``int()`` cannot read (``"NA"``, a list, None) gives ``n_bullets - 2`` under
    ``"parity"`` (the released ``bullets[-1 - 1]``) and None under ``"zero"``. A link outside the summary
    raises: the released code would crash on it too.
    """
    if link_policy not in LINK_POLICIES:
        raise ValueError(f"link_policy must be one of {LINK_POLICIES}, not {link_policy!r}")
    try:
        k = int(bullet_id)
    except (TypeError, ValueError):
        if link_policy == "zero":
            return None
        k = -1
    if not -n_bullets <= k - 1 < n_bullets:
        raise ValueError(f"bullet_id {bullet_id!r} is outside a summary of {n_bullets} bullets")
    return (k - 1) % n_bullets


def score_insights(
    bullets: Sequence[str],
    judgments: Iterable[Mapping],
    gold: Mapping[str, Iterable[int]],
    *,
    partial: float = 0.5,
    link_policy: str = "parity",
) -> pd.DataFrame:
    """One row per judged insight of one summary: coverage, the linked bullet, citation P/R/F1 and joint.

    ``judgments``: dicts with ``insight_id``, ``coverage`` (a label) and ``bullet_id`` (1-based int or "NA").
    ``gold``: insight id -> ids of the documents containing it (1-based positions in the haystack).
    P/R/F1 are NaN for insights that are not covered (they do not enter the citation average).
    """
    return pd.DataFrame(insight_rows(bullets, judgments, gold, partial=partial, link_policy=link_policy),
                        columns=INSIGHT_COLUMNS)


def insight_rows(bullets: Sequence[str], judgments: Iterable[Mapping], gold: Mapping[str, Iterable[int]], *,
                 partial: float = 0.5, link_policy: str = "parity") -> list[dict]:
    """:func:`score_insights` as a list of row dicts (for callers that score thousands of summaries)."""
    rows = []
    for j in judgments:
        label = normalize_label(j["coverage"])
        cov = coverage_score(label, partial)
        row = {
            "insight_id": j["insight_id"],
            "label": label,
            "coverage": cov,
            "bullet_id": j.get("bullet_id"),
            "linked_bullet": None,
            "n_cited": np.nan,
            "n_gold": np.nan,
            "precision": np.nan,
            "recall": np.nan,
            "f1": np.nan,
            "joint": 0.0,
        }
        if cov > 0:
            if j["insight_id"] not in gold:
                raise KeyError(f"insight {j['insight_id']!r} has no gold documents")
            idx = bullet_index(j.get("bullet_id"), len(bullets), link_policy) if bullets else None
            cited = set(extract_citations(bullets[idx])) if idx is not None else set()
            ref = set(gold[j["insight_id"]])
            p, r, f1 = citation_prf(cited, ref)
            row.update(
                linked_bullet=idx,
                n_cited=len(cited),
                n_gold=len(ref),
                precision=p,
                recall=r,
                f1=f1,
                joint=cov * f1,
            )
        rows.append(row)
    return rows


def micro_average(scores: pd.DataFrame, by: str | list[str] | None = None) -> pd.DataFrame:
    """Pool insight rows (from :func:`score_insights`, possibly many summaries) into system scores (0-1).

    Columns: coverage, citation (mean F1 over covered insights), joint, precision, recall (over covered),
    n_insights, n_covered. ``by`` groups first (e.g. ``["summarizer", "setting"]``).
    """

    def pooled(g: pd.DataFrame) -> pd.Series:
        covered = g[g["coverage"] > 0]
        return pd.Series(
            {
                "coverage": g["coverage"].mean(),
                "citation": covered["f1"].mean() if len(covered) else np.nan,
                "joint": g["joint"].mean(),
                "precision": covered["precision"].mean() if len(covered) else np.nan,
                "recall": covered["recall"].mean() if len(covered) else np.nan,
                "n_insights": len(g),
                "n_covered": len(covered),
            }
        )

    if by is None:
        return pooled(scores).to_frame().T.astype({"n_insights": int, "n_covered": int})
    out = scores.groupby(by, sort=False)[list(scores.columns)].apply(pooled).reset_index()
    return out.astype({"n_insights": int, "n_covered": int})


def summary_scores(
    bullets: Sequence[str] | str,
    judgments: Iterable[Mapping],
    gold: Mapping[str, Iterable[int]],
    *,
    partial: float = 0.5,
    link_policy: str = "parity",
) -> dict[str, float]:
    """Coverage, citation and joint of one summary on the 0-100 scale (the numbers of the paper's Fig. 2 and 4).

    ``bullets`` may be the raw summary text; it is split with :func:`split_bullets`.
    """
    if isinstance(bullets, str):
        bullets = split_bullets(bullets)
    row = micro_average(
        score_insights(bullets, judgments, gold, partial=partial, link_policy=link_policy)
    ).iloc[0]
    return {k: 100 * float(row[k]) for k in ("coverage", "citation", "joint", "precision", "recall")}


def words_per_bullet(bullets: Sequence[str]) -> float:
    """#Wb of one summary, as released ``calc_num_words``: join with newlines, squeeze runs of 2+ whitespace
    characters to one space, count spaces + 1, divide by the number of bullets."""
    if not bullets:
        return float("nan")
    text = re.sub(r"\s{2,}", " ", "\n".join(bullets))
    return (text.count(" ") + 1) / len(bullets)


# --------------------------------------------------------------------------------------------- evaluator study


def coverage_correlation(reference: Sequence[float], predicted: Sequence[float]) -> float:
    """Pearson correlation of insight-level coverage scores (Table 1's "Cov. Corr.", ``np.corrcoef``)."""
    return float(np.corrcoef(np.asarray(reference, float), np.asarray(predicted, float))[0, 1])


def linking_accuracy(reference: Sequence, predicted: Sequence) -> tuple[float, int]:
    """Share of insights where the evaluator links the same bullet as the reference, and how many were compared.

    Both sequences hold 0-based bullet indices, or None (or NaN) where no bullet was chosen. As in the released
    notebook, only insights where the reference chose a bullet and the evaluator returned one are compared.
    """
    pairs = [(r, p) for r, p in zip(reference, predicted, strict=True) if not pd.isna(r) and not pd.isna(p)]
    if not pairs:
        return float("nan"), 0
    return float(np.mean([r == p for r, p in pairs])), len(pairs)
