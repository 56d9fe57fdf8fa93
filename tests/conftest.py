"""Shared test set-up: every test gets its own cache and store; embedded servers are shared per session.

- ``LCRAG_CACHE_DIR`` / ``LCRAG_STORE_DIR`` point into the test's tmp dir (nothing leaks between tests); before
  that applies (module fixtures), the cache is one per session, never the checkout's;
- ``LCRAG_STORE=off`` unless a test sets it; module fixtures (set up before that applies) read the checkout's
  committed store (``LCRAG_STORE`` unset: ``read``, which never writes): recorded answers and embeddings of the
  same models, so a chapter's smoke run computes only what the book never asked for;
- ``LCRAG_STATE_DIR`` is one dir per session, so the llama.cpp servers start once and are stopped at the end;
- ``LCRAG_DATA_MIRROR`` defaults to ``../shared/data`` beside the checkout (CI has it there).
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/helpers.py, bookbuild.py, faultserver.py
from helpers import FIXTURES, ROOT, SHARED  # noqa: E402

_STATE = tempfile.mkdtemp(prefix="lcrag-test-state-")  # this process's servers; model files stay shared
os.environ["LCRAG_STATE_DIR"] = _STATE
atexit.register(shutil.rmtree, _STATE, True)  # each xdist worker has one: left behind, they filled CI's disk
# Module- and session-scoped fixtures are set up before the per-test isolation below applies: without a session
# cache they would read and fill the checkout's own .lcrag/cache (a second run answered from the first's cache).
_CACHE = tempfile.mkdtemp(prefix="lcrag-test-cache-")
os.environ["LCRAG_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)
_MIRROR = SHARED / "data"
if "LCRAG_DATA_MIRROR" not in os.environ and _MIRROR.exists():
    os.environ["LCRAG_DATA_MIRROR"] = str(_MIRROR)
for var in ("LCRAG_MODEL", "LCRAG_RUN_DIR", "LCRAG_CHAPTER", "LCRAG_OFFLINE", "LCRAG_SERVING"):
    os.environ.pop(var, None)

_REPORT: list[str] = []  # lines for the session's closing "lcrag report" section (see ``report`` below)


@pytest.fixture(scope="session")
def report() -> list[str]:
    """Append lines here (artefact paths, measured timings); pytest prints them after the results, so the CI
    log shows them whether the tests passed or not (a passing test's own prints are swallowed)."""
    return _REPORT


# The slow tests run in two lanes at once (tests/slow_lanes.py): lane 1 holds the book built from the store (one
# core: about 330 s, more with each companion run) and the tests that read it, plus the prefill comparisons and two
# chapter tests, so that both lanes take about as long (measured on one core each at ee2bad8: 731 s against 842 s,
# before the Long²RAG chapter test (43 s) and the recording test (33 s) moved to lane 1; after: 676 s and 685 s
# at 7a50d46); lane 2 the rest.
LANE_ONE = ("tests/book/test_store_check.py", "tests/built_book/", "tests/book/test_build.py", "tests/book/test_claims.py",
            "tests/models/test_prefill.py", "tests/papers/long2rag/test_long2rag.py", "tests/book/test_recording.py")


def in_lane(nodeid: str, lane: str) -> bool:
    return nodeid.startswith(LANE_ONE) == (lane == "1")


def pytest_collection_modifyitems(config, items):
    lane = os.environ.get("LCRAG_TEST_LANE")
    if lane not in ("1", "2"):
        return
    kept = [item for item in items if in_lane(item.nodeid, lane)]
    config.hook.pytest_deselected(items=[item for item in items if not in_lane(item.nodeid, lane)])
    items[:] = kept


def pytest_sessionfinish(session):
    output = getattr(session.config, "workeroutput", None)  # an xdist worker: hand the report to the controller
    if output is not None:
        output["lcrag_report"] = list(_REPORT)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The xdist controller collects each worker's report lines."""
    _REPORT.extend(getattr(node, "workeroutput", {}).get("lcrag_report", []))


def pytest_terminal_summary(terminalreporter):
    if _REPORT:
        terminalreporter.section("lcrag report: artefacts and timings")
        for line in _REPORT:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LCRAG_STORE_DIR", str(tmp_path / "store"))
    monkeypatch.setenv("LCRAG_STORE", "off")


@pytest.fixture(scope="session", autouse=True)
def _stop_servers():
    yield
    from lcrag.models import server

    server.stop()


@pytest.fixture(scope="session")
def mirror() -> Path:
    path = Path(os.environ.get("LCRAG_DATA_MIRROR", _MIRROR)).resolve()  # the Makefile passes ../shared/data
    if not path.exists():
        pytest.fail(f"data mirror {path} not found: set LCRAG_DATA_MIRROR (CI uses ../shared/data)")
    return path


@pytest.fixture(scope="session")
def built_book(mirror, tmp_path_factory):
    """The whole book built ONCE per session from the committed store, offline, in a temporary project copy
    (``tests/bookbuild.py``): its run directories and HTML, for the store-consistency and browser tests."""
    from bookbuild import build_from_store

    if os.environ.get("LCRAG_TEST_LANE") == "2":  # it would be built a second time, beside lane 1's
        pytest.fail("the book built from the store is lane 1's: add this test's file to LANE_ONE (conftest.py)")
    return build_from_store(ROOT, tmp_path_factory.mktemp("book"), mirror)


@pytest.fixture()
def toy_registered(monkeypatch):
    """The toy paper of ``tests/fixtures/chapters`` declared through LCRAG_CHAPTERS, in this process and in the
    kernels the runner starts (a chapter added without editing a shared module)."""
    from lcrag import chapters

    path = str(FIXTURES / "chapters")
    monkeypatch.syspath_prepend(path)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (path, os.environ.get("PYTHONPATH")) if p))
    monkeypatch.setenv(chapters.CHAPTERS_ENV, "toy_paper.chapter")
    monkeypatch.setattr(chapters, "_REGISTRY", None)  # discovered again, with the toy; restored afterwards


@pytest.fixture()
def fault_server():
    from faultserver import FaultServer

    srv = FaultServer(slow_s=1.5).start()
    yield srv
    srv.stop()
