"""Cross-chapter synthesis: one model through every experiment family of the book.

The chapters save tidy tables next to their executed notebooks (``runs/<model>/<profile>/<chapter>/*.csv``). This
module reads those tables back, never a model and never a paper's number, and puts each model through the same
five comparisons of "more context" against "less, retrieved context":

- needle: the whole haystack vs BM25's top chunks (``answers.csv``);
- thesis: the Full document vs RAG (the main pipeline) and the gold Evidence, BAMBOO's prompt
  (``accuracy.csv``, ``paired_tests.csv``);
- long2rag: the five documents whole vs cut to their first N characters (``judgments.csv``);
- longrag: the Full LongBench context vs the paper's RAG strategies (``answers.csv``);
- summhay: Full (the haystack, as far as the window holds it) vs the Oracle and the best real retriever
  (``live_results.csv``).

Each comparison is a difference of the long-context arm minus the other arm on a 0-1 scale, with a paired
95 % bootstrap interval where the tables keep per-question values (needle, thesis, long2rag, longrag); SummHay's
live table keeps micro-averages only, so its differences have no interval and say so.

A model appears as soon as one of its tables does: the run's model, or a ``model`` column inside a run (the
needle chapter runs Gemma-3 inside the SmolLM2 run). A chapter without a successful run is "not run yet".

    syn = synthesize(profiles=["default"])
    syn.comparisons            # one row per model x comparison
    overview(syn)              # family x model: the reading of each headline comparison
    plot_model(syn, model)     # one figure per model
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from lcrag.book import manifest as mf
from lcrag.book.runner import runs_dir
from lcrag.metrics.multiple_choice import bootstrap_ci
from lcrag.metrics.qa import bootstrap_diff

#: The experiment families, in the order the synthesis shows them, with what each compares.
FAMILIES: dict[str, str] = {
    "needle": "Needle in a haystack: full haystack vs BM25 RAG",
    "thesis": "BAMBOO multiple choice: Full vs RAG vs gold Evidence",
    "long2rag": "Long²RAG: KPR with whole vs truncated documents",
    "longrag": "LongRAG: the full-context arm vs the paper's RAG strategies",
    "summhay": "Summary of a Haystack: Full vs Oracle vs retrievers",
}
NOT_RUN = "not run yet"
RUN_COLUMNS = ("chapter", "model", "slug", "profile", "finished", "book", "run_dir")
COMPARISON_COLUMNS = (
    "family",
    "model",
    "comparison",
    "long_arm",
    "long_value",
    "other_arm",
    "other_value",
    "diff",
    "ci_low",
    "ci_high",
    "n",
    "units",
    "reading",
    "evidence",
    "source",
)


# --------------------------------------------------------------------------------------------- the runs


def profiles_to_read(profile: str, profiles: Sequence[str] | None = None) -> list[str]:
    """The chapter-run profiles the synthesis reads, preferred first: ``profiles`` when given, else ``profile``
    and then each cheaper one down to ``quick`` (a smoke run is a check of the code, not a result).

    ``default`` reads ``[default, quick]``: the book model's default runs, and the quick companion runs of the
    second embedded model (``notebooks/companions.yml``). Every value on the page names its run's profile.
    """
    from lcrag.book.profiles import PROFILES

    if profiles:
        return list(dict.fromkeys(profiles))
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; profiles are {', '.join(PROFILES)}")
    rank = PROFILES.index(profile)
    return [profile] + [p for p in reversed(PROFILES[:rank]) if p != "smoke"]


def find_runs(
    root: Path | None = None,
    profiles: Sequence[str] = ("default",),
    chapters: Sequence[str] = tuple(FAMILIES),
) -> pd.DataFrame:
    """The latest successful run of each chapter and model directory, among ``profiles`` (earlier ones win).

    Reads ``runs/<slug>/<profile>/<chapter>/manifest.json``; a run that failed, was interrupted, or is still
    running (no manifest yet) does not count. Columns: :data:`RUN_COLUMNS`.
    """
    profiles = list(profiles)
    rows = []
    for m_path in sorted(runs_dir(root).glob(f"*/*/*/{mf.MANIFEST_FILE}")):
        chapter, profile = m_path.parent.name, m_path.parent.parent.name
        if chapter not in chapters or profile not in profiles:
            continue
        try:
            m = mf.read_manifest(m_path)
        except ValueError:
            continue  # unreadable: not a successful run
        if m.get("status") != "ok":
            continue
        slug = m_path.parent.parent.parent.name
        rows.append(
            {
                "chapter": chapter,
                "model": str(m.get("model") or slug),
                "slug": slug,
                "profile": profile,
                "finished": str(m.get("finished", "")),
                "book": bool(m.get("book")),
                "run_dir": m_path.parent,
            }
        )
    runs = pd.DataFrame(rows, columns=list(RUN_COLUMNS))
    if runs.empty:
        return runs
    runs["_rank"] = runs["profile"].map(profiles.index)
    runs = runs.sort_values(["chapter", "slug", "_rank", "finished"], ascending=[True, True, True, False])
    return runs.drop_duplicates(["chapter", "slug"]).drop(columns="_rank").reset_index(drop=True)


def _source(run: pd.Series, table: str, model: str | None = None) -> str:
    inside = f", inside the {run['model']} run" if model and model != run["model"] else ""
    return f"{run['chapter']}/{table}.csv ({run['profile']} run of {str(run['finished'])[:10]}{inside})"


def load_table(
    runs: pd.DataFrame,
    chapter: str,
    table: str,
    required: Sequence[str],
    problems: list[str],
    model_column: str | None = None,
) -> pd.DataFrame:
    """``<table>.csv`` of every run of ``chapter``, one data frame with ``model`` and ``source`` columns.

    ``model`` is the table's ``model_column`` when it has one (a second model inside a run), else the run's
    model. A run without the table, or a table without the ``required`` columns, is skipped and described in
    ``problems`` (the synthesis shows them). When two runs hold rows of the same model, the run of that model
    itself wins, then the latest one.
    """
    frames = []
    for _, run in runs[runs["chapter"] == chapter].iterrows():
        path = Path(run["run_dir"]) / f"{table}.csv"
        if not path.exists():
            problems.append(f"{path}: missing (the {chapter} run saved no {table!r} table)")
            continue
        df = pd.read_csv(path)
        missing = [c for c in required if c not in df.columns]
        if missing:
            problems.append(f"{path}: no column(s) {missing}; skipped")
            continue
        df = df.copy()
        df["model"] = df[model_column].astype(str) if model_column and model_column in df else run["model"]
        df["_run_model"], df["_finished"], df["_run"] = run["model"], run["finished"], str(run["run_dir"])
        df["source"] = [_source(run, table, m) for m in df["model"]]
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=[*required, "model", "source"])
    df = pd.concat(frames, ignore_index=True)
    runs_of = df[["model", "_run", "_run_model", "_finished"]].drop_duplicates()
    runs_of = runs_of.assign(_own=runs_of["model"] == runs_of["_run_model"])
    best = runs_of.sort_values(["model", "_own", "_finished"], ascending=[True, False, False])
    best = best.drop_duplicates("model")[["model", "_run"]]
    df = df.merge(best, on=["model", "_run"])
    return df.drop(columns=["_run_model", "_finished", "_run"])


# --------------------------------------------------------------------------------------------- readings


def reading(diff: float, lo: float, hi: float, long_arm: str, other_arm: str) -> str:
    """What a difference ``long_arm - other_arm`` says: the better arm when its 95 % interval excludes 0,
    "no clear difference" when it contains 0, and without an interval only which arm is higher ("(point
    estimates)"): a difference without uncertainty never makes an arm "better"."""
    if _nan(diff):
        return NOT_RUN
    if _nan(lo) or _nan(hi):
        if diff == 0:
            return "equal (point estimates)"
        return f"{long_arm if diff > 0 else other_arm} higher (point estimates)"
    if lo > 0:
        return f"{long_arm} better"
    if hi < 0:
        return f"{other_arm} better"
    return "no clear difference"


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def format_diff(diff: float, lo: float, hi: float) -> str:
    """``+9.5 pp [+1.3, +17.7]`` (percentage points of a 0-1 difference), or ``(no interval)``."""
    if _nan(diff):
        return NOT_RUN

    def pp(x: float) -> str:
        return f"{round(100 * x, 1) + 0.0:+.1f}"  # + 0.0: no "-0.0"

    if _nan(lo) or _nan(hi):
        return f"{pp(diff)} pp (no interval)"
    return f"{pp(diff)} pp [{pp(lo)}, {pp(hi)}]"


def _comparison(
    family,
    model,
    comparison,
    long_arm,
    long_value,
    other_arm,
    other_value,
    diff,
    lo,
    hi,
    n,
    units,
    evidence,
    source,
) -> dict:
    return {
        "family": family, "model": model, "comparison": comparison, "long_arm": long_arm,
        "long_value": long_value, "other_arm": other_arm, "other_value": other_value, "diff": diff,
        "ci_low": lo, "ci_high": hi, "n": int(n), "units": units,
        "reading": reading(diff, lo, hi, long_arm, other_arm),
        "evidence": evidence, "source": source,
    }  # fmt: skip


def _group_means(df: pd.DataFrame, keys: list[str], value: str, name: str, extra, n_boot: int,
                 seed: int) -> pd.DataFrame:
    """One row per group of ``keys``: ``extra(g)`` columns, then the mean of ``value`` as ``name`` with its
    bootstrap interval (``ci_low``, ``ci_high``), then any columns ``extra`` marks as trailing (``source``)."""
    rows = []
    for k, g in df.groupby(keys, sort=False):
        mean, lo, hi = _mean_ci(g[value], n_boot, seed)
        ext = extra(g)
        tail = {c: ext.pop(c) for c in ("source",) if c in ext}
        rows.append({**dict(zip(keys, k, strict=True)), **ext, name: mean, "ci_low": lo, "ci_high": hi, **tail})
    return pd.DataFrame(rows)


def _mean_ci(values, n_boot: int, seed: int) -> tuple[float, float, float]:
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if not x.size:
        return (float("nan"),) * 3
    lo, hi = bootstrap_ci(x, n_boot=n_boot, seed=seed)
    return float(x.mean()), lo, hi


# --------------------------------------------------------------------------------------------- needle


def needle_cells(runs: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    """One row per needle cell: model, needle, setting (full / rag), context_tokens, depth, recall (0-1)."""
    cols = ["needle", "setting", "context_tokens", "depth", "recall"]
    df = load_table(runs, "needle", "answers", cols, problems, model_column="model")
    return df[["model", *cols, "source"]]


def needle_summary(cells: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Mean recall per model, needle and setting, with a bootstrap interval over the cells."""
    out = _group_means(cells, ["model", "needle", "setting"], "recall", "recall",
                       lambda g: {"cells": len(g)}, n_boot, seed)
    return out.reindex(columns=["model", "needle", "setting", "cells", "recall", "ci_low", "ci_high"])


def needle_comparisons(cells: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> list[dict]:
    """Full haystack vs RAG on the cells both ran (same needle, length and depth): paired bootstrap."""
    out = []
    keys = ["needle", "context_tokens", "depth"]
    for model, g in cells.groupby("model", sort=False):
        wide = g.pivot_table(index=keys, columns="setting", values="recall", aggfunc="mean")
        if not {"full", "rag"} <= set(wide.columns):
            continue
        both = wide[["full", "rag"]].dropna()
        if both.empty:
            continue
        diff, lo, hi = bootstrap_diff(both["full"], both["rag"], n=n_boot, seed=seed)
        lengths = sorted(both.index.get_level_values("context_tokens").unique())
        out.append(_comparison(
            "needle", model, "full haystack vs BM25 RAG (recall)", "Full", float(both["full"].mean()), "RAG",
            float(both["rag"].mean()), diff, lo, hi, len(both), "cells",
            f"paired bootstrap over {len(both)} cells (needles x depths at {', '.join(map(str, lengths))} tokens)",
            g["source"].iloc[0]))  # fmt: skip
    return out


# --------------------------------------------------------------------------------------------- thesis


def _main_prompt(acc: pd.DataFrame) -> str:
    full = acc[acc["setting"] == "full"]
    return str(full.sort_values("n", ascending=False)["prompt"].iloc[0]) if len(full) else ""


def thesis_arms(runs: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    """Full, RAG (the main pipeline) and Evidence accuracy on the main cases, under the main prompt (the one
    Full ran on most cases), with the chapter's bootstrap intervals."""
    cols = ["run", "setting", "pipeline", "prompt", "n", "accuracy", "ci_low", "ci_high"]
    acc = load_table(runs, "thesis", "accuracy", cols, problems)
    rows = []
    for _, g in acc.groupby("model", sort=False):
        g = g[g["prompt"] == _main_prompt(g)]
        n_main = g["n"].max()
        rows.append(g[g["n"] == n_main])
    if not rows:
        return pd.DataFrame(
            columns=["model", "arm", "prompt", "n", "accuracy", "ci_low", "ci_high", "source"]
        )
    t = pd.concat(rows, ignore_index=True).rename(columns={"run": "arm"})
    return t[["model", "arm", "prompt", "n", "accuracy", "ci_low", "ci_high", "source"]]


def thesis_comparisons(runs: pd.DataFrame, arms: pd.DataFrame, problems: list[str]) -> list[dict]:
    """Full vs RAG and Full vs Evidence from the chapter's paired bootstrap table (``paired_tests.csv``)."""
    cols = ["a", "b", "n", "accuracy_a", "accuracy_b", "diff", "ci_low", "ci_high"]
    paired = load_table(runs, "thesis", "paired_tests", cols, problems)
    out = []
    for model, g in arms.groupby("model", sort=False):
        prompt, n = g["prompt"].iloc[0], int(g["n"].iloc[0])
        p = paired[(paired["model"] == model) & (paired["n"] == n)]
        for other in sorted((a for a in g["arm"] if a != "Full"), key=lambda a: a == "Evidence"):  # RAG first
            label_full, label_other = f"Full / {prompt}", f"{other} / {prompt}"
            row, sign = p[(p["a"] == label_full) & (p["b"] == label_other)], 1.0
            if row.empty:
                row, sign = p[(p["a"] == label_other) & (p["b"] == label_full)], -1.0
            if row.empty:
                continue
            r = row.iloc[0]
            lo, hi = sorted((sign * r["ci_low"], sign * r["ci_high"]))
            full_acc, other_acc = (
                (r["accuracy_a"], r["accuracy_b"]) if sign > 0 else (r["accuracy_b"], r["accuracy_a"])
            )
            out.append(_comparison(
                "thesis", model, f"Full vs {other} ({prompt} prompt, accuracy)", "Full", float(full_acc), other,
                float(other_acc), float(sign * r["diff"]), lo, hi, n, "cases",
                f"the chapter's paired bootstrap over {n} cases", r["source"].replace("accuracy", "paired_tests")))  # fmt: skip
    return out


# --------------------------------------------------------------------------------------------- long2rag


def long2rag_questions(runs: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    """Per-question Key Point Recall (Eq. 2, unparseable judgements count 0) per model, judge and variant."""
    from lcrag.metrics.kpr import response_kpr

    cols = ["question_id", "variant", "judge", "value"]
    j = load_table(runs, "long2rag", "judgments", cols, problems)
    rows = [response_kpr(g).assign(model=model, source=g["source"].iloc[0])
            for model, g in j.groupby("model", sort=False)]
    if not rows:
        return pd.DataFrame(columns=["model", "judge", "variant", "question_id", "recall", "source"])
    return pd.concat(rows, ignore_index=True)[
        ["model", "judge", "variant", "question_id", "recall", "source"]
    ]


def long2rag_judges(runs: pd.DataFrame, questions: pd.DataFrame, problems: list[str]) -> dict[str, str]:
    """Per model, the judge whose labels agree best with the SummHay human labels (held-out Cohen's kappa in
    ``judge_agreement.csv``) among the judges that scored the responses."""
    from lcrag.papers.long2rag.judges import trusted_judge

    agree = load_table(runs, "long2rag", "judge_agreement", ["judge", "half", "kappa"], problems)
    return {
        model: trusted_judge(agree[agree["model"] == model], sorted(set(g["judge"])))
        for model, g in questions.groupby("model", sort=False)
    }


def long2rag_summary(questions: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """KPR (macro over questions) per model, judge and variant, with a bootstrap interval over questions."""
    out = _group_means(questions, ["model", "judge", "variant"], "recall", "kpr",
                       lambda g: {"questions": int(g["recall"].notna().sum()), "source": g["source"].iloc[0]},
                       n_boot, seed)
    return out.reindex(columns=["model", "judge", "variant", "questions", "kpr", "ci_low", "ci_high", "source"])


def long2rag_comparisons(
    questions: pd.DataFrame, judges: dict[str, str], n_boot: int = 2000, seed: int = 0
) -> list[dict]:
    """Whole documents (``none``) vs each truncated variant (``trunc*``), paired over questions, by the judge
    :func:`long2rag_judges` chose."""
    out = []
    for model, judge in judges.items():
        g = questions[(questions["model"] == model) & (questions["judge"] == judge)]
        wide = g.pivot_table(index="question_id", columns="variant", values="recall", aggfunc="mean")
        if "none" not in wide:
            continue
        for variant in sorted((v for v in wide.columns if str(v).startswith("trunc")), key=_trunc_size):
            both = wide[["none", variant]].dropna()
            if both.empty:
                continue
            diff, lo, hi = bootstrap_diff(both["none"], both[variant], n=n_boot, seed=seed)
            out.append(_comparison(
                "long2rag", model, f"whole documents vs {variant} (KPR, {judge} judge)", "whole", float(both["none"].mean()),
                variant, float(both[variant].mean()), diff, lo, hi, len(both), "questions",
                f"paired bootstrap over {len(both)} questions; judge {judge} (best held-out kappa with the humans)",
                g["source"].iloc[0]))  # fmt: skip
    return out


def _trunc_size(variant: str) -> int:
    digits = "".join(c for c in str(variant) if c.isdigit())
    return int(digits) if digits else 0


# --------------------------------------------------------------------------------------------- longrag


def longrag_questions(runs: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    """Per-question F1 (0-1) per generator, dataset and strategy (the paper's five and the Full / Closed arms)."""
    cols = ["dataset", "question_id", "generator", "strategy", "f1"]
    df = load_table(runs, "longrag", "answers", cols, problems, model_column="generator")
    return df[["model", "dataset", "question_id", "strategy", "f1", "source"]]


def longrag_summary(questions: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Mean F1 per model and strategy, pooled over datasets, with a bootstrap interval over questions."""
    out = _group_means(questions, ["model", "strategy"], "f1", "f1",
                       lambda g: {"questions": len(g), "datasets": ", ".join(sorted(g["dataset"].unique())),
                                  "source": g["source"].iloc[0]}, n_boot, seed)
    return out.reindex(columns=["model", "strategy", "questions", "datasets", "f1", "ci_low", "ci_high", "source"])


def longrag_comparisons(questions: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> list[dict]:
    """The Full arm vs each of the paper's strategies, paired over (dataset, question)."""
    out = []
    for model, g in questions.groupby("model", sort=False):
        wide = g.pivot_table(
            index=["dataset", "question_id"], columns="strategy", values="f1", aggfunc="mean"
        )
        if "Full" not in wide:
            continue
        for strategy in [s for s in g["strategy"].unique() if s not in ("Full", "Closed")]:
            both = wide[["Full", strategy]].dropna()
            if both.empty:
                continue
            diff, lo, hi = bootstrap_diff(both["Full"], both[strategy], n=n_boot, seed=seed)
            out.append(_comparison(
                "longrag", model, f"Full vs {strategy} (F1)", "Full", float(both["Full"].mean()), strategy,
                float(both[strategy].mean()), diff, lo, hi, len(both), "questions",
                f"paired bootstrap over {len(both)} questions", g["source"].iloc[0]))  # fmt: skip
    return out


# --------------------------------------------------------------------------------------------- summhay


def summhay_settings(runs: pd.DataFrame, problems: list[str]) -> pd.DataFrame:
    """Live retrieval settings of our summarizer (lexical judge): coverage, citation, joint on a 0-1 scale."""
    cols = ["judge", "kind", "setting", "coverage", "citation", "joint", "n_insights", "summaries"]
    df = load_table(runs, "summhay", "live_results", cols, problems)
    df = df[(df["kind"] == "retrieval") & (df["judge"] == "lexical")].copy()
    for c in ("coverage", "citation", "joint"):
        df[c] = df[c] / 100
    return df[["model", "setting", "summaries", "n_insights", "coverage", "citation", "joint", "source"]]


def summhay_comparisons(settings: pd.DataFrame) -> list[dict]:
    """Full vs Oracle (the retrieval ceiling) and Full vs the best real retriever, on the Joint score.

    No interval: the chapter's table holds micro-averages over insights, not per-summary scores."""
    out = []
    for model, g in settings.groupby("model", sort=False):
        s = g.set_index("setting")
        if "full" not in s.index:
            continue
        others = [("oracle", "Oracle")] if "oracle" in s.index else []
        real = s.drop(index=[x for x in ("full", "oracle") if x in s.index])
        if len(real):
            best = real["joint"].idxmax()
            others.append((best, f"{best} (best retriever)"))
        for setting, label in others:
            diff = float(s.loc["full", "joint"] - s.loc[setting, "joint"])
            n = int(s.loc["full", "summaries"])
            out.append(_comparison(
                "summhay", model, f"Full vs {label} (Joint)", "Full", float(s.loc["full", "joint"]), setting,
                float(s.loc[setting, "joint"]), diff, float("nan"), float("nan"), n, "summaries",
                f"{n} summaries, {int(s.loc['full', 'n_insights'])} insights; micro-averages only, no interval",
                s.loc["full", "source"]))  # fmt: skip
    return out


# --------------------------------------------------------------------------------------------- together


@dataclass
class Synthesis:
    """Every family's tables, the comparisons, the runs they came from and what could not be read."""

    runs: pd.DataFrame
    tables: dict[str, pd.DataFrame]
    comparisons: pd.DataFrame
    problems: list[str] = field(default_factory=list)

    @property
    def models(self) -> list[str]:
        """Every model in the runs or in their tables: run models first, then models found inside runs."""
        own = list(dict.fromkeys(self.runs["model"]))
        inside = [m for t in self.tables.values() if "model" in t for m in t["model"].unique()]
        return own + sorted(set(inside) - set(own))


def synthesize(
    root: Path | None = None, profiles: Sequence[str] = ("default",), n_boot: int = 2000, seed: int = 0
) -> Synthesis:
    """Read the latest successful runs of the five chapters (``profiles``, earlier ones win) and compare."""
    runs = find_runs(root, profiles)
    problems: list[str] = []
    cells = needle_cells(runs, problems)
    arms = thesis_arms(runs, problems)
    kq = long2rag_questions(runs, problems)
    judges = long2rag_judges(runs, kq, problems)
    lq = longrag_questions(runs, problems)
    sh = summhay_settings(runs, problems)
    tables = {
        "needle_cells": cells,
        "needle": needle_summary(cells, n_boot, seed),
        "thesis": arms,
        "long2rag": long2rag_summary(kq, n_boot, seed),
        "longrag": longrag_summary(lq, n_boot, seed),
        "summhay": sh,
    }
    rows = [
        *needle_comparisons(cells, n_boot, seed),
        *thesis_comparisons(runs, arms, problems),
        *long2rag_comparisons(kq, judges, n_boot, seed),
        *longrag_comparisons(lq, n_boot, seed),
        *summhay_comparisons(sh),
    ]
    comparisons = pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))
    return Synthesis(runs=runs, tables=tables, comparisons=comparisons, problems=problems)


NO_COMPARISON = "run, but without both arms of a comparison"


def _ran_without_comparison(syn: Synthesis, family: str, model: str) -> str | None:
    """The source of ``family``'s rows for ``model`` when it ran but gave no comparison (e.g. Long²RAG without
    the whole-document variant), else None."""
    c = syn.comparisons
    if ((c["family"] == family) & (c["model"] == model)).any():
        return None
    t = syn.tables["needle_cells" if family == "needle" else family]
    rows = t[t["model"] == model] if "model" in t else t.iloc[0:0]
    return str(rows["source"].iloc[0]) if len(rows) else None


def coverage(syn: Synthesis) -> pd.DataFrame:
    """Family x model: which run each model's numbers come from, or "not run yet"."""
    out = pd.DataFrame(NOT_RUN, index=list(FAMILIES), columns=syn.models)
    for r in syn.comparisons.itertuples():
        out.loc[r.family, r.model] = r.source
    for family in FAMILIES:
        for model in syn.models:
            src = _ran_without_comparison(syn, family, model)
            if src:
                out.loc[family, model] = f"{src}; {NO_COMPARISON}"
    out.index.name = "family"
    return out


#: Which comparison of a family is its headline: the first whose other arm passes the test (else the first).
HEADLINE: dict[str, Callable[[str], bool]] = {
    "needle": lambda arm: arm == "RAG",
    "thesis": lambda arm: arm.startswith("RAG"),
    "long2rag": lambda arm: True,  # the shortest truncation (comparisons are sorted by size)
    "longrag": lambda arm: arm == "R&B",  # vanilla RAG, as in the other families
    "summhay": lambda arm: arm != "oracle",  # the best real retriever, not the Oracle ceiling
}


def headline(syn: Synthesis) -> pd.DataFrame:
    """One comparison per model and family (:data:`HEADLINE`): long context against plain retrieval."""
    c = syn.comparisons
    picks = []
    for (family, _), g in c.groupby(["family", "model"], sort=False):
        preferred = g[g["other_arm"].map(HEADLINE[family])]
        picks.append((preferred if len(preferred) else g).iloc[0])
    return pd.DataFrame(picks, columns=c.columns).reset_index(drop=True)


def overview(syn: Synthesis) -> pd.DataFrame:
    """Family x model: the headline comparison's reading and difference ``[95 % CI]``, or "not run yet"."""
    out = pd.DataFrame(NOT_RUN, index=list(FAMILIES), columns=syn.models)
    for family in FAMILIES:
        for model in syn.models:
            if _ran_without_comparison(syn, family, model):
                out.loc[family, model] = NO_COMPARISON
    for r in headline(syn).itertuples():
        out.loc[r.family, r.model] = (
            f"{r.reading}: {r.long_arm} − {r.other_arm} = "
            f"{format_diff(r.diff, r.ci_low, r.ci_high)}, {r.n} {r.units}"
        )
    out.index = [FAMILIES[f] for f in out.index]
    out.index.name = "experiment (long context vs other arm)"
    return out


#: How :func:`detail_table` indexes each family's table.
DETAIL_INDEX: dict[str, list[str]] = {
    "needle": ["model", "needle", "setting"],
    "thesis": ["model", "arm"],
    "long2rag": ["model", "judge", "variant"],
    "longrag": ["model", "strategy"],
    "summhay": ["model", "setting"],
}


def detail_table(syn: Synthesis, family: str) -> pd.DataFrame:
    """A family's table for every model (values rounded to 3 places), or one "not run yet" row."""
    t = syn.tables[family]
    if t.empty:
        return pd.DataFrame({"status": [NOT_RUN]}, index=pd.Index([family], name="experiment"))
    return t.drop(columns=["source"], errors="ignore").set_index(DETAIL_INDEX[family]).round(3)


def model_view(syn: Synthesis, model: str) -> pd.DataFrame:
    """Every comparison of one model, readable: arms, values, difference [95 % CI], reading, evidence (the
    sources are in :func:`coverage`); a "not run yet" row for each family without one, indexed by family."""
    c = syn.comparisons[syn.comparisons["model"] == model]
    rows = []
    for family in FAMILIES:
        part = c[c["family"] == family]
        if part.empty:
            status = NO_COMPARISON if _ran_without_comparison(syn, family, model) else NOT_RUN
            rows.append(
                {
                    "experiment": family,
                    "comparison": status,
                    "long context": "",
                    "other": "",
                    "difference [95 % CI]": "",
                    "reading": status,
                    "evidence": "",
                }
            )
        for r in part.itertuples():
            rows.append({
                "experiment": family, "comparison": r.comparison,
                "long context": f"{r.long_arm} {100 * r.long_value:.1f} %",
                "other": f"{r.other_arm} {100 * r.other_value:.1f} %",
                "difference [95 % CI]": format_diff(r.diff, r.ci_low, r.ci_high), "reading": r.reading,
                "evidence": r.evidence,
            })  # fmt: skip
    return pd.DataFrame(rows).set_index("experiment")


def conclusions(syn: Synthesis, model: str) -> list[str]:
    """One sentence per family for ``model``, from its headline comparison (or "not run yet")."""
    h = headline(syn)
    h = h[h["model"] == model] if len(h) else h
    lines = []
    for family, what in FAMILIES.items():
        r = h[h["family"] == family] if len(h) else h
        if r.empty:
            lines.append(
                f"{what}: {NO_COMPARISON if _ran_without_comparison(syn, family, model) else NOT_RUN}."
            )
            continue
        r = r.iloc[0]
        lines.append(
            f"{what}: **{r['reading']}**; {r['long_arm']} − {r['other_arm']} = "
            f"{format_diff(r['diff'], r['ci_low'], r['ci_high'])} ({r['evidence']})."
        )
    return lines


# --------------------------------------------------------------------------------------------- the figure


def plot_model(syn: Synthesis, model: str):
    """One figure per model: needle recall by length and depth (full haystack), then the four other families'
    arms with their 95 % intervals. A family without a run is a panel that says so."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(13, 8))
    axes = axes.ravel()
    cells = syn.tables["needle_cells"]
    cells = cells[(cells["model"] == model) & (cells["setting"] == "full")]
    needles = list(cells["needle"].unique())[:2]
    for ax, needle in zip(axes[:2], needles + [None] * (2 - len(needles)), strict=True):
        if needle is None:
            _empty(ax, "needle", "no (other) needle run" if needles else NOT_RUN)
            continue
        grid = cells[cells["needle"] == needle].pivot_table(
            index="context_tokens", columns="depth", values="recall", aggfunc="mean"
        )
        im = ax.imshow(grid.values, vmin=0, vmax=1, cmap="RdYlGn", aspect="auto", origin="lower")
        ax.set_xticks(range(len(grid.columns)), [f"{d:g}" for d in grid.columns])
        ax.set_yticks(range(len(grid.index)), [str(int(t)) for t in grid.index])
        for (i, j), v in np.ndenumerate(grid.values):
            if not np.isnan(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=9)
        ax.set(
            xlabel="needle depth (%)",
            ylabel="context tokens",
            title=f"needle ({needle}): recall, full haystack",
        )
        fig.colorbar(im, ax=ax, fraction=0.046)
    t = syn.tables["thesis"]
    _bars(axes[2], t[t["model"] == model], "arm", "accuracy", "thesis: BAMBOO accuracy (main cases)")
    k = syn.tables["long2rag"]
    judge = _long2rag_judge(syn, model)
    _bars(
        axes[3],
        k[(k["model"] == model) & (k["judge"] == judge)],
        "variant",
        "kpr",
        f"long2rag: KPR ({judge} judge)" if judge else "long2rag: KPR",
    )
    lr_ = syn.tables["longrag"]
    _bars(axes[4], lr_[lr_["model"] == model], "strategy", "f1", "longrag: F1 (all datasets)")
    sh = syn.tables["summhay"]
    _bars(axes[5], sh[sh["model"] == model], "setting", "joint", "summhay: Joint (no interval)")
    fig.suptitle(model)
    fig.tight_layout()
    return fig


def _long2rag_judge(syn: Synthesis, model: str) -> str | None:
    c = syn.comparisons
    c = c[(c["family"] == "long2rag") & (c["model"] == model)]
    if len(c):
        return c["comparison"].iloc[0].rsplit(", ", 1)[1].removesuffix(" judge)")
    k = syn.tables["long2rag"]
    judges = k.loc[k["model"] == model, "judge"]
    return str(judges.iloc[0]) if len(judges) else None


def _empty(ax, family: str, text: str = NOT_RUN) -> None:
    ax.text(0.5, 0.5, f"{family}: {text}", ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()


def _bars(ax, table: pd.DataFrame, label: str, value: str, title: str) -> None:
    if table.empty:
        _empty(ax, title.split(":")[0])
        return
    x = np.arange(len(table))
    v = table[value].to_numpy(dtype=float)
    if {"ci_low", "ci_high"} <= set(table.columns):
        err = np.vstack([v - table["ci_low"].to_numpy(float), table["ci_high"].to_numpy(float) - v]).clip(
            min=0
        )
        ax.bar(x, v, yerr=err, capsize=3, color="#4c72b0")
    else:
        ax.bar(x, v, color="#dd8452")
    ax.set_xticks(x, table[label].astype(str), rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_title(title)


# --------------------------------------------------------------------------------------------- cost


def rerun_cost(syn_runs: pd.DataFrame, specs: Sequence[str]) -> pd.DataFrame:
    """What re-running each chapter's recorded run would cost on another model: the run's prompt and
    completion tokens (its own tokenizer; an estimate for another one) at each spec's list price.

    Columns: chapter, profile, recorded_model, calls, prompt_tokens, completion_tokens, then one ``<spec>``
    column of USD per spec (NaN where the price is unknown, e.g. an OpenAI model the registry does not price).
    """
    from lcrag.models.registry import cost_usd, parse_spec

    infos = {s: parse_spec(s) for s in specs}
    rows = []
    for run in syn_runs.itertuples():
        usage = mf.read_manifest(Path(run.run_dir) / mf.MANIFEST_FILE).get("usage") or {}
        row = {
            "chapter": run.chapter,
            "profile": run.profile,
            "recorded_model": run.model,
            "calls": int(usage.get("calls", 0)),
            "prompt_tokens": int(usage.get("prompt_tokens", 0)),
            "completion_tokens": int(usage.get("completion_tokens", 0)),
        }
        for s, info in infos.items():
            c = cost_usd(info, row["prompt_tokens"], row["completion_tokens"])
            row[s] = float("nan") if c is None else round(c, 4)
        rows.append(row)
    return pd.DataFrame(
        rows,
        columns=[
            "chapter",
            "profile",
            "recorded_model",
            "calls",
            "prompt_tokens",
            "completion_tokens",
            *specs,
        ],
    )
