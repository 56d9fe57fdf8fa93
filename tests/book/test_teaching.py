"""The teaching page's measured quick-profile times: the JSON file, its table, and build_book writing it."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
import yaml

from lcrag.book import teaching as T


def rec(chapter: str, wall: float = 100.0, calls: int = 10, **extra) -> dict:
    return {
        "chapter": chapter,
        "wall_s": wall,
        "calls": calls,
        "date": "2026-11-22T15:03:11+00:00",
        "cores": 2,
        **extra,
    }


def test_durations():
    assert [T.format_duration(s) for s in (4.4, 59.6, 185, 3725)] == [
        "4 s",
        "1 min 00 s",
        "3 min 05 s",
        "1 h 02 min",
    ]


def test_missing_file_is_no_measurement(tmp_path):
    assert T.read_quick_times(tmp_path / "quick_times.json") == []


def test_round_trip_and_merge_replace_a_remeasured_chapter(tmp_path):
    path = tmp_path / "book" / "quick_times.json"
    T.write_quick_times(path, [rec("thesis", 300), rec("needle", 200)])
    merged = T.merge_quick_times(T.read_quick_times(path), [rec("needle", 250), rec("summhay", 90)])
    assert [(r["chapter"], r["wall_s"]) for r in merged] == [
        ("thesis", 300),
        ("needle", 250),
        ("summhay", 90),
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", r"quick_times.json: not valid JSON"),
        ('{"chapter": "x"}', r"expected a JSON list of records, got dict"),
        (
            '[{"chapter": "needle", "wall_s": 1, "calls": 2, "date": "d"}]',
            r"record 0 \(needle\) lacks \['cores'\]",
        ),
        ("[3]", r"record 0 is not an object"),
    ],
)
def test_a_bad_file_is_an_error_naming_it(tmp_path, content, message):
    path = tmp_path / "quick_times.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        T.read_quick_times(path)


def test_table_says_not_measured_yet_for_a_missing_chapter():
    md = T.quick_times_markdown(
        [rec("needle", 185, 60), rec("extra", 5, 1, status="failed")], ["quickstart", "needle"]
    )
    lines = md.splitlines()
    assert lines[0] == "| chapter | quick profile, cold (unnamed CPU) | model calls |"
    assert lines[2] == f"| quickstart | {T.NOT_MEASURED} |  |"
    assert lines[3] == "| needle | 3 min 05 s | 60 |"
    assert lines[4] == "| extra | 5 s (failed) | 1 |"  # measured but not listed: still shown
    assert lines[-1] == "Measured on an unnamed CPU (2 cores) on 2026-11-22."


INTEL = "Linux x86_64, Intel(R) Xeon(R) Processor"
AMD = "Linux x86_64, AMD EPYC 9R14 96-Core Processor"


def test_each_cpu_keeps_its_own_times():
    old = [rec("thesis", 300, machine=INTEL, amx=True), rec("needle", 200, machine=INTEL, amx=True)]
    new = [rec("needle", 250, machine=AMD, date="2026-11-29T19:40:00+00:00"), rec("thesis", 310, machine=INTEL, amx=True)]
    merged = T.merge_quick_times(old, new)
    assert [(r["chapter"], r["wall_s"]) for r in merged] == [("thesis", 310), ("needle", 200), ("needle", 250)]
    lines = T.quick_times_markdown(merged, ["needle", "thesis"]).splitlines()
    assert lines[0] == (
        "| chapter | quick profile, cold (Intel Xeon, AMX) | quick profile, cold (AMD EPYC 9R14 96-Core) "
        "| model calls |"
    )
    assert lines[1] == "|---|---|---|---|"
    assert lines[2:4] == ["| needle | 3 min 20 s | 4 min 10 s | 10 |", f"| thesis | 5 min 10 s | {T.NOT_MEASURED} | 10 |"]
    assert lines[-1] == (
        "Measured on Intel Xeon, AMX (2 cores) on 2026-11-22; on AMD EPYC 9R14 96-Core (2 cores) on 2026-11-29."
    )
    assert "quick profile changed" not in "\n".join(lines)
    lines = T.quick_times_markdown([*merged, rec("thesis", 90, 12, machine=AMD)], ["needle", "thesis"]).splitlines()
    assert lines[3] == "| thesis | 5 min 10 s | 1 min 30 s | 10 / 12 |"  # the profile changed in between: both counts
    assert lines[-1].endswith("the runs did not make the same calls: some calls depend on earlier answers.")


def test_a_time_of_other_parameters_is_left_out():
    records = [rec("needle", 100, parameters_sha="aaa"), rec("thesis", 200, parameters_sha="old"), rec("long2rag")]
    lines = T.quick_times_markdown(records, ["needle", "thesis"], {"needle": "aaa", "thesis": "new"}).splitlines()
    assert lines[2:4] == ["| needle | 1 min 40 s | 10 |", f"| thesis | {T.NOT_MEASURED} |  |"]
    assert len(lines) == 6  # long2rag: no digest recorded, so out of date too
    assert lines[-1].endswith(
        "Left out: 2 times measured with other parameters than the quick profile now has (long2rag, thesis)."
    )


def test_the_digest_follows_the_resolved_parameters(tmp_path):
    from helpers import ROOT, copy_book

    book = copy_book(tmp_path / "book")
    for name in ("profiles.yml", "needle.md"):
        shutil.copy(ROOT / "notebooks" / name, book / "notebooks" / name)
    before = T.quick_digests(["needle", "absent"], book)
    assert list(before) == ["needle"]  # "absent" has no notebook
    assert before["needle"] == T.parameters_digest(T.resolve("needle", "quick", root=book))
    profiles = book / "notebooks" / "profiles.yml"
    text = profiles.read_text()
    assert "\nneedle:\n" in text and "  quick:\n" in text
    profiles.write_text(text.replace("\nneedle:\n", "\nneedle:\n  # a comment changes nothing\n"))
    assert T.quick_digests(["needle"], book) == before
    data = yaml.safe_load(text)
    data["needle"]["quick"]["lengths"] = [500]
    profiles.write_text(yaml.safe_dump(data))
    assert T.quick_digests(["needle"], book) != before


def test_timed_chapters_follow_the_toc_then_the_placeholders():
    assert T.timed_chapters(
        ["quickstart", "thesis", "synthesis"],
        ["long2rag", "quickstart", "synthesis", "thesis"],
        skip=["synthesis"],
    ) == ["quickstart", "thesis", "long2rag"]


def test_build_book_writes_the_table_the_teaching_page_includes(tmp_path, monkeypatch):
    from helpers import copy_book

    from lcrag.book.build import build_book

    for var in ("LCRAG_STORE", "LCRAG_STORE_DIR", "LCRAG_RUN_DIR", "LCRAG_HOME"):
        monkeypatch.delenv(var, raising=False)
    book = copy_book(tmp_path / "book")  # no notebook: no chapter has a quick profile to measure now
    (book / "book" / "quick_times.json").write_text(
        json.dumps([rec("quickstart", 61, 40, parameters_sha="older"), rec("thesis", 99)])
    )
    build_book(root=book, build=False, progress=False, log=lambda s: None)
    table = (book / "book" / "executed" / "quick_times.md").read_text()
    assert f"| quickstart | {T.NOT_MEASURED} |  |" in table
    assert "Left out: 2 times measured with other parameters than the quick profile now has (quickstart, thesis)." in table
    assert "{include} executed/quick_times.md" in (book / "book" / "teaching.md").read_text()


# ---------------------------------------------------------------------------------------------- the commands

_INLINE_RUN = re.compile(r"`(lcrag run [^`]+)`")  # an inline code span, possibly wrapped over lines
_LINE_RUN = re.compile(r"^\s*(?:\.venv/bin/)?(lcrag run [^#\n]+)", re.MULTILINE)  # a line of a code block


def _run_commands(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    found = [m.group(1) for m in _INLINE_RUN.finditer(text)] + [m.group(1) for m in _LINE_RUN.finditer(text)]
    return [" ".join(c.split()) for c in dict.fromkeys(found) if "$" not in c]  # shell variables: not literal


@pytest.mark.parametrize("page", ["book/teaching.md", "book/rerun.md", "README.md"])
def test_every_lcrag_run_command_in_the_pages_names_a_real_chapter_profile_and_parameters(page):
    """A teacher copies these commands: each must parse with the CLI and resolve against its chapter (an unknown
    chapter, profile or parameter, or a value of the wrong type, is the error a student would get)."""
    from lcrag import config
    from lcrag.book.profiles import parse_cli_params, resolve
    from lcrag.cli import build_parser
    from lcrag.models.registry import parse_spec

    root = config.project_root()
    commands = _run_commands(root / page)
    assert commands, f"no lcrag run command found in {page}"
    parser = build_parser()
    for command in commands:
        args = parser.parse_args(shlex.split(command)[1:])
        resolve(args.chapter, args.profile, parse_cli_params(args.param), root=root)
        if args.model and not args.model.startswith("local-gguf/"):  # a GGUF path of the reader's own
            parse_spec(args.model)


def test_the_run_directories_the_teaching_page_names_are_the_ones_the_book_makes():
    """An exercise that says where a companion run lies (`runs/<slug>/<profile>/<chapter>/`) must name the profile
    notebooks/companions.yml gives that model and chapter: the run the synthesis reads."""
    from lcrag import config
    from lcrag.book.lineup import companion_profiles

    root = config.project_root()
    text = (root / "book" / "teaching.md").read_text(encoding="utf-8")
    named = re.findall(r"runs/([\w.-]+)/(\w+)/(\w+)/", text)
    assert named, "the teaching page names no run directory"
    lineup = companion_profiles(root)
    for slug, profile, chapter in named:
        assert lineup.get((chapter, slug.replace("--", "/"))) == profile, (slug, profile, chapter)
