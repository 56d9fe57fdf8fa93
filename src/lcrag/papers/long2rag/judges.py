"""Long²RAG's judges of Eq. 1 (does the response entail the key point?), and how far to trust them.

- :func:`judge_llm`: one P6 call per key point (the response as the Document, the key point as the Claim), read by
  :data:`lcrag.judges.entailment.PARSERS`; :func:`reparse` reads the same answers another way.
- :func:`judge_lexical`: the deterministic judge, :mod:`lcrag.judges.similarity`' lexical similarity of the key point to
  the response's best sentence (:func:`lexical_scores`), cut at a threshold fitted by :func:`calibrate`.
- Calibration on SummHay's human coverage labels (:func:`benchmark_pairs`, :func:`calibrate`,
  :func:`llm_agreement`, :func:`sample_pairs`), the judge the claims trust, chosen on one half of the judged sample
  and reported on the other (:func:`sample_halves`, :func:`trusted_judge`, :func:`judge_choice`), and two judges'
  rank agreement over the same systems (:func:`judge_rank_agreement`, the Table 3 analogue).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from lcrag.judges import entailment
from lcrag.judges.default import judge_label
from lcrag.judges.similarity import fit_binary_threshold, lexical_similarity
from lcrag.papers.long2rag.numbers import paper_table1_wide
from lcrag.papers.long2rag.prompts import P6_ENTAILMENT

# ============================================================================================ judges


def judgment_frame(responses: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """One row per (response, key point): question_id, variant, key_point_id, key_point, response."""
    kp = items[["question_id", "key_points", "key_point_ids"]] if "key_point_ids" in items else items[
        ["question_id", "key_points"]].assign(key_point_ids=lambda d: [
            [f"{q}#{k}" for k in range(len(p))] for q, p in zip(d["question_id"], d["key_points"], strict=True)])
    merged = responses[["question_id", "variant", "response"]].merge(kp, on="question_id", how="left",
                                                                    validate="many_to_one")
    rows = [
        {"question_id": r["question_id"], "variant": r["variant"], "key_point_id": kid, "key_point": text,
         "response": r["response"]}
        for r in merged.to_dict("records")
        for kid, text in zip(r["key_point_ids"], r["key_points"], strict=True)
    ]
    return pd.DataFrame(rows, columns=["question_id", "variant", "key_point_id", "key_point", "response"])


def judge_llm(model, pairs: pd.DataFrame, document: str = "response", claim: str = "key_point",
              max_tokens: int = 64, parse: str = "default", progress: bool = False) -> pd.DataFrame:
    """Eq. 1 by the P6 judge: one call per row of ``pairs`` (``document`` column as the Document, ``claim`` column
    as the Claim), greedy. Adds ``raw``, ``label`` (yes / no / neutral / None), ``value`` (1 / 0 / NaN) and
    ``judge`` (the model's spec; with ``parse`` other than "default" appended, e.g. ``+words``). ``parse`` picks
    the reader of the answer (:data:`lcrag.judges.entailment.PARSERS`). The document is cut in the middle if it does
    not fit the window."""
    reader = entailment.PARSERS[parse]
    requests = [
        {"prompt": P6_ENTAILMENT.format(document=d, claim=c), "max_tokens": max_tokens, "temperature": 0.0,
         "context_policy": "truncate_middle"}
        for d, c in zip(pairs[document], pairs[claim], strict=True)
    ]
    out = model.map("ask", requests, progress=progress)
    judged = pairs.copy()
    judged["raw"] = [c.text for c in out]
    judged["label"] = [reader(c.text) for c in out]
    judged["value"] = [entailment.entailment_value(label) for label in judged["label"]]
    judged["judge"] = judge_label(model.spec, parse)
    return judged


ANSWER_JUDGES = ("both", "trusted")


def judge_answers(model, pairs: pd.DataFrame, threshold: float, agreement: pd.DataFrame, which: str = "both",
                  max_tokens: int = 64, parse: str = "default") -> pd.DataFrame:
    """Eq. 1 on the run's (response, key point) ``pairs``: by the P6 judge ``model`` (:func:`judge_llm`) and the
    lexical judge (:func:`judge_lexical`) with ``which="both"``; with ``"trusted"``, only by the one of the two
    that agrees best with the humans in ``agreement`` (:func:`trusted_judge`; the synthesis reads that judge's
    KPR), so that a run whose lexical judge is trusted makes no judge call on its answers."""
    if which not in ANSWER_JUDGES:
        raise ValueError(f"judge_answers must be one of {ANSWER_JUDGES}, not {which!r}")
    llm = judge_label(model.spec, parse)
    use = {llm, "lexical"} if which == "both" else {trusted_judge(agreement, [llm, "lexical"])}
    parts = ([judge_llm(model, pairs, max_tokens=max_tokens, parse=parse)] if llm in use else []) + (
        [judge_lexical(pairs, threshold)] if "lexical" in use else [])
    return pd.concat(parts, ignore_index=True)


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    """A response split into sentences and lines (the deterministic judge compares a key point with each)."""
    parts = [s.strip() for s in _SENTENCE.split(text or "")]
    return [s for s in parts if s] or [""]


def lexical_scores(key_points: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    """Per (key point, text): the best share of the key point's content words in one sentence of the text
    (:func:`lcrag.judges.similarity.lexical_similarity`)."""
    return np.array([float(lexical_similarity([k], sentences(t)).max()) for k, t in zip(key_points, texts,
                                                                                      strict=True)])


def reparse(judged: pd.DataFrame, parse: str) -> pd.DataFrame:
    """The same LLM answers (``raw``) read with another parser (no model call): label, value and judge redone."""
    out = judged.copy()
    out["label"] = [entailment.PARSERS[parse](t) for t in out["raw"]]
    out["value"] = [entailment.entailment_value(label) for label in out["label"]]
    out["judge"] = [judge_label(j.split("+")[0], parse) for j in out["judge"]]
    return out


def judge_lexical(pairs: pd.DataFrame, threshold: float, document: str = "response",
                  claim: str = "key_point") -> pd.DataFrame:
    """Eq. 1 by the deterministic judge: yes (1) when the lexical score reaches ``threshold`` (from
    :func:`calibrate`), else 0; never unparseable. Adds ``similarity``, ``label``, ``value``, ``judge``."""
    judged = pairs.copy()
    judged["similarity"] = lexical_scores(list(pairs[claim]), list(pairs[document]))
    judged["value"] = (judged["similarity"] >= threshold).astype(float)
    judged["label"] = np.where(judged["value"] == 1, entailment.YES, entailment.NO)
    judged["judge"] = "lexical"
    return judged


# ============================================================================================ judge calibration


def benchmark_pairs(bench: pd.DataFrame, human_yes: Sequence[str] = ("fully_covered",)) -> pd.DataFrame:
    """SummHay's human coverage labels as entailment pairs: one row per (annotated summary, insight).

    ``response`` = the summary's bullets joined by newlines (the Document of P6), ``key_point`` = the insight (the
    Claim), ``human`` = 1 when the annotators' label is in ``human_yes`` (default: full coverage only; pass
    ``("fully_covered", "partially_covered")`` for the lenient reading), ``half`` = fit (even record) / held-out.
    """
    rows = []
    for r in bench.to_dict("records"):
        text = {i["insight_id"]: i["insight"] for i in r["reference_insights"]}
        for a in r["annotation"]:
            rows.append({
                "record": r["record"],
                "half": "fit" if int(r["record"]) % 2 == 0 else "held-out",
                "question_id": f"bench/{r['record']}",
                "variant": "summhay-benchmark",
                "key_point_id": a["insight_id"],
                "key_point": text[a["insight_id"]],
                "response": "\n".join(r["summary"]),
                "coverage": a["coverage"],
                "human": int(a["coverage"] in human_yes),
            })
    return pd.DataFrame(rows)


def calibrate(pairs: pd.DataFrame) -> tuple[float, pd.DataFrame]:
    """The deterministic judge's threshold, fitted on the ``fit`` half of :func:`benchmark_pairs` (best accuracy),
    and its agreement with the human labels on each half (accuracy, Cohen's κ, ...)."""
    scored = pairs.assign(similarity=lexical_scores(list(pairs["key_point"]), list(pairs["response"])))
    fit = scored[scored["half"] == "fit"]
    t = fit_binary_threshold(fit["similarity"], fit["human"])
    rows = []
    for half, g in [("fit", fit), ("held-out", scored[scored["half"] == "held-out"]), ("all", scored)]:
        rows.append({"judge": "lexical", "half": half, "threshold": t,
                     **entailment.binary_agreement((g["similarity"] >= t).astype(float), g["human"])})
    return t, pd.DataFrame(rows)


def llm_agreement(judged: pd.DataFrame) -> pd.DataFrame:
    """Agreement of an LLM judge's values (:func:`judge_llm` on benchmark pairs) with the human labels, per half of
    the benchmark it read, and over ``all`` its pairs only when it read both halves (a judge that read the held-out
    half alone has no ``all`` row: it would repeat that half's)."""
    rows = []
    halves = [*judged.groupby("half")]
    for half, g in halves + ([("all", judged)] if len(halves) > 1 else []):
        rows.append({"judge": judged["judge"].iloc[0], "half": half, "threshold": np.nan,
                     **entailment.binary_agreement(g["value"], g["human"])})
    return pd.DataFrame(rows)


def sample_pairs(pairs: pd.DataFrame, n: int, seed: int = 0, half: str = "held-out") -> pd.DataFrame:
    """``n`` pairs of one half drawn at random (seeded), balanced between human yes and no when possible."""
    pool = pairs[pairs["half"] == half]
    yes, no = pool[pool["human"] == 1], pool[pool["human"] == 0]
    k = min(n // 2, len(yes), len(no))
    picked = pd.concat([yes.sample(k, random_state=seed), no.sample(n - k, random_state=seed)]) if n > 1 else (
        pool.sample(n, random_state=seed))
    return picked.sort_index()


def judge_rank_agreement(table: pd.DataFrame, systems: str = "variant",
                         judges: Sequence[str] | None = None) -> dict | None:
    """Spearman ρ and Kendall τ between two judges' KPR over the same systems (Table 3 analogue); None when one
    judge scored them (``judge_answers="trusted"``: nothing to compare)."""
    from scipy.stats import kendalltau, spearmanr

    wide = table.pivot(index=systems, columns="judge", values="kpr").dropna()
    judges = list(judges or wide.columns)
    if judges and len(judges) == 1 == table["judge"].nunique():
        return None
    if len(judges) != 2:
        raise ValueError(f"need exactly two judges, got {judges}")
    a, b = wide[judges[0]], wide[judges[1]]
    if len(wide) < 2:
        return {"n_systems": len(wide), "spearman": np.nan, "kendall": np.nan, "judges": judges}
    return {"n_systems": len(wide), "spearman": float(spearmanr(a, b).statistic),
            "kendall": float(kendalltau(a, b).statistic), "judges": judges,
            "mean_difference": float((b - a).mean())}


def rank_agreement_table(rank: dict | None) -> pd.DataFrame:
    """:func:`judge_rank_agreement`'s result as a one-row table (the two judges' names joined); no row for None."""
    return pd.DataFrame([{k: (", ".join(v) if isinstance(v, list) else v) for k, v in rank.items()}] if rank else [])


#: The two halves of the judged sample (:func:`sample_halves`): the judge is chosen on the first, and its agreement
#: with the humans reported on the second.
SAMPLE_FIT, SAMPLE_HELD_OUT = "sample fit", "sample held-out"


def sample_halves(judged: pd.DataFrame) -> pd.DataFrame:
    """Judged benchmark pairs (one judge's) split by record into :data:`SAMPLE_FIT` (``record // 2`` even) and
    :data:`SAMPLE_HELD_OUT` (odd), so that both halves of a sample drawn from either half of the benchmark are
    non-empty; every pair of one annotated summary lands in the same half. Agreement rows as :func:`llm_agreement`."""
    part = np.where((judged["record"].astype(int) // 2) % 2 == 0, SAMPLE_FIT, SAMPLE_HELD_OUT)
    rows = [{"judge": judged["judge"].iloc[0], "half": half, "threshold": np.nan,
             **entailment.binary_agreement(g["value"], g["human"])} for half, g in judged.groupby(part)]
    return pd.DataFrame(rows)


def agreement_study(bench: pd.DataFrame, human_yes: Sequence[str], model=None, llm_pairs: int = 0, seed: int = 0,
                    max_tokens: int = 8) -> tuple[float, pd.DataFrame, pd.DataFrame | None]:
    """The judges against the human coverage labels of SummHay's benchmark (§ "our judges" of the chapter): the
    lexical judge's threshold fitted on the even records (:func:`calibrate`), then, on ``llm_pairs`` held-out
    pairs, ``model`` as an entailment judge read three ways (strict, default, words). On those same pairs every
    judge, the lexical one too, is also measured on each half of the sample (:func:`sample_halves`): the judge is
    chosen on one (:func:`trusted_judge`) and reported on the other. Returns the threshold, the agreement table
    (one row per judge and half) and the LLM's judged pairs (None without them)."""
    pairs = benchmark_pairs(bench, tuple(human_yes))
    threshold, lexical_agreement = calibrate(pairs)
    agreement, judged = [lexical_agreement], None
    if llm_pairs:
        sample = sample_pairs(pairs, llm_pairs, seed=seed)
        judged = judge_llm(model, sample, max_tokens=max_tokens)
        agreement.append(sample_halves(judge_lexical(sample, threshold)))
        for how in PARSE_MODES:
            read = reparse(judged, how)
            agreement += [llm_agreement(read), sample_halves(read)]
    return threshold, pd.concat(agreement, ignore_index=True), judged


#: The three readings of P6's answers the agreement table measures (:data:`lcrag.judges.entailment.PARSERS`).
PARSE_MODES = ("strict", "default", "words")


def parse_modes_sentence(judged: pd.DataFrame | None) -> str:
    """What the three readings of the P6 judge's answers on the benchmark pairs (``judged``, :func:`judge_llm`)
    change, from the answers: nothing (its three sets of rows in the agreement table are then identical, as said
    here) or on how many answers they differ; that the judge read only the sampled pairs of one half, so it has
    no row over the whole benchmark. "" without judged pairs."""
    if judged is None or judged.empty:
        return ""
    labels = pd.DataFrame({how: reparse(judged, how)["label"].fillna("unparseable") for how in PARSE_MODES})
    differ = int((labels.nunique(axis=1) > 1).sum())
    n, halves = len(judged), sorted(judged["half"].unique())
    unparseable = ", ".join(f"{how} {int((labels[how] == 'unparseable').sum())}" for how in PARSE_MODES)
    read = (f"The P6 judge read only these {n} pairs ({' and '.join(halves)} half), so its rows are measured on them "
            "alone, with no row over the whole benchmark. ")
    if not differ:
        return read + (f"Its three readings ({', '.join(PARSE_MODES)}) give the same label to every one of the {n} "
                       f"answers (unparseable: {unparseable}), so their rows are identical: the parse mode (`parse`) "
                       "changes nothing on these answers.")
    return read + (f"Its three readings ({', '.join(PARSE_MODES)}) differ on {differ} of the {n} answers "
                   f"(unparseable: {unparseable}).")


def judged_examples(judged: pd.DataFrame, n: int = 4, width: int = 70) -> pd.DataFrame:
    """The first ``n`` benchmark pairs the P6 judge read (:func:`judge_llm`), as the chapter shows them: the key
    point, the humans' label (``human``: 1 when the annotators said the summary covers it fully), the label the
    judge's answer was read as, and the start of that answer, each text on one line and cut to ``width``."""
    from lcrag.text import one_line

    rows = judged.head(n)
    return pd.DataFrame({"key_point": rows["key_point"].map(lambda t: one_line(t, width)), "human": rows["human"],
                         "judge_label": rows["label"].fillna("unparseable"),
                         "judge_answer": rows["raw"].map(lambda t: one_line(t, width))}).reset_index(drop=True)


def trusted_judge(agreement: pd.DataFrame, judges: Sequence[str]) -> str:
    """Among ``judges``, the one whose labels agree best with the humans: the highest Cohen's kappa on the fit half
    of the judged sample (:data:`SAMPLE_FIT`, where every judge read the same pairs; its agreement is reported on
    :data:`SAMPLE_HELD_OUT`) in an agreement table (columns ``judge``, ``half``, ``n``, ``kappa``, as the chapter's
    ``judge_agreement``), among judges measured on at least ``verdicts.MIN_JUDGE_PAIRS`` pairs there (a kappa of
    1.0 on 4 pairs decides nothing). Without an eligible judge (no LLM judge measured), the lexical judge, the one
    measured without a model call, when it is among ``judges``; else the first in sorted order."""
    from lcrag.book.verdicts import choose_judge

    judges = list(judges)
    if not judges:
        raise ValueError("no judge to choose from")
    fallback = "lexical" if "lexical" in judges else sorted(judges)[0]
    return choose_judge(agreement, judges, half=SAMPLE_FIT) or fallback


def judge_choice(agreement: pd.DataFrame, judges: Sequence[str]) -> str:
    """One sentence on the claims' judge (:func:`trusted_judge` among ``judges``): its kappa on the sample's fit
    half, where it was chosen, against the others', and on the held-out half, where it is reported."""
    chosen = trusted_judge(agreement, judges)
    a = agreement.set_index(["judge", "half"])

    def kappa(judge: str, half: str) -> str:
        if (judge, half) not in a.index:
            return f"{judge}: not measured"
        row = a.loc[(judge, half)]
        return f"{judge}: kappa {row['kappa']:.3f} on {int(row['n'])} pairs"

    from lcrag.book.verdicts import MIN_JUDGE_PAIRS, choose_judge

    others = [j for j in judges if j != chosen]
    if choose_judge(agreement, judges, half=SAMPLE_FIT) is None:
        return (f"The claims' judge is {chosen} by default: no judge was measured on {MIN_JUDGE_PAIRS} or more "
                "pairs of the judged sample's fit half, so none was chosen there.")
    return (f"The claims' judge is {chosen}, the best on the sample's fit half ({kappa(chosen, SAMPLE_FIT)}"
            + "".join(f"; {kappa(j, SAMPLE_FIT)}" for j in others) + f"); on its held-out half, "
            f"{kappa(chosen, SAMPLE_HELD_OUT)}" + "".join(f"; {kappa(j, SAMPLE_HELD_OUT)}" for j in others) + ".")


def table2_note(agreement: pd.DataFrame, ours: pd.DataFrame) -> str:
    """The caveat beside section 5's two Table 2s, from the run: the paper's rows are its generators judged by
    GPT-4o, ours one small generator judged by our judges (``ours``: one row per judge, the variants as columns,
    ``none`` the whole documents), and an LLM judge that says yes more often than the humans (``agreement``: its
    yes rate and the humans' on the benchmark pairs it read, half ``held-out``, and its Cohen's kappa there and on
    the judged sample's held-out half) inflates KPR: its whole-document KPR above GPT-4o's says nothing of the
    generators. "" without an LLM judge measured on the benchmark."""
    from lcrag.papers.long2rag.numbers import paper_table2

    a = agreement.set_index(["judge", "half"])
    gpt = paper_table2().set_index(["model", "variant"]).loc[("GPT-4o", "none"), "paper_kpr"]
    parts = []
    for judge in (j for j in ours.index if j != "lexical" and (j, "held-out") in a.index and "none" in ours):
        bench, whole = a.loc[(judge, "held-out")], float(ours.loc[judge, "none"])
        held = (f"; {a.loc[(judge, SAMPLE_HELD_OUT), 'kappa']:.3f} on the judged sample's held-out half"
                if (judge, SAMPLE_HELD_OUT) in a.index else "")
        text = (f"the {judge} judge says yes to {100 * bench['judge_yes_rate']:.1f} % of the {int(bench['n'])} "
                f"human-labelled benchmark pairs it read, the humans to {100 * bench['human_yes_rate']:.1f} % (Cohen's "
                f"kappa {bench['kappa']:.3f}{held})")
        if bench["judge_yes_rate"] > bench["human_yes_rate"] and whole > gpt:
            text += (f": a judge that says yes this readily inflates KPR, so its {whole:.3f} with whole documents, "
                     f"above GPT-4o's {gpt:.3f} in the paper's table, is no evidence that our generator beats GPT-4o")
        parts.append(text)
    if not parts:
        return ""
    return ("**The two tables are not comparable.** The paper's rows are its generators' answers to its own questions, "
            "judged by GPT-4o; ours are one small generator's answers to SummHay-derived items, judged by our judges; "
            + "; ".join(parts) + ".")


def models_deviation(generator: str, judge_model: str, claim_judge: str) -> str:
    """The chapter's "Models" deviation, from the run: ``generator`` answers, P6 runs on ``judge_model``, and the
    behavioural claims are decided by ``claim_judge`` (:func:`trusted_judge`), which may be the lexical judge."""
    decider = "the lexical judge" if claim_judge == "lexical" else f"P6 on {claim_judge}"
    n_models = len(paper_table1_wide())
    return (f"- **Models**: {generator} generates, instead of the paper's {n_models} models; P6 runs on "
            f"{judge_model}; the behavioural claims are decided by {decider}, the judge chosen in section 2, instead "
            "of GPT-4o.")
