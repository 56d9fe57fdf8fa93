"""LongRAG's inventory checks (lcrag.papers.longrag.inventory): a disagreeing check is shown in full."""

from __future__ import annotations

from lcrag.papers.longrag.inventory import derived_checks, disagreements_markdown


def test_the_disagreeing_check_is_written_out_in_full():
    checks = derived_checks()
    md = disagreements_markdown(checks)
    assert md.startswith(f"1 of the {len(checks)} checks disagrees with the inventory:")
    # the text a table cell cut at 50 characters ("Table 1 largest printed gain per column (the p…")
    assert ("- **Table 1 largest printed gain per column (the paper underlines it; formatting lost)**: the inventory "
            "expects Vicuna on hotpotqa, 2wikimqa, average; Llama3-8B-8k on musique (12.04); the paper's tables give "
            "Vicuna-v1.5-7B-16k on hotpotqa (16.92); Vicuna-v1.5-7B-16k on 2wikimqa (22.21); Vicuna-v1.5-7B-16k on "
            "musique (12.61); Vicuna-v1.5-7B-16k on average (17.25) (the inventory's note on Table 1).") in md
    agreeing = checks[checks["agrees"]]
    assert disagreements_markdown(agreeing) == f"All {len(agreeing)} checks agree with the inventory."
