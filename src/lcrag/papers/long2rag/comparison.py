"""The Long²RAG chapter in the synthesis: the five documents whole against cut to their first N characters, by
Key Point Recall (:data:`FAMILY`).

Reads the chapter's ``judgments.csv`` (one row per question x variant x key point x judge) and
``judge_agreement.csv`` (each judge's held-out Cohen's kappa with the SummHay human labels); KPR per question is
:func:`lcrag.metrics.kpr.response_kpr`, and the comparisons use the judge that agrees best with the humans and the
chapter's floor rule (:func:`lcrag.papers.long2rag.claims.truncation_floor`, the one claim C12 uses).
"""

from __future__ import annotations

import pandas as pd

from lcrag.papers.long2rag.claims import question_kpr, truncation_floor
from lcrag.stats import bootstrap_diff
from lcrag.synthesis import Family, bars, comparison, group_means, load_table

NAME = "long2rag"


def questions(runs: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    """Per-question Key Point Recall (Eq. 2, unparseable judgements count 0) per model, judge and variant."""
    from lcrag.metrics.kpr import response_kpr

    cols = ["question_id", "variant", "judge", "value"]
    j = load_table(runs, NAME, "judgments", cols, problems)
    rows = [response_kpr(g).assign(model=model, source=g["source"].iloc[0])
            for model, g in j.groupby("model", sort=False)]
    if not rows:
        return pd.DataFrame(columns=["model", "judge", "variant", "question_id", "recall", "source"])
    return pd.concat(rows, ignore_index=True)[
        ["model", "judge", "variant", "question_id", "recall", "source"]
    ]


def judges(runs: pd.DataFrame, questions: pd.DataFrame, problems: list[str]) -> dict[str, str]:
    """Per model, the judge whose labels agree best with the SummHay human labels (held-out Cohen's kappa in
    ``judge_agreement.csv``) among the judges that scored the responses."""
    from lcrag.papers.long2rag.judges import trusted_judge

    agree = load_table(runs, NAME, "judge_agreement", ["judge", "half", "kappa"], problems)
    return {
        model: trusted_judge(agree[agree["model"] == model], sorted(set(g["judge"])))
        for model, g in questions.groupby("model", sort=False)
    }


def summary(questions: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """KPR (macro over questions) per model, judge and variant, with a bootstrap interval over questions."""
    out = group_means(questions, ["model", "judge", "variant"], "recall", "kpr",
                      lambda g: {"questions": int(g["recall"].notna().sum()), "source": g["source"].iloc[0]},
                      n_boot, seed)
    return out.reindex(columns=["model", "judge", "variant", "questions", "kpr", "ci_low", "ci_high", "source"])


def comparisons(
    questions: pd.DataFrame, judges: dict[str, str], n_boot: int = 2000, seed: int = 0
) -> list[dict]:
    """Whole documents (``none``) vs each truncated variant (``trunc*``), paired over questions, by the judge
    :func:`judges` chose, under the chapter's floor rule for C12 (:func:`lcrag.papers.long2rag.claims.
    truncation_floor`, the one its claims use): not testable with this model when the whole documents' mean KPR is
    at the floor (truncating *to* the floor is the effect measured)."""
    out = []
    for model, judge in judges.items():
        g = questions[(questions["model"] == model) & (questions["judge"] == judge)]
        wide = question_kpr(g, judge)
        if "none" not in wide:
            continue
        floor = truncation_floor(wide)
        for variant in sorted((v for v in wide.columns if str(v).startswith("trunc")), key=_trunc_size):
            both = wide[["none", variant]].dropna()
            if both.empty:
                continue
            diff, lo, hi = bootstrap_diff(both["none"], both[variant], n=n_boot, seed=seed)
            out.append(comparison(
                NAME, model, f"whole documents vs {variant} (KPR, {judge} judge)", "whole", float(both["none"].mean()),
                variant, float(both[variant].mean()), diff, lo, hi, len(both), "questions",
                f"paired bootstrap over {len(both)} questions; judge {judge} (best held-out kappa with the humans)",
                g["source"].iloc[0], floor=floor))  # fmt: skip
    return out


def _trunc_size(variant: str) -> int:
    digits = "".join(c for c in str(variant) if c.isdigit())
    return int(digits) if digits else 0


def plot_judge(syn, model: str) -> str | None:
    """The judge of the model's comparisons (else the first that scored its responses), or None."""
    c = syn.comparisons
    c = c[(c["family"] == NAME) & (c["model"] == model)]
    if len(c):
        return c["comparison"].iloc[0].rsplit(", ", 1)[1].removesuffix(" judge)")
    k = syn.tables[NAME]
    found = k.loc[k["model"] == model, "judge"]
    return str(found.iloc[0]) if len(found) else None


def plot(axes, syn, model: str) -> None:
    """One panel: KPR per document variant, by the judge of the comparisons."""
    k = syn.tables[NAME]
    judge = plot_judge(syn, model)
    title = f"long2rag: KPR ({judge} judge)" if judge else "long2rag: KPR"
    bars(axes[0], k[(k["model"] == model) & (k["judge"] == judge)], "variant", "kpr", title)


def _tables(runs, problems, n_boot, seed):
    q = questions(runs, problems)
    return {NAME: summary(q, n_boot, seed), f"{NAME}_questions": q}


def _compare(runs, tables, problems, n_boot, seed):
    q = tables[f"{NAME}_questions"]
    return comparisons(q, judges(runs, q, problems), n_boot, seed)


FAMILY = Family(
    name=NAME,
    title="Long²RAG: KPR with whole vs truncated documents",
    tables=_tables,
    compare=_compare,
    headline=lambda arm: True,  # the shortest truncation (comparisons are sorted by size)
    detail_index=("model", "judge", "variant"),
    plot=plot,
)
