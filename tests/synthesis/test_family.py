"""The synthesis's experiment family (lcrag.synthesis.family)."""

from __future__ import annotations

import ast
import inspect


def test_not_testable_is_the_ledgers_verdict_not_a_copy():
    """A comparison at the floor reads as the claims' verdict *not testable with this model*: the word is
    lcrag.book.claims's, imported, never retyped (a retyped copy could drift from the ledger's)."""
    from lcrag.book import claims
    from lcrag.synthesis import family

    tree = ast.parse(inspect.getsource(family))
    assigned = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) for t in node.targets
                if isinstance(t, ast.Name)}
    assert "NOT_TESTABLE" not in assigned
    imported = {(node.module, a.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for a in node.names}
    assert ("lcrag.book.claims", "NOT_TESTABLE") in imported
    assert family.NOT_TESTABLE is claims.NOT_TESTABLE
