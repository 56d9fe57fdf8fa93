"""LongRAG's inventory checks (lcrag.papers.longrag.inventory): a disagreeing check is shown in full; an expected
value corrected from the paper's text says so."""

from __future__ import annotations

from lcrag.papers.longrag.inventory import CORRECTED, derived_checks, disagreements_markdown


def test_the_largest_gain_check_expects_what_table_1_prints():
    """The inventory names Llama3-8B-8k as MuSiQue's largest gain (12.04); Table 1 prints Vicuna's as 12.61."""
    checks = derived_checks().set_index("check")
    row = checks.loc["Table 1 largest printed gain per column (the paper underlines it; formatting lost)"]
    assert row["inventory_expected"] == "Vicuna-v1.5-7B-16k on every column"
    assert "Vicuna-v1.5-7B-16k on musique (12.61)" in row["recomputed_from_paper"]
    assert bool(row["agrees"])
    assert row["detail"].startswith(CORRECTED)
    assert "LongRAG-Vicuna-v1.5-7B-16k 28.29(12.61↑)" in row["detail"]
    assert "LongRAG-Llama3-8B-8k 31.70(12.04↑)" in row["detail"]


def test_all_checks_agree_and_the_corrected_one_is_named():
    checks = derived_checks()
    md = disagreements_markdown(checks)
    assert md.startswith(f"All {len(checks)} checks agree with the inventory. One expected value is not the "
                         "inventory's: **Table 1 largest printed gain per column")
    assert "names Llama3-8B-8k on musique (12.04)" in md


def test_a_disagreeing_check_is_written_out_in_full():
    checks = derived_checks()
    i = checks.index[checks["check"] == "Table 3: Ext > R&L (of 33 cells)"][0]
    checks.loc[i, ["inventory_expected", "agrees"]] = ["30", False]
    md = disagreements_markdown(checks)
    assert md.startswith(f"1 of the {len(checks)} checks disagrees with the inventory:")
    assert ("- **Table 3: Ext > R&L (of 33 cells)**: the inventory expects 30; the paper's tables give 31 (not "
            "higher: ChatGLM3-6B-32k SFT/musique; ChatGLM3-6B-32k no-SFT/musique).") in md
    assert "One expected value is not the inventory's" in md
