"""Long²RAG's claims C1-C21 (inventory): decided on the paper's own tables, or on our runs.

- :func:`paper_claims` decides the claims about the paper's numbers (C1-C5, C9, C12, C13, C15, C16, C19) on its
  tables (:mod:`.numbers`), records those whose values it prints only in figures as *not checked (values only in a
  figure)* (:data:`lcrag.book.claims.FIGURE_ONLY_VERDICT`), and the rest as *not testable (data not released)*
  (:data:`lcrag.book.claims.UNRELEASED`), with what is missing.
- :func:`run_claims` decides the behavioural ones on our runs (truncation lowers KPR, KPR falls with input length,
  two judges rank alike, ...) with 95 % bootstrap intervals; the length trends (C10, C14) are
  :mod:`.trend_claims`'s.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from lcrag.data.long2rag import CATEGORIES
from lcrag.metrics.kpr import question_kpr_wide
from lcrag.papers.long2rag.checks import table3_correlations
from lcrag.papers.long2rag.numbers import PAPER_NUMBERS, paper_table1_wide, paper_table2, paper_table4
from lcrag.papers.long2rag.trend_claims import (  # noqa: F401
    LEXICAL_INPUT_NOTE,
    LEXICAL_LENGTH_NOTE,
    _verdict,
    lexical_pair,
    trend_claim,
)
from lcrag.stats import signed_interval

PAPER_TABLES_MODEL = "the paper's published tables"
#: The Spearman correlation of Table 3's two evaluators: computed by us from the table (the paper prints no rho).
TABLE3_SPEARMAN = round(table3_correlations()["spearman"], 3)
#: C15 on the paper's tables: "only a minor position swap" (§5.8) is one swap of two adjacent models, so at most
#: two models whose rank changes between the evaluators.
ONE_SWAP = 2
#: The paper's two evaluators' agreement as our runs' C15 evidence gives it: the rho we compute from its Table 3.
TABLE3_DERIVED = f"rho {TABLE3_SPEARMAN:.3f}, computed by us from the paper's Table 3 (the paper prints none)"
API_MODELS = ("GPT-4o", "GPT-4-Turbo", "Claude-3-Sonnet")
#: The models of the paper's Fig. 5, in its legend's order (C9 gives their ranks in this order).
FIG5_MODELS = ("GPT-4o", "Claude-3-Sonnet", "Qwen2-72B", "Mixtral-8x22B", "Qwen2-7B", "Phi-3-mini-128K")


#: The untruncated variant (``none``, as the data and prompts key it) as readers see it: claims C12/C13, the floor
#: reasons and the synthesis's comparisons, tables and figure.
WHOLE = "whole"

#: Why the summary's place in Table 2 is ours, not a claim of the paper: §5.6 says it used GPT-4o "to obtain the
#: snippet and summary of the retrieved documents" and concludes only on truncation and the snippet.
SUMMARY_UNCLAIMED = "§5.6 names the summary among its processing methods but draws no conclusion about it"


def variant_names(variants) -> str:
    """The document variants as readers see them, the untruncated one (``none`` in the data) as :data:`WHOLE`:
    ``"whole, trunc512, snippet"`` (the chapter's scope in its claims' evidence)."""
    return ", ".join(WHOLE if v == "none" else v for v in variants)


def figure_words(fig: str, kind: str) -> str:
    """What a claim whose values the paper prints only in ``fig`` lacks (``ClaimsLedger.check``'s ``figure_only``):
    the plot's numbers, which the text of the paper this book reads does not hold, and the data to recompute them."""
    return (f"the paper's {fig} ({kind}: the values are printed in the paper, but our text of it holds no numbers for "
            "the figure, and this book has not read them off the plot); the real data set is not public, so no run "
            "recomputes them")


def ranks_in_order(ranks: Mapping[str, int]) -> str:
    """C9's ranks of Comparative among each model's categories, written as its paper value in claims.csv is:
    ``"ranks 1, 1, 1, 3, 2, 3 in the order GPT-4o, ..."``, the models in ``ranks``' order."""
    return f"ranks {', '.join(str(r) for r in ranks.values())} in the order {', '.join(ranks)}"


def paper_claims(ledger):
    """Decide the claims about the paper's numbers (C1-C5, C9, C12, C13, C15, C16, C19) on its own tables, and
    record the rest of C1-C21: values only in the paper's figures (not checked) or data never released. The
    ledger should carry ``model=PAPER_TABLES_MODEL``. Each claim's text and the paper's value are
    long2rag/claims.csv's (read from its tables and the numbers its text states, :mod:`.numbers`), never retyped."""
    n = PAPER_NUMBERS
    t1 = paper_table1_wide()
    avg = t1["Average"]
    open_models = [m for m in t1.index if m not in API_MODELS]
    ev = "Table 1 as printed (long2rag-paper.txt)"
    ledger.check("C1", our_value=f"best: {avg.idxmax()} {avg.max():.3f}", passed=avg.idxmax() == "GPT-4o", evidence=ev)
    lo_api, hi_open = avg[list(API_MODELS)].min(), avg[open_models].max()
    ledger.check("C2", our_value=f"{lo_api:.3f} vs {hi_open:.3f}", passed=bool(lo_api > hi_open), evidence=ev)
    q = [avg["Qwen2-1.5B"], avg["Qwen2-7B"], avg["Qwen2-72B"]]
    ledger.check("C3", our_value=" < ".join(f"{x:.3f}" for x in q), passed=bool(q[0] < q[1] < q[2]), evidence=ev)
    phi, mix, qw = avg["Phi-3-mini-128K"], avg["Mixtral-8x22B"], avg["Qwen2-72B"]
    ledger.check("C4", our_value=f"Phi-3 - Mixtral {phi - mix:+.3f}; Phi-3 - Qwen2-72B {phi - qw:+.3f}",
                 passed=bool(phi > mix and abs(phi - qw) <= ledger.tolerance("C4") and phi < qw), evidence=ev)
    best = t1[list(CATEGORIES)].idxmax()
    ledger.check("C5", our_value=f"{int((best == 'GPT-4o').sum())} of 8", passed=bool((best == "GPT-4o").all()), evidence=ev)
    for cid in ("C6", "C7", "C8"):
        ledger.check(cid, our_value=None, figure_only=figure_words("Fig. 4", "a radar plot"))
    ranks = {m: int(t1.loc[m, list(CATEGORIES)].rank(ascending=False, method="min")["Comparative"])
             for m in FIG5_MODELS}
    top3 = sum(r <= 3 for r in ranks.values())
    ledger.check("C9", our_value=f"{ranks_in_order(ranks)}: {top3} of {len(ranks)} in the top 3",
                 passed=top3 > len(ranks) / 2, evidence=f"{ev}; the paper's Fig. 5 plots Table 1's columns")
    for cid, fig, ours in (
            ("C10", "Fig. 6", "the behaviour is decided on our runs (C10's row with our model)"),
            ("C11", "Fig. 6", "the chapter's section 6 shows our input-length bins, without a test"),
            ("C14", "Fig. 7", "the behaviour is decided on our runs (C14's row with our model)")):
        ledger.check(cid, our_value=None, evidence=ours, figure_only=figure_words(fig, "a plot"))
    t2 = paper_table2().pivot(index="model", columns="variant", values="paper_kpr")
    trunks = ["trunc512", "trunc1024", "trunc2048"]
    below = bool((t2[trunks].lt(t2["none"], axis=0)).all(axis=None))
    ledger.check("C12", our_value=f"{int(t2[trunks].lt(t2['none'], axis=0).sum().sum())} of 6 below", passed=below,
                 evidence="Table 2 as printed: both models, against its \"N/A\" column (the untruncated documents)")
    c13 = snippet_claim(t2, trunks)
    lowest = [m for m in t2.index if t2.loc[m, "summary"] == t2.loc[m].min()]
    ledger.check("C13", our_value=c13["our_value"], passed=c13["passed"],
                 evidence="Table 2 as printed; " + c13["evidence"] + f"; ours, not the paper's claim ({SUMMARY_UNCLAIMED}): "
                 "the summary is the lowest column for "
                 + ("both models" if len(lowest) == len(t2) else ", ".join(lowest) or "neither model"))
    t3 = table3_correlations()
    ledger.check("C15", our_value=f"rho {t3['spearman']:.3f} (computed from Table 3); swapped {', '.join(t3['swapped'])}",
                 passed=bool(t3["spearman"] >= ledger.tolerance("C15") and len(t3["swapped"]) <= ONE_SWAP),
                 evidence="Table 3 as printed; tested on it also: at most one adjacent swap (\"only a minor position "
                 "swap\"); the paper prints no rank correlation: rho is ours, computed from it")
    ledger.check("C16", our_value=f"{t3['min_gap']:+.3f} to {t3['max_gap']:+.3f}", passed=t3["llama_higher_all"],
                 evidence="Table 3 as printed")
    ledger.check("C17", our_value=None, unreleased=f"the {n['evaluator cases']} annotated cases (our "
                 "judges' agreement with SummHay's human labels is in the chapter)")
    ledger.check("C18", our_value=None,
                 unreleased="the documents are not public (and bge-large-en-v1.5 is not available offline)")
    t4 = paper_table4().set_index("model")
    gpt, phi3 = t4.loc["GPT-4o"], t4.loc["Phi-3-mini-128K"]
    ok = bool(gpt["paper_kpp"] < phi3["paper_kpp"] and gpt["paper_length"] > phi3["paper_length"])
    ledger.check("C19", our_value=f"GPT-4o - Phi-3: length {gpt['paper_length'] - phi3['paper_length']:+.2f}, KPP "
                 f"{gpt['paper_kpp'] - phi3['paper_kpp']:+.3f}", passed=ok, evidence="Table 4 as printed")
    ledger.check("C20", our_value=None, unreleased="the data set (QZH-777/longrag holds a README only); "
                 f"the loader is ready, and the text itself gives {n['words per document (abstract)']:,} and "
                 f"{n['words per document (footnote 6)']:,} words")
    ledger.check("C21", our_value=None, unreleased="the intermediate data and human labels; the chapter measures "
                 "the pipeline's recall of SummHay's human insights instead")
    return ledger


def snippet_claim(t2: pd.DataFrame, trunks: list[str]) -> dict:
    """C13 on the paper's Table 2 (``t2``: one row per model, its variants as columns): §5.6's "using the snippet
    of the document will result in a more pronounced performance degradation" than truncation, tested strictly
    (the snippet below every trunk size, for every model: the verdict, as the run's C13 reads it) and, in the
    evidence, by the looser reading of the sentence (the snippet below the mean of the trunk sizes), with whether
    the verdict would differ. Each model's value says whether it fits, and where the snippet is above a trunk
    size, which: ``{"our_value", "passed", "evidence"}``."""
    parts, fits, mean_fits = [], [], []
    for model in t2.index:
        row = t2.loc[model]
        above = [t for t in trunks if row["snippet"] >= row[t]]
        mean = float(row[trunks].mean())
        fits.append(not above)
        mean_fits.append(bool(row["snippet"] < mean))
        below = [f"{t} {row[t]:.3f}" for t in trunks if t not in above]
        where = (f"below every trunk size ({row[trunks].min():.3f}-{row[trunks].max():.3f}): fits" if not above else
                 (f"below {' and '.join(below)} but " if below else "")
                 + f"not below {' and '.join(f'{t} {row[t]:.3f}' for t in above)}: does not fit")
        parts.append(f"{model} snippet {row['snippet']:.3f} {where}")
    looser = "; ".join(f"{m} {t2.loc[m, 'snippet']:.3f} {'below' if ok else 'not below'} "
                       f"{t2.loc[m, trunks].mean():.4f}" for m, ok in zip(t2.index, mean_fits, strict=True))
    same = all(mean_fits) == all(fits)
    return {"our_value": "; ".join(parts), "passed": bool(all(fits)),
            "evidence": "the looser reading (the snippet below the trunk sizes' mean: the sentence compares it with "
                        f"truncation as a whole) gives {'the same' if same else 'another'} verdict: {looser}"}


# ============================================================================================ claims on our runs


def kpr_floor(means: Mapping[str, float]) -> str | None:
    """The variants (or pools of responses) whose mean KPR (0-1) is at the floor, below 0.05
    (:func:`lcrag.book.verdicts.floor_reason`), each named ``<label> (mean KPR)``; None when none is."""
    from lcrag.book.verdicts import floor_reason

    return floor_reason({f"{label} (mean KPR)": {"score": float(m)} for label, m in means.items()})


def variant_floor(wide: pd.DataFrame, variants) -> str | None:
    """:func:`kpr_floor` of these ``variants``' mean KPR over the questions of ``wide`` (:func:`lcrag.metrics.kpr.question_kpr_wide`);
    variants not run are left out; ``none`` (no processing, the key the data keep) is named :data:`WHOLE` for
    readers."""
    return kpr_floor({(WHOLE if v == "none" else v): wide[v].mean() for v in variants if v in wide})


def truncation_floor(wide: pd.DataFrame) -> str | None:
    """The chapter's floor rule for "truncating the documents lowers KPR", in one place: claim C12 and the
    synthesis's whole-vs-truncated rows (:mod:`lcrag.papers.long2rag.comparison`) both ask it (with the whole
    documents at the floor, the synthesis still reads a cut that is itself above the floor and clearly above them,
    as it reads one arm at the floor everywhere; a cut at the floor too decides nothing).
    A change that lowers a score needs only the arm before it above the floor (book/verdicts.md): the claim is
    *not testable with this model* when the whole documents' (``none``) mean KPR over the questions of ``wide``
    (:func:`lcrag.metrics.kpr.question_kpr_wide`) is below 0.05, whatever the truncated variants score; None otherwise."""
    return variant_floor(wide, ["none"])


def run_claims(ledger, per_response: pd.DataFrame, judge: str, agreement: Mapping | None = None, scope: str = "",
               n_boot: int = 2000, seed: int = 0, cap: int | None = None,
               held_out: Mapping[str, float] | None = None) -> object:
    """Decide the behavioural claims on our runs, with 95 % bootstrap intervals: C12 (truncation lowers KPR), C13
    (the snippet lowers it more than truncation, as §5.6 says; the summary's pairs are shown beside, as ours, not
    decided), C10 (KPR falls with input length), C14 (KPR grows with generation length), C15 (two judges rank the
    same systems alike: the 95 % interval of Spearman's rho at or above C15's declared tolerance). Every text and
    paper value is claims.csv's, as in :func:`paper_claims`.

    ``per_response`` is :func:`lcrag.metrics.kpr.response_kpr` (one row per judge and response); ``judge``
    decides (the chapter passes the judge that agrees best with the humans); ``agreement`` is :func:`.judges.judge_rank_agreement`'s result;
    ``cap`` is the generation cap (``max_new_tokens``); ``held_out``, each judge's kappa with the human labels on
    the judged sample's held-out half (:func:`lcrag.papers.long2rag.trend_claims.trend_claim`).

    C12 and C13 compare variants paired over questions; a pair the lexical judge decides for the variant whose
    answers are longer stands only where a second judge corroborates it, as C10 and C14 need
    (:func:`lcrag.papers.long2rag.trend_claims.lexical_pair`), else it decides nothing; C10 and C14 are the rank trends of KPR with input and
    with answer length within each variant and kind of item, news or conversations
    (:mod:`lcrag.papers.long2rag.trend_claims`: the length bins mix the variants, and the input bins scaled from
    the paper's hold one variant kind each; the conversation items have longer inputs and lower KPR). A claim
    is reproduced when every interval lies on its side of 0, not reproduced when one lies on the other side, and
    inconclusive otherwise (or when not run).

    The floor (:func:`lcrag.book.verdicts.floor_reason`, rule 3) is read where the claim needs it: C12 and C13 say
    that a change (truncating; snippets instead of truncation) *lowers* KPR, so only the arm before
    the change must be above the floor (a change that takes KPR to the floor is the effect being measured): C12 is
    not testable when the full documents are at the floor (:func:`truncation_floor`, the rule the synthesis's
    comparison asks too), and a C13 pair whose truncated arm is at the floor
    decides nothing (as a floored dataset does, :func:`lcrag.book.verdicts.per_unit_floor`). C10, C14 and C15
    pool every response: they are not testable when the mean KPR of all of them is at the floor."""
    from lcrag.book.claims import all_of, interval_in
    from lcrag.book.verdicts import per_unit_floor
    from lcrag.stats import bootstrap_diff, spearman_interval

    mine = per_response[per_response["judge"] == judge]
    wide = question_kpr_wide(per_response, judge)
    ev = f"our runs, judge {judge}; {scope}"

    def paired(a: str, b: str) -> tuple[str, bool | None, str]:
        """The pair's difference, its verdict and, with the lexical judge, why it stands or not (lexical_pair)."""
        both = wide[[a, b]].dropna()
        d, lo, hi = bootstrap_diff(both[a], both[b], n_boot=n_boot, seed=seed)  # KPR points (pp), as the synthesis
        verdict, note = lexical_pair(per_response, a, b, _verdict(lo, hi), judge, held_out, n_boot, seed)
        label = f"{WHOLE if a == 'none' else a} - {b}"
        return f"KPR {label} {signed_interval(d, lo, hi, ' pp')}", verdict, f"; {label}: {note}" if note else ""

    pooled = kpr_floor({"all responses": mine["recall"].mean()})
    trunks = [t for t in ("trunc512", "trunc1024", "trunc2048") if t in wide]
    if "none" in wide and trunks:
        shown, verdicts, notes = zip(*(paired("none", t) for t in trunks), strict=True)
        ledger.check("C12", our_value="; ".join(shown),
                     passed=all_of(verdicts), floor=truncation_floor(wide),
                     evidence=f"{ev}; 95 % bootstrap intervals, paired over questions" + "".join(notes))
    else:
        ledger.check("C12", our_value=None, passed=None,
                     evidence=f"not run: no untruncated and truncated variants; {ev}")
    if "snippet" in wide and trunks:
        shown, verdicts, notes = zip(*(paired(t, "snippet") for t in trunks), strict=True)
        floored = {t: why_t for t in trunks if (why_t := variant_floor(wide, [t]))}  # a truncation arm at the floor
        why, note = per_unit_floor(floored, trunks)
        # its pairs decide nothing: they cannot confirm "every pair"; only a pair above the floor can refute it
        decided = [None if t in floored else v for t, v in zip(trunks, verdicts, strict=True)]
        summary = (f"; ours, not the paper's claim and not in the verdict ({SUMMARY_UNCLAIMED}): "
                   + "; ".join(paired(t, "summary")[0] for t in trunks)) if "summary" in wide else ""
        ledger.check("C13", our_value="; ".join(shown), passed=all_of(decided),
                     evidence=f"{ev}; 95 % bootstrap intervals, paired over questions{note}{''.join(notes)}{summary}",
                     floor=why)
    else:
        ledger.check("C13", our_value=None, passed=None,
                     evidence=f"not run in this profile; {ev}")
    for cid in ("C10", "C14"):  # the lexical judge's trends need a second judge (trend_claim)
        trend_claim(ledger, cid, mine, ev, pooled, cap, n_boot, seed, judge, per_response, held_out)
    c15 = {"claim_id": "C15"}
    if agreement is not None and not np.isnan(agreement.get("spearman", np.nan)):
        lo, hi = spearman_interval(agreement["spearman"], agreement["n_systems"])
        ledger.check(**c15, our_value=f"rho {agreement['spearman']:.3f} [{lo:.2f}, {hi:.2f}], tau "
                     f"{agreement['kendall']:.3f} over {agreement['n_systems']} document variants of one model "
                     f"({' vs '.join(agreement['judges'])})",
                     passed=interval_in((lo, hi), low=ledger.tolerance("C15")), floor=pooled,
                     evidence=f"{ev}; 95 % interval of rho (Fisher z, Bonett-Wright); the paper's two "
                     f"evaluators, ranking its Table 3's {table3_correlations()['models']} models: {TABLE3_DERIVED}")
    elif agreement is None:  # one judge scored the answers (judge_answers="trusted")
        ledger.check(**c15, our_value=None, passed=None, evidence=ev,
                     not_run="answers judged by both judges (this run's judge_answers is 'trusted')")
    else:
        ledger.check(**c15, our_value=None, passed=None,
                     evidence=f"fewer than two systems scored by both judges; {ev}")
    return ledger


def chapter_ledgers(model: str, per_response: pd.DataFrame, judge: str, agreement: Mapping | None, scope: str,
                    cap: int | None = None, human: pd.DataFrame | None = None) -> list:
    """The chapter's two ledgers: the paper's own tables (:func:`paper_claims`) and ``model``'s runs judged by
    ``judge`` (:func:`run_claims`, with its ``agreement``, ``scope`` and generation ``cap``); ``human``, the judges'
    agreement with the human labels (the chapter's ``judge_agreement``: ``judge``, ``half``, ``kappa``)."""
    from lcrag.book import ClaimsLedger
    from lcrag.papers.long2rag.judges import SAMPLE_HELD_OUT

    held_out = {} if human is None else {j: k for j, h, k in human[["judge", "half", "kappa"]].itertuples(index=False)
                                         if h == SAMPLE_HELD_OUT}
    ours = ClaimsLedger(None, paper="long2rag", model=model)
    run_claims(ours, per_response, judge, agreement, scope=scope, cap=cap, held_out=held_out)
    return [paper_claims(ClaimsLedger(None, paper="long2rag", model=PAPER_TABLES_MODEL)), ours]
