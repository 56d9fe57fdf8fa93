"""A Sphinx extension with the book's work-around for a Sphinx 7 bug (loaded from ``_config.yml``).

Jupyter Book 1.x requires Sphinx 7, whose HTML builder writes an inline script twice when an extension adds it
after the builder started: ``Sphinx.add_js_file(None, body=...)`` hands the builder ``None``, and
``prepare_writing`` re-adds the registry's copy as ``''``, which the duplicate check sees as another file.
sphinx-thebe's ``const THEBE_JS_URL = ...`` then appears twice in every page, and the second declaration is a
SyntaxError in the browser's console (caught by ``tests/built_book/test_browser.py``); sphinx-togglebutton's
selector is also set twice. Sphinx fixed this in sphinx-doc/sphinx#13402 (Sphinx 8); here an inline script's
missing file name becomes ``''`` before it reaches the builder, as that fix does.
"""

from __future__ import annotations

from typing import Any


def setup(app: Any) -> dict[str, Any]:
    add_js_file = app.add_js_file

    def add_js_file_once(
        filename: str | None, priority: int = 500, loading_method: str | None = None, **kwargs: Any
    ) -> None:
        add_js_file(filename or "", priority=priority, loading_method=loading_method, **kwargs)

    app.add_js_file = add_js_file_once
    return {"parallel_read_safe": True, "parallel_write_safe": True}
