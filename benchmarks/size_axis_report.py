"""The model-size axis as recorded: per chapter and model, the run's calls, the model time its stored answers took
when they were recorded (the cold time), and the synthesis's headline difference with its interval and n.

    python benchmarks/size_axis_report.py            # after `lcrag book` (reads runs/)
    python benchmarks/size_axis_report.py --runs DIR  # another runs directory

Reads each run's ``manifest.json`` (``usage.calls``, ``usage.latency_s``: the recorded latencies of the answers
it used, summed) and the synthesis's ``size_axis.csv``; prints a Markdown table, one row per chapter and model (a
model that runs inside another's run, as the needle page's four do, has no calls of its own). Nothing is called or
computed again.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def run_rows(runs: Path) -> pd.DataFrame:
    """One row per chapter run under ``runs`` (``<model>/<profile>/<chapter>/manifest.json``)."""
    rows = []
    for path in sorted(runs.glob("*/*/*/manifest.json")):
        m = json.loads(path.read_text())
        usage = m.get("usage") or {}
        rows.append({"chapter": m["chapter"], "model": m["model"], "profile": m["profile"],
                     "calls": usage.get("calls", 0), "recorded_h": (usage.get("latency_s") or 0.0) / 3600})
    return pd.DataFrame(rows)


def headline(size_axis: Path) -> pd.DataFrame:
    """The synthesis's headline comparison per family and model: the difference with its interval, its n."""
    from lcrag.synthesis.family import format_diff

    d = pd.read_csv(size_axis)
    diffs = [format_diff(*x) for x in zip(d["diff"], d["ci_low"], d["ci_high"], strict=True)]
    return pd.DataFrame({"chapter": d["family"], "model": d["model"], "comparison": d["comparison"],
                         "long minus other": diffs, "n": d["n"].astype(str) + " " + d["units"],
                         "reading": d["reading"]})


def report(runs: Path) -> str:
    table = run_rows(runs)
    axis = next(iter(sorted(runs.glob("*/*/synthesis/size_axis.csv"))), None)
    if axis is not None:
        table = table.merge(headline(axis), on=["chapter", "model"], how="outer")  # the needle page: four models
    table = table[table["chapter"] != "synthesis"].sort_values(["chapter", "model", "profile"], na_position="first")
    table["recorded_h"] = table["recorded_h"].round(2)
    table["profile"] = table["profile"].fillna("(inside the page's run)")
    return table.astype(object).fillna("").to_markdown(index=False)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=Path, default=ROOT / "runs")
    print(report(p.parse_args().runs))


if __name__ == "__main__":
    main()
