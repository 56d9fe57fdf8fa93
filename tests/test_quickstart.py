"""lcrag.quickstart: the first chapter's accuracy table carries its baselines."""

from __future__ import annotations

import pandas as pd
import pytest

from lcrag import quickstart as qs


def test_the_accuracy_table_gives_the_exact_interval_chance_the_letter_prior_and_the_floor():
    answers = pd.DataFrame({"setting": ["full"] * 8 + ["rag"] * 8, "answer": list("ABCDABCD") * 2,
                            "response": ["A", "B", "C", "D", "A", "B", "C", "A"] + ["A. yes"] * 8,
                            "prompt_tokens": 100, "latency_s": 1.0})
    acc = qs.accuracy_table(qs.score_choices(answers)).set_index("setting")
    assert acc.loc["full", "accuracy"] == 7 / 8 and acc.loc["rag", "accuracy"] == 2 / 8
    assert acc.loc["full", "ci_low"] == pytest.approx(0.473, abs=1e-3)  # Clopper-Pearson, 7 of 8
    assert (acc["at_floor"] == (acc["ci_low"] <= acc["chance"])).all()  # the interval shown is the floor's
    assert (acc["chance"] == 0.25).all()
    assert acc.loc["rag", "letter_prior"] == 0.25  # always "A", A the answer of a quarter of the questions
    assert acc.loc["full", "letter_prior"] == pytest.approx((3 * 2 + 2 * 2 + 2 * 2 + 1 * 2) / 64)
    assert not acc.loc["full", "at_floor"] and acc.loc["rag", "at_floor"]


def test_the_needle_answer_scores_the_needle_words_the_question_does_not_already_hold():
    """Three 135M answers only repeated the question ("The best thing to do in San Francisco is not to give
    information ...") and scored 0.22 with the needle's every content word; the needle chapter's recall gives 0."""
    answers = pd.DataFrame({"response": [
        "The best thing to do in San Francisco is not to give information outside the document.",
        "Eat a sandwich and sit in Dolores Park on a sunny day.",
        "Sit in Dolores Park.",
    ]})
    assert qs.score_needle(answers)["recall"].round(3).tolist() == [0.0, 1.0, 0.429]


def _bamboo(rows):
    return pd.DataFrame([{"case": c, "question": q, "options": opts, "answer": "A", "evidence": "", "content": "x",
                          "task": "meetingqa", "size": "4k"} for c, q, opts in rows])


def test_the_questions_are_the_thesis_chapters_cleaned_cases_so_none_is_asked_twice():
    """MeetingQA 4k case 5 is case 12's question: the thesis's cleaning drops case 5, and so does the quickstart."""
    four = ["A. a", "B. b", "C. c", "D. d"]
    df = _bamboo([(c, f"q{c}", four) for c in range(1, 15) if c != 5] + [(5, "q12", four)])
    df = df.sort_values("case").reset_index(drop=True)
    df.loc[df["case"] == 3, "options"] = pd.Series([["A. a", "B. b"]], index=df.index[df["case"] == 3])
    items = qs.bamboo_items(df, 10)
    assert list(items["case"]) == [1, 2, 4, 6, 7, 8, 9, 10, 11, 12]
    assert qs.items_sentence(items) == ("10 questions, cases 1, 2, 4, 6, 7, 8, 9, 10, 11, 12 (the cleaning skipped "
                                        "case 3: 2 options; 5: duplicate of case 12)")


def test_the_floor_reading_names_the_settings_at_the_floor_and_leaves_full_minus_rag_untested():
    answers = pd.DataFrame({"setting": ["full"] * 12 + ["rag"] * 12, "answer": list("ABCD") * 6,
                            "response": list("ABCD") * 2 + list("AAAA") + ["A"] * 12,
                            "prompt_tokens": 100, "latency_s": 1.0, "case": list(range(12)) * 2})
    scored = qs.score_choices(answers)
    text = qs.floor_reading(qs.accuracy_table(scored))
    assert text.startswith("At the floor (the exact 95 % interval reaches chance, or lies below it): rag: 3 of 12")
    assert "full:" not in text and "With a setting at the floor" in text
    assert "*not testable with this model*" in text
    counts = qs.letter_counts(scored)
    assert counts.loc["rag", "A"] == 12 and counts.loc["answer key"].tolist() == [3, 3, 3, 3]
    above = qs.accuracy_table(scored[scored["setting"] == "full"])
    assert qs.floor_reading(above).startswith("No setting is at the floor")


def test_the_solver_is_the_thesis_chapters_with_the_quickstarts_columns():
    import prompt_examples

    from lcrag.papers.thesis.solver import solve as thesis_solve

    prompts = pd.DataFrame([{"case": 1, "setting": "full", "answer": "A", "prompt": "Question?"},
                            {"case": 1, "setting": "rag", "answer": "A", "prompt": [{"role": "user", "content": "Q"}]}])
    ours, thesis = prompt_examples.RecordingModel(answer="B"), prompt_examples.RecordingModel(answer="B")
    answers = qs.solve(ours, prompts, max_tokens=5, max_context_tokens=100)
    thesis_solve(thesis, prompts.rename(columns={"prompt": "prompt_text"}), max_tokens=5, max_context_tokens=100)
    assert ours.calls == thesis.calls and ours.calls[1]["prompt"] == [{"role": "user", "content": "Q"}]
    assert answers.columns.tolist() == ["case", "setting", "answer", "response", "prompt_tokens", "completion_tokens",
                                        "latency_s", "truncated", "model"]


def test_the_needles_rag_prompt_is_the_needle_chapters_rag_context():
    import prompt_examples

    from lcrag.papers.thesis.needle.asking import rag_context
    from lcrag.papers.thesis.needle.haystack import build_haystack

    model = prompt_examples.RecordingModel()
    cells = qs.needle_prompts(model, prompt_examples.ESSAYS, [1000], [0.0, 100.0], top_k=2, chunk_size=200,
                              chunk_overlap=20)
    rag = cells[cells["setting"] == "rag"]
    for depth, row in zip((0.0, 100.0), rag.itertuples(), strict=True):
        hay = build_haystack(model, prompt_examples.ESSAYS, 1000, depth)
        context = rag_context(hay, qs.SIMPLE_QUESTION, 2, 200, 20)[0]
        assert row.prompt[1]["content"] == context and row.needle_retrieved == (qs.SIMPLE_NEEDLE in context)
    assert rag["needle_retrieved"].tolist() == [True, False]  # at depth 100 the two chunks kept miss it
    assert cells.loc[cells["setting"] == "full", "needle_retrieved"].isna().all()
