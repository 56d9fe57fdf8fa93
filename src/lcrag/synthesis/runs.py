"""The chapter runs the synthesis reads, their tables, and what re-running them would cost.

The chapters save tidy tables next to their executed notebooks (``runs/<model>/<profile>/<chapter>/*.csv``);
:func:`find_runs` finds the latest successful run of each chapter and model directory, :func:`load_table` reads
one table of every run of a chapter into one data frame with ``model`` and ``source`` columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from lcrag import chapters as registered
from lcrag.book import manifest as mf
from lcrag.book.lineup import companion_profiles
from lcrag.book.runner import runs_dir
from lcrag.synthesis.family import families

RUN_COLUMNS = ("chapter", "model", "slug", "profile", "finished", "book", "run_dir")


def profiles_to_read(profile: str, profiles: Sequence[str] | None = None) -> list[str]:
    """The chapter-run profiles the synthesis reads, preferred first: ``profiles`` when given, else ``profile``
    and then each cheaper one down to ``quick`` (a smoke run is a check of the code, not a result).

    ``default`` reads ``[default, companion, quick]``: the page models' default runs, then the other models'
    companion runs and quick runs (``notebooks/companions.yml``). Every value on the page names its run's profile.
    """
    from lcrag.book.profiles import PROFILES

    if profiles:
        return list(dict.fromkeys(profiles))
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; profiles are {', '.join(PROFILES)}")
    rank = PROFILES.index(profile)
    return [profile] + [p for p in reversed(PROFILES[:rank]) if p != "smoke"]


def read_order(profiles: Sequence[str]) -> str:
    """Which run the synthesis reads for each chapter and model, in words, from the ``profiles`` it reads
    (:func:`profiles_to_read`) and :func:`find_runs`'s rule: markdown, so that the page states the order the code
    follows (``default`` → ``companion`` → ``quick`` for the book)."""
    order = " → ".join(f"`{p}`" for p in profiles)
    never = "" if "smoke" in profiles else "; a `smoke` run is never read"
    return (f"For each chapter and model, this page reads one run: the latest successful one of the first profile "
            f"in {order} that has one, except that the companion run `notebooks/companions.yml` lists for that "
            f"model and chapter comes first when its profile is among these{never}.")


def model_chapters() -> list[str]:
    """Every registered chapter that runs a model itself: all but those that read the other chapters' tables."""
    return [c.name for c in registered.chapters() if not c.reads_chapters]


def find_runs(
    root: Path | None = None,
    profiles: Sequence[str] = ("default",),
    chapters: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The latest successful run of each chapter (default: every registered family's) and model directory,
    among ``profiles`` (earlier ones win), except that the run the book makes of a companion
    (:func:`lcrag.book.lineup.companion_profiles` of ``root``'s ``notebooks/companions.yml``) wins over that model's
    runs of other profiles: a ``default`` run left from an earlier lineup does not hide the current ``companion`` one.

    Reads ``runs/<slug>/<profile>/<chapter>/manifest.json``; a run that failed, was interrupted, or is still
    running (no manifest yet) does not count. Columns: :data:`RUN_COLUMNS`.
    """
    profiles = list(profiles)
    lineup = companion_profiles(root)
    chapters = [f.name for f in families()] if chapters is None else list(chapters)
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
    runs["_rank"] = [-1 if lineup.get((c, m)) == p else profiles.index(p)
                     for c, m, p in zip(runs["chapter"], runs["model"], runs["profile"], strict=True)]
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


#: The columns of :func:`rerun_cost` before its prices.
COST_COLUMNS = ("chapter", "profile", "run_model", "calls_model", "calls", "model_hours", "prompt_tokens",
                "completion_tokens")


def price_column(spec: str) -> str:
    """The column of :func:`rerun_cost` holding a spec's price, in US dollars: ``cost_usd_openai/gpt-4o``."""
    return f"cost_usd_{spec}"


def _usage_by_model(run) -> dict[str, dict]:
    """A run's calls, tokens and latency per model that made them (each ``usage.jsonl`` record names its
    ``model``: the needle run asks every embedded model); without the log, the manifest's totals (none: zeros)
    under the run's model."""
    log = mf.read_usage(Path(run.run_dir) / mf.USAGE_FILE)
    if not log.records:
        usage = mf.read_manifest(Path(run.run_dir) / mf.MANIFEST_FILE).get("usage") or {}
        return {run.model: usage}
    out: dict[str, dict] = {}
    for r in log.records:
        u = out.setdefault(str(r.get("model") or run.model),
                           {"calls": 0, "latency_s": 0.0, "prompt_tokens": 0, "completion_tokens": 0})
        u["calls"] += 1
        for k in ("latency_s", "prompt_tokens", "completion_tokens"):
            v = r.get(k)
            u[k] += v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0
    return out


def rerun_cost(syn_runs: pd.DataFrame, specs: Sequence[str]) -> pd.DataFrame:
    """What re-running each chapter's recorded run would cost, one row per run and model that made calls in it
    (``calls_model``: the needle run of one model asks the others too): the time that model took when the
    responses were recorded (its calls' latencies summed, hours: a cold re-run on a similar CPU), and on another
    model its prompt and completion tokens (its own tokenizer; an estimate for another one) at each spec's list
    price.

    Columns: :data:`COST_COLUMNS`, then one ``cost_usd_<spec>`` column per spec (:func:`price_column`: US dollars;
    NaN where the price is unknown, e.g. an OpenAI model the registry does not price).
    """
    from lcrag.models.registry import cost_usd, parse_spec

    infos = {s: parse_spec(s) for s in specs}
    rows = []
    for run in syn_runs.itertuples():
        for model, usage in _usage_by_model(run).items():
            row = {
                "chapter": run.chapter,
                "profile": run.profile,
                "run_model": run.model,
                "calls_model": model,
                "calls": int(usage.get("calls", 0)),
                "model_hours": round(float(usage.get("latency_s", 0.0)) / 3600, 2),
                "prompt_tokens": int(usage.get("prompt_tokens", 0)),
                "completion_tokens": int(usage.get("completion_tokens", 0)),
            }
            for s, info in infos.items():
                c = cost_usd(info, row["prompt_tokens"], row["completion_tokens"])
                row[price_column(s)] = float("nan") if c is None else round(c, 4)
            rows.append(row)
    return pd.DataFrame(rows, columns=[*COST_COLUMNS, *map(price_column, specs)])
