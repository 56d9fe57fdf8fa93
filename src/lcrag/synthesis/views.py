"""Every family's comparisons for every model (:func:`synthesize`), and the views the synthesis chapter shows.

    syn = synthesize(profiles=["default"])
    syn.comparisons            # one row per model x comparison
    overview(syn)              # family x model: the reading of each headline comparison
    model_view(syn, model)     # every comparison of one model
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from lcrag.models.registry import parameters, size_of, title_of
from lcrag.synthesis.family import (
    COMPARISON_COLUMNS,
    NOT_RUN,
    NOT_TESTABLE,
    UNCORROBORATED,
    UNCORROBORATED_NOTE,
    Family,
    format_diff,
    items,
    short_title,
)
from lcrag.synthesis.family import families as registered_families
from lcrag.synthesis.runs import find_runs

NO_COMPARISON = "run, but without both arms of a comparison"


def size_order(models: list[str], first: str | None = None) -> list[str]:
    """Models of known size, largest first, then the others in their order; ``first`` (the page's model), when
    among them, before all."""
    sized = sorted((m for m in models if size_of(m)), key=lambda m: -parameters(size_of(m)))
    ordered = sized + [m for m in models if not size_of(m)]
    return sorted(ordered, key=lambda m: m != first) if first in ordered else ordered


@dataclass
class Synthesis:
    """Every family's tables, the comparisons, the runs they came from and what could not be read."""

    runs: pd.DataFrame
    tables: dict[str, pd.DataFrame]
    comparisons: pd.DataFrame
    problems: list[str] = field(default_factory=list)
    families: list[Family] = field(default_factory=list)
    first: str | None = None  # the page's model: first in :attr:`models` when among them

    @property
    def models(self) -> list[str]:
        """Every model in the runs or in their tables (run models, then models found inside runs), in
        :func:`size_order` (:attr:`first`, then the largest first): the order of every table of the synthesis."""
        own = list(dict.fromkeys(self.runs["model"]))
        inside = [m for t in self.tables.values() if "model" in t for m in t["model"].unique()]
        return size_order(own + sorted(set(inside) - set(own)), self.first)

    def family(self, name: str) -> Family:
        for f in self.families:
            if f.name == name:
                return f
        raise LookupError(f"no family {name!r}; the families are: {', '.join(f.name for f in self.families)}")


def synthesize(
    root: Path | None = None,
    profiles: Sequence[str] = ("default",),
    n_boot: int = 2000,
    seed: int = 0,
    families: Sequence[Family] | None = None,
    first: str | None = None,
) -> Synthesis:
    """Read the latest successful runs of the families' chapters (``profiles``, earlier ones win) and compare.

    ``families`` defaults to every registered family (:func:`lcrag.synthesis.families`), in their order: each
    reads its tables, then each compares its arms. ``first``: the model every table shows first (:attr:`Synthesis.first`)."""
    fams = registered_families() if families is None else list(families)
    syn = compare_runs(find_runs(root, profiles, chapters=[f.name for f in fams]), fams, n_boot, seed)
    syn.first = first
    return syn


def compare_runs(runs: pd.DataFrame, fams: Sequence[Family], n_boot: int = 2000, seed: int = 0) -> Synthesis:
    """Each family reads its tables from ``runs`` (rows of :data:`~lcrag.synthesis.runs.RUN_COLUMNS`), then each
    compares its arms: :func:`synthesize` on runs found on disk, or a chapter's own run (:mod:`lcrag.book.findings`)."""
    fams = list(fams)
    problems: list[str] = []
    tables: dict[str, pd.DataFrame] = {}
    for f in fams:
        own = f.tables(runs, problems, n_boot, seed)
        stray = [k for k in own if k != f.name and not k.startswith(f"{f.name}_")]
        if stray or f.name not in own:
            raise ValueError(f"family {f.name!r} must return a table {f.name!r} and others named "
                             f"'{f.name}_<what>', not {list(own)}")
        tables.update(own)
    rows = [row for f in fams for row in f.compare(runs, tables, problems, n_boot, seed)]
    comparisons = pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))
    return Synthesis(runs=runs, tables=tables, comparisons=comparisons, problems=problems, families=fams)


def ran_without_comparison(syn: Synthesis, family: Family, model: str) -> str | None:
    """The source of ``family``'s rows for ``model`` when it ran but gave no comparison (e.g. Long²RAG without
    the whole-document variant), else None."""
    c = syn.comparisons
    if ((c["family"] == family.name) & (c["model"] == model)).any():
        return None
    t = syn.tables[family.model_rows]
    rows = t[t["model"] == model] if "model" in t else t.iloc[0:0]
    return str(rows["source"].iloc[0]) if len(rows) else None


def coverage(syn: Synthesis) -> pd.DataFrame:
    """Family x model: which run each model's numbers come from, or "not run yet"."""
    out = pd.DataFrame(NOT_RUN, index=[f.name for f in syn.families], columns=syn.models)
    for r in syn.comparisons.itertuples():
        out.loc[r.family, r.model] = r.source
    for family in syn.families:
        for model in syn.models:
            src = ran_without_comparison(syn, family, model)
            if src:
                out.loc[family.name, model] = f"{src}; {NO_COMPARISON}"
    out.index.name = "family"
    return out


def headline(syn: Synthesis) -> pd.DataFrame:
    """One comparison per model and family (its :attr:`Family.headline` rule, or its :attr:`Family.headline_pick`):
    long context against plain retrieval (:func:`headline_rules` says which, per family)."""
    c = syn.comparisons
    fams = {f.name: f for f in syn.families}
    picks = []
    for (family, _), g in c.groupby(["family", "model"], sort=False):
        if fams[family].headline_pick is not None:
            picks.append(fams[family].headline_pick(g))
            continue
        preferred = g[g["other_arm"].map(fams[family].headline)]
        picks.append((preferred if len(preferred) else g).iloc[0])
    return pd.DataFrame(picks, columns=c.columns).reset_index(drop=True)


def headline_rules(syn: Synthesis) -> str:
    """Which comparison is each experiment's headline, as its family declares it (:attr:`Family.headline_rule`):
    markdown, one item per experiment."""
    return "\n".join(f"- {short_title(f.title)}: {f.headline_rule or 'the one its package picks (no rule stated in words)'}." for f in syn.families)


def headline_items(r: Mapping) -> str:
    """The items a comparison row (of :func:`headline`: a Series or a dict) rests on, with the items left out and the long-context
    arm's cut where there are (:func:`lcrag.synthesis.items`)."""
    return items(r["n"], r["units"], r.get("scope", ""), r["long_arm"], r.get("long_context", ""))


def overview(syn: Synthesis) -> pd.DataFrame:
    """Family x model: the headline comparison's reading and difference ``[95 % CI]`` and the items it rests on
    (:func:`headline_items`), or "not run yet"."""
    out = pd.DataFrame(NOT_RUN, index=[f.name for f in syn.families], columns=syn.models)
    for family in syn.families:
        for model in syn.models:
            if ran_without_comparison(syn, family, model):
                out.loc[family.name, model] = NO_COMPARISON
    for r in headline(syn).itertuples():
        out.loc[r.family, r.model] = (
            f"{r.reading}: {r.long_arm} − {r.other_arm} = "
            f"{format_diff(r.diff, r.ci_low, r.ci_high)}, {headline_items(r._asdict())}"
        )
    out.index = [syn.family(f).title for f in out.index]
    out.index.name = "experiment (long context vs other arm)"
    return out


def detail_table(syn: Synthesis, family: str) -> pd.DataFrame:
    """A family's table for every model (values rounded to 3 places; a value the run could not compute, e.g.
    SummHay's citation score when no insight was covered, is left missing: the page shows it as a dash,
    :data:`lcrag.book.reading.NO_VALUE`), or one "not run yet" row."""
    t = syn.tables[family]
    if t.empty:
        return pd.DataFrame({"status": [NOT_RUN]}, index=pd.Index([family], name="experiment"))
    index = list(syn.family(family).detail_index)
    order = {m: i for i, m in enumerate(syn.models)}  # the synthesis's model order; rows within a model as run
    t = t.sort_values("model", key=lambda s: s.map(order), kind="stable") if "model" in t else t
    return t.drop(columns=["source"], errors="ignore").set_index(index).round(3)


def detail_note(syn: Synthesis, family: str) -> str:
    """What the family's detail table needs said of these runs (its :attr:`Family.detail_note` of the tables), ""
    when nothing (or the family has no note)."""
    note = syn.family(family).detail_note
    return note(syn.tables) if note else ""


def detail(syn: Synthesis, family: str) -> list:
    """What the page shows of a family in detail, for ``display(*detail(...))``: its :func:`detail_note` as
    markdown when it has one (an empty one would print the object's name), then its :func:`detail_table`."""
    from IPython.display import Markdown

    note = detail_note(syn, family)
    return [Markdown(note)] * bool(note) + [detail_table(syn, family)]


def model_view(syn: Synthesis, model: str) -> pd.DataFrame:
    """Every comparison of one model, readable: arms, values and what they are (``values``: the means over the items
    compared, unless the comparison says otherwise, e.g. SummHay's micro-averages), difference [95 % CI], reading,
    evidence (the sources are in :func:`coverage`); a "not run yet" row for each family without one, indexed by
    family."""
    c = syn.comparisons[syn.comparisons["model"] == model]
    rows = []
    for family in syn.families:
        part = c[c["family"] == family.name]
        if part.empty:
            status = NO_COMPARISON if ran_without_comparison(syn, family, model) else NOT_RUN
            rows.append(
                {
                    "experiment": family.name,
                    "comparison": status,
                    "long context": "",
                    "other": "",
                    "values": "",
                    "difference [95 % CI]": "",
                    "reading": status,
                    "evidence": "",
                }
            )
        for r in part.itertuples():
            values = r.values if isinstance(r.values, str) and r.values else ""
            rows.append({
                "experiment": family.name, "comparison": r.comparison,
                "long context": f"{r.long_arm} {100 * r.long_value:.1f} %",
                "other": f"{r.other_arm} {100 * r.other_value:.1f} %",
                "values": values or f"means over {items(r.n, r.units, r.scope)}",
                "difference [95 % CI]": format_diff(r.diff, r.ci_low, r.ci_high), "reading": r.reading,
                "evidence": r.evidence,
            })  # fmt: skip
    return pd.DataFrame(rows).set_index("experiment")


def headline_of(h: pd.DataFrame, syn: Synthesis, family: Family, model: str) -> tuple[pd.Series | None, str]:
    """``family``'s headline row for ``model`` in ``h`` (:func:`headline`) and "", or None and why there is none
    (:data:`NO_COMPARISON` or "not run yet")."""
    r = h[(h["model"] == model) & (h["family"] == family.name)] if len(h) else h
    if len(r):
        return r.iloc[0], ""
    return None, NO_COMPARISON if ran_without_comparison(syn, family, model) else NOT_RUN


def at_floor_instead(syn: Synthesis, family: Family, model: str, head: pd.Series) -> pd.Series | None:
    """Where ``head`` (``family``'s headline for ``model``) is at the floor, the comparison the family reports
    instead (:attr:`Family.at_floor`: the first of the model's that passes it and is above the floor), else None."""
    if family.at_floor is None or head["reading"] != NOT_TESTABLE:
        return None
    c = syn.comparisons
    c = c[(c["family"] == family.name) & (c["model"] == model) & (c["reading"] != NOT_TESTABLE)]
    picked = [r for _, r in c.iterrows() if family.at_floor(r)]
    return picked[0] if picked else None


def instead_words(family: Family, r: pd.Series, label: bool = True) -> str:
    """``on Coverage alone: no clear difference, Full 28.3 − vector 35.1 = -6.8 pp [-18.1, +1.1], means over 9
    subtopics``: the comparison :func:`at_floor_instead` picked, in words, its arms' values beside their difference
    and what those values are (means over the items compared, unless the row's ``values`` says otherwise). The
    long-context arm is named by :meth:`Family.arm_label` (what it read), or by its name alone without ``label``
    (where the sentence before has just said what it read)."""
    values = r.get("values", "")
    values = values if isinstance(values, str) else ""  # (a missing text cell reads as NaN)
    over = f"{headline_items(r)}; values: {values}" if values else f"means over {headline_items(r)}"
    arm = family.arm_label(r) if label else r["long_arm"]
    return (f"{family.at_floor_name}: {r['reading']}, {arm} {100 * r['long_value']:.1f} − "
            f"{r['other_arm']} {100 * r['other_value']:.1f} = {format_diff(r['diff'], r['ci_low'], r['ci_high'])}, "
            f"{over}")


def conclusions(syn: Synthesis, model: str, others: bool = True) -> list[str]:
    """One sentence per family for ``model``, from its headline comparison (or "not run yet"), its long-context arm
    named by :meth:`Family.arm_label` (what it read, where its name alone would mislead); with ``others``, a
    family's other comparisons where they decide with its headline (:func:`other_comparisons`)."""
    h = headline(syn)
    lines = []
    for family in syn.families:
        r, status = headline_of(h, syn, family, model)
        if r is None:
            lines.append(f"{family.title}: {status}.")
            continue
        line = (f"{family.title}: **{r['reading']}**; {family.arm_label(r)} − {r['other_arm']} = "
                f"{format_diff(r['diff'], r['ci_low'], r['ci_high'])} ({r['evidence']}).")
        instead = at_floor_instead(syn, family, model, r)
        if instead is not None:
            words = instead_words(family, instead, label=False)  # the headline has just said what it read
            line += f" {words[0].upper()}{words[1:]}."
        if others and family.others_in_answer:
            line += other_comparisons(syn, family, model, r)
        lines.append(line)
    return lines


def other_comparisons(syn: Synthesis, family: Family, model: str, head: pd.Series) -> str:
    """`` The other comparisons: whole − trunc512 = +11.9 pp [+7.2, +17.7], **whole better**; ...``: the rest of
    ``family``'s comparisons of ``model`` beside its headline ``head``, each with its difference and reading (the
    decided ones in bold), in the family's order; "" when there is none. For a family whose headline is one of
    several that decide together (:attr:`Family.others_in_answer`: Long²RAG's cuts, of which the headline is the one
    least favourable to whole documents), so that a cut that does differ is not hidden behind one that does not."""
    c = syn.comparisons
    c = c[(c["family"] == family.name) & (c["model"] == model) & (c["other_arm"] != head["other_arm"])]
    if c.empty:
        return ""
    parts = [f"{r.long_arm} − {r.other_arm} = {format_diff(r.diff, r.ci_low, r.ci_high)}, "
             + (f"**{r.reading}**" if r.reading in (f"{r.long_arm} better", f"{r.other_arm} better") else r.reading)
             + (f": {_why_uncorroborated(r.evidence)}" if r.reading == UNCORROBORATED else "")
             for r in c.itertuples()]
    return " The other comparisons: " + "; ".join(parts) + "."


def _why_uncorroborated(evidence: str) -> str:
    """Why a comparison is :data:`~lcrag.synthesis.family.UNCORROBORATED`, from its evidence (the text after
    :data:`~lcrag.synthesis.family.UNCORROBORATED_NOTE`), "" when it does not say."""
    return str(evidence).partition(UNCORROBORATED_NOTE)[2]


def model_summary(syn: Synthesis, model: str) -> str:
    """The model's name and its :func:`conclusions` as a Markdown list (shown above its :func:`model_view`)."""
    return f"**{title_of(model)}** (`{model}`)\n\n" + "\n".join(f"- {line}" for line in conclusions(syn, model))
