"""The order claims of the released artefacts (C4-C8, C10, C11, C13, C14a), decided with their uncertainty.

Each claim says that some cells of Tables 2, 3 and 5 are ordered a certain way ("Oracle gives the highest Joint
for every summarizer"). On the news half, two cells can differ by a few tenths of a point; an order of two point
values is then no evidence (book/verdicts.md). So each claim is a predicate of a cell lookup
``v(summarizer, setting, metric)`` (:data:`PREDICATES`), evaluated on our cells and on the cells of
:func:`resampled_cells`: the news subtopics drawn again with replacement (every summary of a subtopic travels with
it, so the cells stay paired). :func:`decide` turns the share of draws in which the claim holds into a verdict:
reproduced when it holds in at least 97.5 % of them, not reproduced when in at most 2.5 %, inconclusive otherwise
(for a single comparison, the percentile interval of the difference excluding 0 on one side or the other).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from lcrag.papers.summhay.names import PAPER_COLUMNS, PAPER_SETTING, TABLE2_SETTINGS
from lcrag.papers.summhay.paper_numbers import PAPER_TABLE2
from lcrag.stats import cluster_weights

Lookup = Callable[[str, str, str], float]
GEMINI = "gemini-1.5-pro"
REALISTIC = ("random", "vector", "longembed", "keywords", "rerank3", "full")
TOP3 = ("claude3-opus", "gpt-4o", GEMINI)
METRICS = ("coverage", "citation", "joint", "precision", "recall")
N_DRAWS = 1000
LEVEL = 0.95
#: C6's "almost all summarizers" (§5.2), read as all but at most this many: the book's reading, typed once (the
#: paper gives no number).
ALMOST_ALL = 1
#: The summarizers of the paper's Table 2, in its row order.
PAPER_SUMMARIZERS = tuple(PAPER_TABLE2["joint"])


def best(v: Lookup, s: str, metric: str, settings: Sequence[str] = TABLE2_SETTINGS, lowest: bool = False) -> str:
    """The setting with the highest (``lowest``: the lowest) ``metric`` for summarizer ``s`` among those it has."""
    values = {st: v(s, st, metric) for st in settings}
    values = {st: x for st, x in values.items() if not np.isnan(x)}
    return (min if lowest else max)(values, key=values.get) if values else ""


def oracle_best(v: Lookup, s: str) -> bool:
    """C4: Oracle gives summarizer ``s`` its highest Joint of all settings."""
    return best(v, s, "joint") == "oracle"


def random_lowest(v: Lookup, s: str) -> bool:
    """C6: Random gives summarizer ``s`` its lowest Coverage."""
    return best(v, s, "coverage", lowest=True) == "random"


def oracle_highest(v: Lookup, s: str) -> bool:
    """C6: Oracle gives summarizer ``s`` its highest Coverage."""
    return best(v, s, "coverage") == "oracle"


def citation_rises(v: Lookup, s: str) -> bool:
    """C7 for one summarizer: Citation Rand < RR3 < Orac."""
    return v(s, "random", "citation") < v(s, "rerank3", "citation") < v(s, "oracle", "citation")


def citation_means(v: Lookup, summ: Sequence[str]) -> list[float]:
    """C7: the mean Citation over the summarizers ``summ`` with Random, RR3 and Oracle."""
    return [float(np.mean([v(s, st, "citation") for s in summ])) for st in ("random", "rerank3", "oracle")]


def count(per_summarizer: Callable[[Lookup, str], bool], v: Lookup, summ: Sequence[str] = PAPER_SUMMARIZERS) -> int:
    """For how many of ``summ`` (by default the paper's ten) ``per_summarizer`` holds."""
    return sum(bool(per_summarizer(v, s)) for s in summ)


def paper_lookup() -> Lookup:
    """``v(summarizer, setting, metric)`` of the paper's Table 2 (its "Vect"/"LongE" headers read as swapped,
    :data:`~lcrag.papers.summhay.names.PAPER_SETTING`; NaN for a cell it does not print)."""
    column = {setting: PAPER_COLUMNS.index(col) for col, setting in PAPER_SETTING.items()}

    def v(s: str, st: str, m: str) -> float:
        x = PAPER_TABLE2.get(m, {}).get(s, ())[column[st]] if st in column and s in PAPER_TABLE2.get(m, {}) else None
        return float("nan") if x is None else float(x)
    return v


def _c6(v: Lookup, summ: Sequence[str], full: Sequence[str]) -> bool:
    need = len(summ) - ALMOST_ALL
    return count(random_lowest, v, summ) >= need and count(oracle_highest, v, summ) >= need


def ratio(v: Lookup, s: str) -> float:
    """Recall over precision under Oracle (C13)."""
    return v(s, "oracle", "recall") / v(s, "oracle", "precision")


def recall_lean(v: Lookup, summ: Sequence[str]) -> str:
    """C13's value: the Claude models' range of R/P under Oracle, Command-r+'s and GPT-4o's, and each pair that
    fails the claim (a Claude model at R/P >= 1, or one of the two not above a Claude model), at three decimals."""
    r = {s: ratio(v, s) for s in summ}
    claude = [s for s in summ if s.startswith("claude")]
    failing = ([f"{s} {r[s]:.3f} not above {c} {r[c]:.3f}" for s in ("command-r-plus", "gpt-4o") for c in claude
                if r[s] <= r[c]] + [f"{c} R/P {r[c]:.3f} >= 1" for c in claude if r[c] >= 1])
    return (f"Claude R/P {min(r[s] for s in claude):.2f}-{max(r[s] for s in claude):.2f}; "
            f"Cmd-r+ {r['command-r-plus']:.2f}, GPT-4o {r['gpt-4o']:.2f}"
            + (f" (fails: {'; '.join(failing)})" if failing else ""))


def _c5(v: Lookup, summ: Sequence[str], full: Sequence[str]) -> bool:
    return (all(best(v, s, "joint", REALISTIC) == "rerank3" for s in summ if s != GEMINI)
            and v(GEMINI, "full", "joint") > v(GEMINI, "rerank3", "joint"))


def _c8(v: Lookup, summ: Sequence[str], full: Sequence[str]) -> bool:
    low = all(v(s, "full", "citation") < min(v(s, "rerank3", "citation"), v(s, "oracle", "citation"))
              for s in full if s != GEMINI)
    return low and v(GEMINI, "full", "citation") > max(v(GEMINI, st, "citation") for st in REALISTIC[:-1])


def _c11(v: Lookup, summ: Sequence[str], full: Sequence[str]) -> bool:
    cells = {(s, st): v(s, st, "coverage") for s in summ for st in TABLE2_SETTINGS}
    cells = {k: x for k, x in cells.items() if not np.isnan(x)}
    return (min(cells, key=cells.get) == ("gpt3.5", "random")
            and max(cells, key=cells.get) == ("claude3-opus", "oracle"))


def _c14a(v: Lookup, summ: Sequence[str], full: Sequence[str]) -> bool:
    return (all(v(s, "bottom", "joint") > max(v(s, "top", "joint"), v(s, "full", "joint"))
                for s in ("gpt-4o", "claude3-opus"))
            and v(GEMINI, "top", "joint") > max(v(GEMINI, "bottom", "joint"), v(GEMINI, "full", "joint")))


#: claim -> predicate(v, summarizers with an Oracle cell, those with a Full cell)
PREDICATES: dict[str, Callable[[Lookup, Sequence[str], Sequence[str]], bool]] = {
    "C4": lambda v, summ, full: all(oracle_best(v, s) for s in summ),
    "C5": _c5,
    "C6": _c6,
    "C7": lambda v, summ, full: bool(np.all(np.diff(citation_means(v, summ)) > 0)),
    "C8": _c8,
    "C10": lambda v, summ, full: (max(TOP3, key=lambda s: v(s, "rerank3", "coverage")) == "claude3-opus"
                                  and max(TOP3, key=lambda s: v(s, "rerank3", "citation")) == GEMINI),
    "C11": _c11,
    "C13": lambda v, summ, full: (all(ratio(v, s) < 1 for s in summ if s.startswith("claude"))
                                  and min(ratio(v, "command-r-plus"), ratio(v, "gpt-4o"))
                                  > max(ratio(v, s) for s in summ if s.startswith("claude"))),
    "C14a": _c14a,
}


def lookup(systems: pd.DataFrame) -> Lookup:
    """``v(summarizer, setting, metric)`` of a table of :func:`~lcrag.papers.summhay.rescoring.system_scores`
    (NaN for a cell it lacks)."""
    ours = systems.set_index(["summarizer", "setting", "metric"])["ours"]
    return lambda s, st, m: float(ours.get((s, st, m), np.nan))


def resampled_cells(scores: pd.DataFrame, n_draws: int = N_DRAWS, seed: int = 0,
                    weights: np.ndarray | None = None) -> tuple[dict, np.ndarray]:
    """The cells of :func:`~lcrag.papers.summhay.rescoring.system_scores` (0-100) on ``n_draws`` draws of the
    subtopics of ``scores`` (one row per judged insight), with replacement (:func:`lcrag.stats.cluster_weights`):
    ``(columns, values)``, ``columns`` mapping (summarizer, setting, metric) to a column of ``values`` (draws x
    cells). ``weights`` (draws x subtopics, in the order of their first rows) replaces the draws: a row of ones
    gives our cells."""
    x = scores.assign(covered=scores["coverage"] > 0, n=1)
    for c in ("f1", "precision", "recall"):
        x[c] = x[c].where(x["covered"], 0.0)
    subtopic = pd.Categorical([f"{h}|{s}" for h, s in zip(x["haystack"], x["subtopic_id"], strict=True)],
                              categories=list(dict.fromkeys(f"{h}|{s}" for h, s in zip(
                                  x["haystack"], x["subtopic_id"], strict=True))))
    sums = x.groupby([subtopic, "summarizer", "setting"], observed=True, sort=False)[
        ["n", "coverage", "joint", "covered", "f1", "precision", "recall"]].sum()
    wide = sums.unstack(["summarizer", "setting"], fill_value=0).reindex(subtopic.categories, fill_value=0)
    cells = list(dict.fromkeys(wide.columns.droplevel(0)))
    if weights is None:
        weights = cluster_weights(len(wide), n_draws, seed)

    def drawn(col: str) -> np.ndarray:
        return weights @ wide[col][pd.MultiIndex.from_tuples(cells)].to_numpy(float)

    n, covered = drawn("n"), drawn("covered")
    with np.errstate(invalid="ignore", divide="ignore"):
        per = {"coverage": drawn("coverage") / n, "joint": drawn("joint") / n, "citation": drawn("f1") / covered,
               "precision": drawn("precision") / covered, "recall": drawn("recall") / covered}
    columns = {(s, st, m): i * len(cells) + j for i, m in enumerate(METRICS) for j, (s, st) in enumerate(cells)}
    return columns, 100 * np.concatenate([per[m] for m in METRICS], axis=1)


def share_holding(claim: str, columns: dict, values: np.ndarray, summ: Sequence[str], full: Sequence[str]) -> float:
    """The share of the draws (rows of ``values``) in which ``claim``'s predicate holds."""
    pred = PREDICATES[claim]
    held = 0
    for row in values:
        def v(s: str, st: str, m: str, row=row) -> float:
            i = columns.get((s, st, m))
            return float(row[i]) if i is not None else float("nan")
        held += bool(pred(v, summ, full))
    return held / len(values)


def decide(share: float, level: float = LEVEL) -> bool | None:
    """Reproduced (True) when the claim holds in at least (1 + level) / 2 of the draws, not reproduced (False) when
    in at most (1 - level) / 2, inconclusive (None) otherwise."""
    tail = (1 - level) / 2
    return True if share >= 1 - tail else False if share <= tail else None


def evidence(n_draws: int, level: float = LEVEL) -> str:
    tail = 100 * (1 - level) / 2
    return (f"the news subtopics drawn again {n_draws:,} times (every summary of a subtopic with it): reproduced "
            f"when the order holds in at least {100 - tail:.1f} % of the draws, not reproduced when in at most "
            f"{tail:.1f} %, inconclusive otherwise")
