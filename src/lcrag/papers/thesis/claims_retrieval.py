"""The thesis's claims decided without a language model (H6, H6b, H14, H16): rankers, ranking distances and
embedding similarities, computed with BM25, the word count and the embedding model alone. They go in a ledger whose
model is :data:`lcrag.book.verdicts.NO_MODEL` (:func:`check_retrieval_claims`): the generator plays no part.

H6b and H16 are the thesis's numbers for its embedding model ("davinci-002"); with another one (the book runs
MiniLM) they say which model embedded, not whether the thesis holds: *not testable with this model*, with the reason.
H14 compares distance distributions on the same cases, so it is decided on paired bootstrap intervals (cases
resampled together: :func:`lcrag.stats.rows_ci`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lcrag.stats import rows_ci, signed_interval

#: The thesis's embedding model, as an embedder spec would name it ("davinci-002"; most likely served as
#: text-embedding-ada-002: book/deviations.md).
THESIS_EMBEDDERS = ("davinci-002", "ada-002")
RANKERS = ("cosine", "svm", "bm25", "naive")


def other_embedder(name: str | None) -> str | None:
    """Why the thesis's embedding numbers cannot be tested with embedder ``name``; None when it is the thesis's."""
    if name and any(e in str(name).lower() for e in THESIS_EMBEDDERS):
        return None
    return (f"the thesis's values are davinci-002 embeddings'; ours are {name or 'an unnamed embedder'}'s, another "
            "embedding model, so the check identifies the model rather than testing the thesis (the Deviations page)")


def _embedder_of(table: pd.DataFrame) -> str | None:
    names = table["embedder"].dropna().unique() if "embedder" in table else []
    return str(names[0]) if len(names) == 1 else None


def distance_tests(dist: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> dict[str, dict] | None:
    """H14's comparisons on the per-case distances (:func:`lcrag.papers.thesis.distance.distance_study`), question as
    query, each ``{diff, ci}`` on the same cases: median differences at k = 5, α = 0.05 (``cosine-svm``,
    ``bm25-svm``, ``naive-svm``), and the change of the mean IQR over the rankers from k = 5 to k = 10 (``k10``)
    and from α = 0.05 to α = 0.5 (``alpha0.5``): negative means more concentrated. None when a setting is missing."""
    q = dist[dist["query"] == "question"]
    wide = q.pivot_table(index=["task", "case"], columns=["k", "alpha", "ranker"], values="distance").dropna()
    cols = {key: i for i, key in enumerate(wide.columns)}
    base, k10, a05 = [[(k, a, r) for r in RANKERS] for k, a in ((5, 0.05), (10, 0.05), (5, 0.5))]
    if not all(c in cols for c in (*base, *k10, *a05)) or len(wide) < 2:
        return None
    x = wide.to_numpy()

    def med(r):
        return lambda v: np.median(v[..., cols[(5, 0.05, r)]], axis=-1)

    def iqr(keys):
        def f(v):
            sel = v[..., [cols[c] for c in keys]]
            q3, q1 = np.quantile(sel, [0.75, 0.25], axis=-2)
            return (q3 - q1).mean(axis=-1)
        return f

    stats = {
        "cosine-svm": lambda v: med("cosine")(v) - med("svm")(v),
        "bm25-svm": lambda v: med("bm25")(v) - med("svm")(v),
        "naive-svm": lambda v: med("naive")(v) - med("svm")(v),
        "k10": lambda v: iqr(k10)(v) - iqr(base)(v),
        "alpha0.5": lambda v: iqr(a05)(v) - iqr(base)(v),
    }
    out = {name: {"diff": float(f(x)), "ci": rows_ci(x, f, n_boot, seed=seed)} for name, f in stats.items()}
    out["medians"] = {r: float(med(r)(x)) for r in RANKERS}
    out["iqr"] = {"k=5": float(iqr(base)(x)), "k=10": float(iqr(k10)(x)), "α=0.5": float(iqr(a05)(x))}
    out["n"] = len(x)
    return out


def _d(t: dict) -> str:
    return signed_interval(t["diff"], *t["ci"], scale=1, digits=3)


def h14_verdict(t: dict) -> bool | None:
    """H14 from :func:`distance_tests`: BM25 and the word count above SVM (intervals above 0), Cosine not clearly
    above SVM ("SVM close behind": refuted only by a clear excess), and both settings concentrating the
    distributions (the IQR change's interval below 0)."""
    from lcrag.book.claims import all_of, greater, less

    cos_above = greater(t["cosine-svm"]["diff"], 0, ci=t["cosine-svm"]["ci"]) is True
    return all_of([not cos_above, *(greater(t[k]["diff"], 0, ci=t[k]["ci"]) for k in ("bm25-svm", "naive-svm")),
                   *(less(t[k]["diff"], 0, ci=t[k]["ci"]) for k in ("k10", "alpha0.5"))])


def _embedder_in(*tables: pd.DataFrame | None) -> str | None:
    """The embedder named by the first of ``tables`` that names one (:func:`_embedder_of`), else None."""
    for t in tables:
        name = _embedder_of(t) if t is not None and len(t) else None
        if name:
            return name
    return None


def check_retrieval_claims(ledger, *, t63: pd.DataFrame | None = None, sanity: pd.DataFrame | None = None,
                           distances: pd.DataFrame | None = None, n_boot: int = 2000, seed: int = 0) -> None:
    """H6, H6b (Table 6.3), H14 (ranking distances) and H16 (embedding sanity) into ``ledger``, whose model should
    be :data:`lcrag.book.verdicts.NO_MODEL`. ``t63`` and ``sanity`` carry the embedder's name (column
    ``embedder``): the thesis's embedding numbers are tested only with its embedding model."""
    from lcrag.book.claims import within

    if t63 is not None and len(t63):
        bm = t63[t63["ranker"] == "bm25"]
        ledger.check("H6", our_value=f"{int(bm['exact'].sum())}/{len(bm)} rows", passed=bool(bm["exact"].all()),
                     evidence="rank_bm25 defaults, thesis tokenization, 512/50 chunks; no language model",
                     anchor="thesis-table-6-3")
        emb = t63[t63["ranker"].isin(["cosine", "svm"])]
        name = _embedder_of(emb)
        top2 = emb[emb["case"].isin([1, 2])]["top2"]
        c11 = emb[emb["case"] == 3]["chunk11_top3"]
        ledger.check("H6b", our_value=f"top-2 {int(top2.sum())}/{len(top2)}, chunk 11 top-3 {int(c11.sum())}/{len(c11)}",
                     passed=bool(top2.all() and c11.all()), evidence=f"{name or 'unnamed'} embeddings",
                     anchor="thesis-table-6-3", untestable=other_embedder(name))

    if distances is not None and len(distances):
        t = distance_tests(distances, n_boot=n_boot, seed=seed)
        ours = "n/a" if t is None else (
            "medians (k=5, α=0.05, question): " + ", ".join(f"{r} {v:.3f}" for r, v in t["medians"].items())
            + f"; BM25 − SVM {_d(t['bm25-svm'])}, Naive − SVM {_d(t['naive-svm'])}, Cosine − SVM "
            f"{_d(t['cosine-svm'])}; mean IQR {t['iqr']['k=5']:.3f} → k=10 {t['iqr']['k=10']:.3f} "
            f"({_d(t['k10'])}), α=0.5 {t['iqr']['α=0.5']:.3f} ({_d(t['alpha0.5'])})")
        ledger.check(
            "H14", our_value=ours, passed=None if t is None else h14_verdict(t),
            evidence=f"distance to BM25-with-evidence top-k, Hungarian assignment; no language model (the Cosine "
            f"and SVM rankers embed with {_embedder_in(t63, sanity) or 'an unnamed embedder'}); paired "
            f"bootstrap over {0 if t is None else t['n']} cases (95 %): reproduced when BM25 and Naive lie above "
            "SVM, Cosine not clearly above SVM, and the mean IQR lower at k = 10 and at α = 0.5",
            anchor="thesis-distance")

    if sanity is not None and len(sanity):
        name = _embedder_of(sanity)
        ok = [within(o, t, 0.005) for o, t in zip(sanity["ours"], sanity["paper_cosine"], strict=True)]
        ordered = sanity["ours"].iloc[0] > sanity["ours"].iloc[1]
        ledger.check("H16", our_value=" > ".join(f"{v:.4f}" for v in sanity["ours"]) if ordered
                     else " ≤ ".join(f"{v:.4f}" for v in sanity["ours"]),
                     passed=bool(all(ok) and ordered),
                     evidence=f"{name or 'unnamed'} embeddings: a model-identification check (each value within "
                     f"0.005 of the thesis's, same order); the order {'holds' if ordered else 'does not hold'} "
                     "with ours", anchor="thesis-table-6-3", untestable=other_embedder(name))
