"""The cases: BAMBOO MeetingQA and PaperQA, cleaned as the thesis did (84 + 74 = 158), and the subsets the
chapter asks (the first n per task, the letter-stratified grid subset).

The thesis's rule (:func:`clean_cases`): drop questions with a number of options other than four, then one of each
pair of duplicates (MeetingQA 4k case 5 = case 12). A case number is the 1-based line of BAMBOO's file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from lcrag.papers.thesis.numbers import TASKS, THESIS_DROPPED_DUPLICATES, THESIS_NAMED_CASES


def clean_cases(df: pd.DataFrame, task: str | None = None, size: str | None = None) -> pd.DataFrame:
    """Mark each case ``kept`` or not, with the ``removed`` reason: "N options" or "duplicate of case M".

    The thesis's rule: drop questions whose number of options is not four, then one of each pair of
    duplicates (same question, options and answer). For MeetingQA 4k the thesis dropped case 5 (keeping 12);
    elsewhere the later duplicate is dropped.
    """
    out = df.copy()
    n_options = out["options"].map(len)
    out["removed"] = [("" if n == 4 else f"{n} options") for n in n_options]
    task = task or (out["task"].iloc[0] if len(out) else None)
    size = size or (out["size"].iloc[0] if len(out) else None)
    thesis_drop = set(THESIS_DROPPED_DUPLICATES.get((task, size), ()))
    groups: dict[tuple, list[int]] = {}
    for r in out[out["removed"] == ""].itertuples(index=False):
        groups.setdefault((r.question, tuple(r.options), r.answer), []).append(r.case)
    for numbers in groups.values():
        if len(numbers) < 2:
            continue
        drop = [c for c in numbers if c in thesis_drop] or numbers[1:]
        for c in drop:
            other = next(n for n in numbers if n not in drop)
            out.loc[out["case"] == c, "removed"] = f"duplicate of case {other}"
    out["kept"] = out["removed"] == ""
    return out


def load_cases(tasks: Sequence[str] = TASKS, size: str = "4k", loader=None) -> pd.DataFrame:
    """Every case of the BAMBOO files (one row each) with ``kept`` and ``removed`` (see :func:`clean_cases`).

    The loader's reports (lenient parses, repaired lines, e.g. paperqa_16k's malformed line 26) are in
    ``df.attrs["reports"]``, one per task. A line the loader had to drop is a DataError naming the file and line:
    the thesis counts every case of each file (its Table 6.1), so a damaged file must not run with fewer.
    """
    if loader is None:
        from lcrag.data import load_bamboo

        loader = load_bamboo
    frames, reports = [], {}
    for task in tasks:
        df = loader(task, size, errors="drop")
        reports[task] = report = df.attrs.get("report")
        if report is not None and report.dropped:
            from lcrag.data.fetch import FETCH_HINT
            from lcrag.data.manifest import DataError
            from lcrag.data.records import shown_path

            lines = "; ".join(f"line {n}: {why}" for n, why in report.dropped)
            raise DataError(f"{shown_path(report.file)}: {lines}. The thesis needs every case of the file: delete "
                            f"the damaged file and {FETCH_HINT}")
        frames.append(clean_cases(df, task, size))
    out = pd.concat(frames, ignore_index=True)
    out.attrs["reports"] = reports
    return out


def cleaning_table(cases: pd.DataFrame) -> pd.DataFrame:
    """Per task: lines read, dropped as unreadable, removed for ≠ 4 options, removed as duplicates, kept,
    and the removed case numbers (1-based line numbers)."""
    rows = []
    reports = cases.attrs.get("reports", {})
    for task, g in cases.groupby("task", sort=False):
        report = reports.get(task)
        options = g[g["removed"].str.endswith("options")]
        dups = g[g["removed"].str.startswith("duplicate")]
        rows.append(
            {
                "task": task,
                "read": report.n_read if report else len(g),
                "unreadable": len(report.dropped) if report else 0,
                "not_4_options": len(options),
                "duplicates": len(dups),
                "kept": int(g["kept"].sum()),
                "removed_cases": " ".join(str(c) for c in sorted(g.loc[~g["kept"], "case"])),
            }
        )
    return pd.DataFrame(rows)


def stratified_subset(
    kept: pd.DataFrame, n_per_task: int, seed: int = 0, include: dict[str, Iterable[int]] | None = None
) -> pd.DataFrame:
    """A fixed subset of ``n_per_task`` kept cases per task, stratified by the correct letter.

    First the cases the thesis discusses (``include``, default :data:`THESIS_NAMED_CASES`, in order); then,
    from a seeded shuffle of the rest, repeatedly the next case of the letter furthest below its share of the
    task, so the subset keeps the task's letter distribution. ``n_per_task < 0`` keeps every case.
    """
    include = THESIS_NAMED_CASES if include is None else include
    picked = []
    for task, g in kept.groupby("task", sort=False):
        if n_per_task < 0 or n_per_task >= len(g):
            picked.append(g)
            continue
        chosen = [c for c in include.get(task, ()) if c in set(g["case"])][:n_per_task]
        rng = np.random.default_rng(seed)
        rest = g[~g["case"].isin(chosen)].iloc[rng.permutation(len(g) - len(chosen))]
        share = g["answer"].value_counts(normalize=True)
        queues = {letter: list(q["case"]) for letter, q in rest.groupby("answer")}
        have = g[g["case"].isin(chosen)]["answer"].value_counts().to_dict()
        while len(chosen) < n_per_task:
            total = len(chosen) + 1
            letter = max(
                (x for x in queues if queues[x]), key=lambda x: (share[x] * total - have.get(x, 0), x)
            )
            chosen.append(queues[letter].pop(0))
            have[letter] = have.get(letter, 0) + 1
        picked.append(g[g["case"].isin(chosen)])
    return pd.concat(picked).sort_values(["task", "case"], key=_task_order).reset_index(drop=True)


def run_plan(kept: pd.DataFrame, main: pd.DataFrame, grid: pd.DataFrame) -> str:
    """What the runs ask, in lines: how many kept cases, the main runs' and the grid's; per task, the grid's cases
    (or that it has every kept case of the task) and their correct letters."""
    lines = [f"{len(kept)} kept cases; main runs on {len(main)}; the pipeline x prompt grid on {len(grid)}:"]
    for task, g in grid.groupby("task", sort=False):
        letters = ", ".join(f"{k} {v}" for k, v in g["answer"].value_counts().sort_index().items())
        every = len(g) == int((kept["task"] == task).sum())
        which = f"every kept case ({len(g)})" if every else f"cases {' '.join(map(str, g['case']))}"
        lines.append(f"  {task}: {which}  (answers: {letters})")
    return "\n".join(lines)


def case_list(cases: pd.DataFrame) -> str:
    """The cases of a table in words, per task in file order: "4 cases: MeetingQA 1, 2, 3, 4"."""
    names = {"meetingqa": "MeetingQA", "paperqa": "PaperQA"}
    parts = [f"{names.get(t, t)} {', '.join(map(str, g['case']))}" for t, g in cases.groupby("task", sort=False)]
    return f"{len(cases)} case{'s' if len(cases) != 1 else ''}: {'; '.join(parts) or 'none'}"


def _task_order(col: pd.Series) -> pd.Series:
    return col.map({t: i for i, t in enumerate(TASKS)}).fillna(col) if col.name == "task" else col


def first_cases(kept: pd.DataFrame, n_per_task: int) -> pd.DataFrame:
    """The first ``n_per_task`` kept cases of each task in file order (all when ``n_per_task <= 0``)."""
    if n_per_task <= 0:
        return kept.reset_index(drop=True)
    return kept.groupby("task", sort=False).head(n_per_task).reset_index(drop=True)


def case_keys(df: pd.DataFrame, as_list: bool = False):
    """(task, case) pairs of a table, as a set (or a list in row order)."""
    keys = list(zip(df["task"], df["case"], strict=True))
    return keys if as_list else set(keys)


def on_cases(scored: pd.DataFrame, cases: pd.DataFrame | None) -> pd.DataFrame:
    """The rows of ``scored`` on the (task, case) pairs of ``cases`` (all rows when ``cases`` is None)."""
    if cases is None:
        return scored
    keys = case_keys(cases)
    return scored[[k in keys for k in case_keys(scored, as_list=True)]]
