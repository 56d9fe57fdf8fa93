"""Claims ledger: each chapter checks the paper's headline claims against its own numbers.

A verdict is computed, never typed. A chapter states the claim, the paper's value and ours, and
passes the *outcome of a test* (``True``/``False``, or ``None`` when the test cannot decide)::

    ledger = ClaimsLedger(None, paper="thesis")        # chapter and model from the runner's env
    ledger.check("H1", "RAG beats full context on MeetingQA",
                 paper_value=0.61, our_value=acc_rag - acc_full,
                 passed=greater(acc_rag, acc_full, ci=diff_ci),
                 evidence="accuracy, 158 cases, paired bootstrap 95% CI")
    ledger.save()           # claims.csv in the run directory
    ledger.table()          # a DataFrame to show in the chapter

The book's "Synthesis" page collects every chapter's ``claims.csv`` (see :func:`summary_markdown`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lcrag import chapters, config
from lcrag.book.verdicts import SOURCES, source_of

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
NOT_TESTABLE = "not testable with this model"  # an arm at the floor (lcrag.book.verdicts.floor_reason)
VERDICTS: tuple[str, ...] = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_TESTABLE)

CLAIMS_FILE = "claims.csv"
COLUMNS = (
    "chapter",
    "claim_id",
    "paper",
    "text",
    "paper_value",
    "our_value",
    "model",
    "source",
    "verdict",
    "evidence",
    "anchor",
)


def verdict(passed: bool | None) -> str:
    """``True`` -> reproduced, ``False`` -> not reproduced, ``None`` -> inconclusive.

    Anything else (a string, a number) is a TypeError: a verdict comes from a computed test.
    """
    if passed is None:
        return INCONCLUSIVE
    if isinstance(passed, np.bool_):  # from a numpy or pandas comparison
        passed = bool(passed)
    if not isinstance(passed, bool):
        raise TypeError(f"passed must be True, False or None (a test's outcome), not {passed!r}")
    return REPRODUCED if passed else NOT_REPRODUCED


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def within(our: float | None, paper: float | None, tol: float, *, relative: bool = False) -> bool | None:
    """Is ``our`` within ``tol`` of ``paper``? (``tol * |paper|`` when ``relative``.)

    None when either value is missing (None or NaN): nothing to compare.
    """
    if _missing(our) or _missing(paper):
        return None
    if tol < 0:
        raise ValueError(f"tol must be >= 0, not {tol}")
    bound = tol * abs(paper) if relative else tol
    return bool(abs(our - paper) <= bound)


def greater(
    a: float | None,
    b: float | None,
    margin: float = 0.0,
    ci: tuple[float, float] | None = None,
) -> bool | None:
    """Is ``a`` greater than ``b`` by more than ``margin``?

    Without ``ci``, compares the point values: ``a - b > margin``.
    With ``ci = (lo, hi)``, a confidence interval for the difference ``a - b``, the answer is only
    decided when the interval clears the margin: ``lo > margin`` -> True, ``hi <= margin`` -> False,
    and None (inconclusive) when the interval contains the margin.
    None also when ``a`` or ``b`` is missing.
    """
    if _missing(a) or _missing(b):
        return None
    if ci is not None:
        lo, hi = ci
        if _missing(lo) or _missing(hi):
            return None
        if lo > hi:
            raise ValueError(f"confidence interval must be (lo, hi) with lo <= hi, not {ci}")
        if lo > margin:
            return True
        if hi <= margin:
            return False
        return None
    return bool(a - b > margin)


def less(
    a: float | None,
    b: float | None,
    margin: float = 0.0,
    ci: tuple[float, float] | None = None,
) -> bool | None:
    """Is ``a`` less than ``b`` by more than ``margin``? ``ci`` is for the difference ``a - b``."""
    flipped = None if ci is None else (-ci[1], -ci[0])
    return greater(b, a, margin, flipped)


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, checked on our numbers."""

    chapter: str
    claim_id: str
    paper: str
    text: str
    paper_value: Any
    our_value: Any
    model: str
    verdict: str
    evidence: str = ""
    anchor: str = ""  # a MyST label in the chapter, e.g. "thesis-h1", for links from the summary
    source: str = ""  # where the evidence comes from: one of lcrag.book.verdicts.SOURCES


class ClaimsLedger:
    """The claims one chapter checks, for one paper and one model.

    ``chapter`` and ``model`` default to the runner's ``LCRAG_CHAPTER`` and ``LCRAG_MODEL``; ``source`` (where
    the evidence comes from, :data:`lcrag.book.verdicts.SOURCES`) defaults to what ``model`` names: the paper's
    tables, its released artefacts, or a run of that model. Checking the same ``claim_id`` again replaces the
    earlier entry (a re-executed cell).
    """

    def __init__(self, chapter: str | None, paper: str, model: str | None = None, source: str | None = None):
        self.chapter = chapter or config.chapter() or "unknown"
        self.paper = paper
        self.model = model or config.default_model()
        self.source = _checked_source(source or source_of(self.model))
        self._claims: dict[str, Claim] = {}

    def check(
        self,
        claim_id: str,
        text: str,
        paper_value: Any,
        our_value: Any,
        passed: bool | None,
        evidence: str = "",
        anchor: str = "",
        floor: str | None = None,
        source: str | None = None,
    ) -> Claim:
        """Record a claim with the verdict that ``passed`` (a computed test's outcome) implies, or *not testable
        with this model* when ``floor`` gives a reason (an arm at the floor: :func:`lcrag.book.verdicts.
        floor_reason`), whatever the test said. ``source`` overrides the ledger's for this claim (e.g. a
        check in a model's ledger that needs no model)."""
        if floor:
            evidence = f"{evidence}; at the floor: {floor}" if evidence else f"at the floor: {floor}"
        claim = Claim(
            chapter=self.chapter,
            claim_id=str(claim_id),
            paper=self.paper,
            text=text,
            paper_value=paper_value,
            our_value=our_value,
            model=self.model,
            verdict=NOT_TESTABLE if floor else verdict(passed),
            evidence=evidence,
            anchor=anchor,
            source=_checked_source(source or self.source),
        )
        self._claims[claim.claim_id] = claim
        return claim

    @property
    def claims(self) -> list[Claim]:
        return list(self._claims.values())

    def table(self) -> pd.DataFrame:
        """One row per claim, in the order they were checked."""
        return pd.DataFrame([asdict(c) for c in self.claims], columns=list(COLUMNS))

    def counts(self) -> dict[str, int]:
        """Number of claims per verdict (every verdict present)."""
        return {v: sum(c.verdict == v for c in self.claims) for v in VERDICTS}

    def save(self, path: Path | None = None) -> Path:
        """Write ``claims.csv`` to ``path``, else the run directory, else the working directory."""
        path = Path(path) if path else (config.run_dir() or Path.cwd()) / CLAIMS_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        self.table().to_csv(path, index=False)
        return path


def _checked_source(source: str) -> str:
    if source not in SOURCES:
        raise ValueError(f"a claim's source must be one of {SOURCES}, not {source!r}")
    return source


def save_ledgers(ledgers: list[ClaimsLedger], path: Path | None = None) -> Path:
    """Write several ledgers of one chapter (e.g. one per model, or the paper's tables and our runs) as one
    ``claims.csv``, in order; a claim id checked in two ledgers keeps both rows (their models differ)."""
    path = Path(path) if path else (config.run_dir() or Path.cwd()) / CLAIMS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.concat([ledger.table() for ledger in ledgers], ignore_index=True).to_csv(path, index=False)
    return path


def read_claims(path: Path) -> pd.DataFrame:
    """Read a ``claims.csv``; raise ValueError naming the file if columns or verdicts are wrong."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}")
    for column, allowed in (("verdict", VERDICTS), ("source", SOURCES)):
        bad = df.loc[~df[column].isin(allowed)]
        if len(bad):
            row = int(bad.index[0]) + 2  # header is line 1
            raise ValueError(f"{path} line {row}: {column} {bad[column].iloc[0]!r} is not one of {allowed}")
    return df[list(COLUMNS)]


def verdict_counts(df: pd.DataFrame, by: str = "paper") -> pd.DataFrame:
    """Claims per ``by`` (paper, or source) and verdict (every verdict as a column) with a total row."""
    counts = pd.crosstab(df[by], df["verdict"]).reindex(columns=list(VERDICTS), fill_value=0)
    if by == "source":
        counts = counts.reindex([s for s in SOURCES if s in counts.index])
    counts.loc[f"all {by}s" if by != "source" else "all sources"] = counts.sum()
    counts["total"] = counts.sum(axis=1)
    return counts


def paper_name(key: str, short: bool = False) -> str:
    """How the claims page names a paper (``ClaimsLedger(paper=key)``): its registered name, or ``short`` name
    for the dashboard's paper column (:mod:`lcrag.chapters`); the key itself for a paper nobody registered."""
    try:
        paper = chapters.paper(str(key))
    except LookupError:
        return str(key)
    return paper.short if short else paper.name


def _md(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


DASHBOARD_ID = "claims-dashboard"  # the HTML id of the table of every claim, for the filter script
#: Columns of the dashboard table, in order (the filter script finds paper, model and verdict by position).
DASHBOARD_COLUMNS = (
    "paper",
    "claim",
    "claim text",
    "paper's number",
    "our number",
    "model",
    "source",
    "verdict",
    "evidence",
    "checked in",
)


def _options(values: list[str]) -> str:
    from html import escape

    return '<option value="">all</option>' + "".join(
        f'<option value="{escape(v)}">{escape(v)}</option>' for v in values
    )


def _filter_controls(df: pd.DataFrame) -> list[str]:
    """The raw-HTML filter bar above the dashboard (no blank line inside: one HTML block)."""
    papers = [paper_name(p, short=True) for p in dict.fromkeys(df["paper"])]
    models = sorted(set(df["model"].astype(str)))
    verdicts = [v for v in VERDICTS if v in set(df["verdict"])]
    sources = [s for s in SOURCES if s in set(df["source"])]
    return [
        '<div class="claims-filter" style="display:flex;flex-wrap:wrap;gap:0.5em 1.5em;margin:0.5em 0 1em 0">',
        f'<label>paper <select id="{DASHBOARD_ID}-paper">{_options(papers)}</select></label>',
        f'<label>verdict <select id="{DASHBOARD_ID}-verdict">{_options(verdicts)}</select></label>',
        f'<label>source <select id="{DASHBOARD_ID}-source">{_options(sources)}</select></label>',
        f'<label>model <select id="{DASHBOARD_ID}-model">{_options(models)}</select></label>',
        f'<label>text <input id="{DASHBOARD_ID}-text" type="search" placeholder="words in any column"></label>',
        f'<output id="{DASHBOARD_ID}-count" aria-live="polite"></output>',
        "</div>",
    ]


#: A denser table than the theme's default: nine columns share the page's width.
_DASHBOARD_STYLE = (
    f"<style>#{DASHBOARD_ID} {{font-size: 0.8em;}} #{DASHBOARD_ID} td, #{DASHBOARD_ID} th "
    "{padding: 0.25em 0.4em; vertical-align: top;}</style>"
)

#: Filters the dashboard's rows in the browser: plain JavaScript, no library, nothing fetched.
_FILTER_SCRIPT = """<script>
(function () {
  var ID = "%(id)s", COLS = {paper: %(paper)d, model: %(model)d, source: %(source)d, verdict: %(verdict)d};
  var VERDICTS = %(verdicts)s;
  var holder = document.getElementById(ID);
  if (!holder) { return; }
  var table = holder.tagName === "TABLE" ? holder : holder.querySelector("table");
  if (!table) { return; }
  var rows = Array.prototype.slice.call(table.querySelectorAll("tbody tr"));
  var control = function (name) { return document.getElementById(ID + "-" + name); };
  var cell = function (row, i) { return row.cells[i] ? row.cells[i].textContent.trim() : ""; };
  function apply() {
    var text = (control("text").value || "").toLowerCase(), counts = {}, shown = 0;
    rows.forEach(function (row) {
      var keep = Object.keys(COLS).every(function (name) {
        var want = control(name).value;
        return !want || cell(row, COLS[name]) === want;
      }) && (!text || row.textContent.toLowerCase().indexOf(text) !== -1);
      row.style.display = keep ? "" : "none";
      if (keep) { shown += 1; counts[cell(row, COLS.verdict)] = (counts[cell(row, COLS.verdict)] || 0) + 1; }
    });
    control("count").textContent = "showing " + shown + " of " + rows.length + " claims: " +
      VERDICTS.map(function (v) { return (counts[v] || 0) + " " + v; }).join(", ");
  }
  ["paper", "verdict", "model", "source"].forEach(function (name) {
    control(name).addEventListener("change", apply);
  });
  control("text").addEventListener("input", apply);
  apply();
})();
</script>"""


def summary_markdown(df: pd.DataFrame, failed: list[str] | None = None, title: str = "Claims") -> str:
    """The claims dashboard: verdict counts per paper, then every claim in one filterable table.

    ``df`` concatenates the ``claims.csv`` of the runs used in the book; ``failed`` names chapters
    whose run failed (their claims are not counted, and the page says so). Each claim links to the
    section of the chapter that checks it (its ``anchor``, a MyST label) and to the chapter. In the
    HTML page a filter bar (paper, verdict, model, free text) hides rows and recounts the verdicts;
    it is a small inline script that needs no network.
    """
    import json

    lines = [f"# {title}", ""]
    lines.append(
        "Every claim below was checked by a chapter of this book: the chapter computed our value and a "
        "test, and the verdict follows from the test's outcome under the rules of {doc}`/book/verdicts` "
        "(*inconclusive* when the test could not decide, e.g. a confidence interval that straddles "
        "the threshold; *not testable with this model* when an arm it compares is at the floor). Numbers are "
        "from the runs that produced the pages of this build."
    )
    lines.append("")
    if failed:
        lines += [
            "```{warning}",
            f"These chapters failed in this build and their claims are not counted: {', '.join(failed)}.",
            "```",
            "",
        ]
    if df.empty:
        lines.append("No chapter has checked a claim yet.")
        return "\n".join(lines) + "\n"
    counts = verdict_counts(df)
    lines += ["## Verdicts per paper", ""]
    lines.append("| paper | " + " | ".join(counts.columns) + " |")
    lines.append("|---" * (len(counts.columns) + 1) + "|")
    for paper, row in counts.iterrows():
        lines.append(
            f"| {_md(paper_name(paper))} | " + " | ".join(str(int(v)) for v in row) + " |"
        )
    by_source = verdict_counts(df, by="source")
    lines += ["", "## Verdicts per source of evidence", ""]
    lines.append(
        "Where each verdict's evidence comes from ({doc}`/book/verdicts` states the rules): arithmetic on the papers' own "
        "tables, the papers' released artefacts, our runs of a model, or computation that needs no model."
    )
    lines += ["", "| source | " + " | ".join(by_source.columns) + " |", "|---" * (len(by_source.columns) + 1) + "|"]
    for source, row in by_source.iterrows():
        lines.append(f"| {_md(source)} | " + " | ".join(str(int(v)) for v in row) + " |")
    lines += ["", "## All claims", ""]
    lines.append(
        "One row per claim and model (a chapter may check a claim on the paper's own tables and on our runs). "
        "*claim* links to the section that checks it, *checked in* to the chapter. In the HTML page, the "
        "filters below hide rows and recount the verdicts."
    )
    lines += ["", _DASHBOARD_STYLE, "", *_filter_controls(df), ""]
    lines += ["```{table} Every claim of the four papers, with its verdict", f":name: {DASHBOARD_ID}", ""]
    lines.append("| " + " | ".join(DASHBOARD_COLUMNS) + " |")
    lines.append("|---" * len(DASHBOARD_COLUMNS) + "|")
    for r in df.itertuples(index=False):
        claim = f"{{ref}}`{_md(r.claim_id)} <{r.anchor}>`" if r.anchor else _md(r.claim_id)
        cells = [
            _md(paper_name(r.paper, short=True)),
            claim,
            _md(r.text),
            _md(r.paper_value),
            _md(r.our_value),
            _md(r.model),
            _md(r.source),
            f"**{r.verdict}**",
            _md(r.evidence),
            f"{{doc}}`{r.chapter}`",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["```", ""]
    index = {name: DASHBOARD_COLUMNS.index(name) for name in ("paper", "model", "source", "verdict")}
    lines.append(_FILTER_SCRIPT % {"id": DASHBOARD_ID, "verdicts": json.dumps(list(VERDICTS)), **index})
    return "\n".join(lines) + "\n"
