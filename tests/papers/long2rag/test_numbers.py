"""Long²RAG's printed numbers (lcrag.papers.long2rag.numbers): Tables 1-4 and the text, as transcribed."""

from __future__ import annotations

from lcrag.papers.long2rag import key_points, numbers


def test_paper_tables_transcribed():
    t1 = numbers.paper_table1_wide()
    assert t1.shape == (9, 9)
    assert t1.loc["GPT-4o", "Factual"] == 0.621 and t1.loc["Phi-3-mini-128K", "Average"] == 0.434
    assert t1.loc["Qwen2-1.5B", "Predictive"] == 0.186
    assert numbers.paper_table2().set_index(["model", "variant"]).loc[("Qwen2-72B", "none"), "paper_kpr"] == 0.468
    t3 = numbers.paper_table3().set_index("model")
    assert t3.loc["GPT-4-Turbo", "paper_llama3"] == 0.578 and t3.loc["Claude-3-Sonnet", "paper_gpt4o"] == 0.477
    assert sum(numbers.PAPER_CATEGORY_COUNTS.values()) == 280


def test_paper_csvs_say_where_each_value_was_printed():
    from lcrag.papers.tables import paper_table

    for name in ("table1", "table2", "table3", "table4", "category_counts", "numbers", "length_bins"):
        t = paper_table("long2rag", name)
        assert len(t) and t["source"].str.strip().ne("").all(), name
    text = paper_table("long2rag", "numbers").set_index("quantity")
    assert text.loc["key points", "source"].startswith("§3.3")
    # values as the text states them (long2rag-paper.txt: abstract, §3.3, §6.2), typed as numbers
    assert numbers.PAPER_NUMBERS["words per document (abstract)"] == 2444
    assert numbers.PAPER_NUMBERS["key points"] == 2055 and isinstance(numbers.PAPER_NUMBERS["key points"], int)
    assert numbers.PAPER_NUMBERS["evaluator accuracy"] == 0.87 and key_points.AUTODS_THRESHOLD == 0.7
    assert numbers.paper_table4().set_index("model").loc["GPT-4o", "paper_length"] == 939.35
    assert numbers.PAPER_INPUT_EDGES == (8000, 16000, 25000, 32000) and numbers.PAPER_OUTPUT_EDGES[-1] == 5000
    assert numbers.TABLE2_COLUMNS == ("trunc512", "trunc1024", "trunc2048", "snippet", "summary", "none")


def test_section_9_states_the_papers_own_validation_against_humans_from_its_numbers():
    """The paper does report a validation of its key-point pipeline (98.5 % recall of the human-identified key
    points, §3.3; 8.7 % false positives at the AutoDS threshold, A.2): the chapter says so, from numbers.csv, and
    checks ours against planted insights in its place, not as one "the paper could not publish"."""
    text = numbers.autods_sentence()
    n = numbers.PAPER_NUMBERS
    assert f"recall {100 * n['extraction recall']:.1f} % of the key points humans identified" in text
    assert f"{100 * n['AutoDS false positive rate']:.1f} % of the points the threshold keeps are false positives" in text
    assert "98.5 %" in text and "8.7 %" in text and text.endswith("Those annotations are not released.")
    from lcrag import config

    page = " ".join((config.project_root() / "notebooks" / "long2rag.md").read_text(encoding="utf-8").split())
    assert "could not publish" not in page and "a validation against planted insights" in page
    assert "fit only the former" not in page
    assert "are not the F1 of its mean KPP and KPR (section 10), so per-question F1 is the likely reading" in page
