"""Long²RAG: the chapter's smoke profile executed end to end (slow: real model calls on the embedded model). The
chapter's modules are tested in tests/papers/long2rag/test_<module>.py, the loader in tests/data/test_long2rag.py, the
KPR metrics and P6 parsers in tests/metrics/test_kpr.py.

Expected values come from the paper (Tables 1-4, Fig. 11), the inventory, or hand computation, not from the code.
"""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

# ============================================================================================ the chapter


@pytest.mark.slow
def test_chapter_smoke(mirror, tmp_path):
    from lcrag.book.runner import run_chapter
    from lcrag.data.fetch import fetch

    os.environ["LCRAG_DATA_DIR"] = str(tmp_path / "data")
    try:
        assert fetch(datasets=["summhay"], mirror=mirror, download=False).ok
        run = run_chapter("long2rag", profile="smoke", out_dir=tmp_path / "run", progress=False)
    finally:
        os.environ.pop("LCRAG_DATA_DIR")
    assert run.ok
    nb = json.loads(run.notebook.read_text())
    errors = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert errors == []
    out = run.out_dir
    items = pd.read_csv(out / "items.csv")
    assert len(items) == 2 and set(items["haystack"]) == {"news3", "conv5"}
    kpr = pd.read_csv(out / "kpr.csv")
    assert set(kpr["variant"]) == {"trunc512"} and len(kpr) == 2  # P6 judge + lexical
    assert kpr["n_key_points"].eq(4).all() and kpr["kpr"].between(0, 1).all()
    judged = pd.read_csv(out / "judgments.csv")
    assert len(judged) == 8  # 2 items x 2 key points x 2 judges
    agreement = pd.read_csv(out / "judge_agreement.csv")
    assert {"lexical"} < set(agreement["judge"])
    claims = pd.read_csv(out / "claims.csv")
    assert len(claims) == 21 + 5
    assert pd.read_csv(out / "paper_checks.csv")["agrees"].all()  # 14 checks (tests/papers/long2rag/test_checks.py)
