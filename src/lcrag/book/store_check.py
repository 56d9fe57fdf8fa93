"""``lcrag store check``: the committed response store against the keys the latest book runs used."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lcrag import config
from lcrag.book import manifest as mf
from lcrag.book.runner import _environ, runs_dir
from lcrag.book.staging import is_attempt
from lcrag.models.store import recordings_in_progress


@dataclass
class StoreCheck:
    """The committed store of one chapter and model against its latest successful book run.

    ``orphans``: keys in the store that the run never used (dead weight in the repository).
    ``missing``: keys the run used that the store lacks (a clean checkout would call the model).
    """

    chapter: str
    slug: str
    store_file: Path
    run_dir: Path | None
    store_keys: int
    used_keys: int
    orphans: list[str]
    missing: list[str]
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return not (self.orphans or self.missing or self.problem)


class BadStoreLine(RuntimeError, ValueError):
    """A line of a store file that is not an entry (the CLI prints its message alone)."""


def read_store_keys(path: Path) -> list[str]:
    """The ``key`` of every line of a store file; a bad line is an error naming file and line and what to do."""
    from lcrag.models.store import read_entries

    bad: list[tuple[str, int]] = []
    keys = [e["key"] for e in read_entries(Path(path), bad)]
    if bad:
        lines = ", ".join(str(n) for _, n in bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
        raise BadStoreLine(
            f"{bad[0][0]} line{'s' if len(bad) > 1 else ''} {lines}: not a store entry (one JSON object with 'key' "
            "and 'response' per line; a run killed while recording leaves a line cut short). Delete the line(s) "
            "(or restore the file from git: `git checkout -- <file>`), then record what they held again: "
            "`LCRAG_STORE=record lcrag run <chapter>` (or `lcrag book`) appends only the answers the store lacks")
    return keys


def latest_book_runs(root: Path | None = None) -> dict[tuple[str, str], Path]:
    """``(chapter, model slug) -> run dir`` of the most recent successful run made by ``lcrag book``."""
    best: dict[tuple[str, str], tuple[str, Path]] = {}
    for m_path in runs_dir(root).glob("*/*/*/" + mf.MANIFEST_FILE):
        try:
            m = mf.read_manifest(m_path)
        except ValueError:
            continue  # an unreadable manifest is not a successful run
        if not m.get("book") or m.get("status") != "ok" or is_attempt(m_path.parent):
            continue
        pair = (m_path.parent.name, m_path.parent.parent.parent.name)
        finished = str(m.get("finished", ""))
        if pair not in best or finished > best[pair][0]:
            best[pair] = (finished, m_path.parent)
    return {pair: d for pair, (_, d) in best.items()}


def check_store(chapter: str | None = None, *, root: Path | None = None) -> list[StoreCheck]:
    """Compare every store file ``<store_dir>/<chapter>/<slug>.jsonl`` with the keys used by the
    latest successful book run of that chapter and model (``keys_used.txt``), and every such
    run with its store file. ``chapter`` restricts the check to one chapter.

    A chapter's store files are read as one: a run may call a second model, whose responses go to that
    model's file, and a chapter may have several book runs (the book model's and a companion's). So a
    run's ``missing`` keys are those no file of its chapter holds, and ``orphans`` those that no book run
    of the chapter used. A file of a recording in progress (``recordings.yml``) serves the runs' requests like any
    other, but the keys no run uses yet are not orphans: the recording is still adding them."""
    root = Path(root).resolve() if root else config.project_root()
    with _environ({"LCRAG_HOME": str(root)}):
        sdir = config.store_dir()
    runs = latest_book_runs(root)
    used_by_run = {pair: _used_keys(run) for pair, run in runs.items()}  # None: the run has no keys file
    used_in_chapter: dict[str, set[str]] = {}
    for (ch, _), used in used_by_run.items():
        used_in_chapter.setdefault(ch, set()).update(used or ())
    in_progress = recordings_in_progress(sdir)  # recorded as they go, no book run reads them yet
    pairs = {(p.parent.name, p.stem) for p in sdir.glob("*/*.jsonl")} - set(in_progress) | set(runs)
    # A chapter may call several models (e.g. a second model as a judge): a run is compared with every store
    # file of its chapter, and a store file whose model has no run of its own is covered by the chapter's run.
    pairs = {(ch, slug) for ch, slug in pairs if (ch, slug) in runs or not any(c == ch for c, _ in runs)}
    if chapter:
        pairs = {p for p in pairs if p[0] == chapter}
    out = []
    for ch, slug in sorted(pairs):
        sf = sdir / ch / f"{slug}.jsonl"
        files = {f: read_store_keys(f) for f in sdir.glob(f"{ch}/*.jsonl")}
        stored = {k for keys in files.values() for k in keys}
        settled = {k for f, keys in files.items() if (ch, f.stem) not in in_progress for k in keys}
        run = runs.get((ch, slug))
        if run is None:
            out.append(
                StoreCheck(
                    ch,
                    slug,
                    sf,
                    None,
                    len(stored),
                    0,
                    [],
                    [],
                    problem=_no_book_run(ch, slug, root),
                )
            )
            continue
        used = used_by_run[(ch, slug)]
        out.append(
            StoreCheck(
                ch,
                slug,
                sf,
                run,
                len(stored),
                len(used or ()),
                sorted(settled - used_in_chapter[ch]),
                sorted((used or set()) - stored),
                problem=None if used is not None else f"{run / mf.KEYS_FILE} is missing",
            )
        )
    return out


def _no_book_run(chapter: str, slug: str, root: Path) -> str:
    """Why a store file has no book run to compare with, and what to do: its chapter is not registered (renamed or
    removed), the chapter's run directory holds a run made outside `lcrag book` (which replaces the book's), or
    the book has not run it yet."""
    from lcrag import chapters
    from lcrag.book.profiles import notebooks_dir

    if chapter not in {c.name for c in chapters.chapters()} and not (notebooks_dir(root) / f"{chapter}.md").exists():
        return (f"no chapter {chapter!r} is registered or has a notebook (renamed or removed?): delete "
                f"responses/{chapter}/ if it is gone")
    others = list(runs_dir(root).glob(f"{slug}/*/{chapter}/{mf.MANIFEST_FILE}"))
    if others:
        return (f"no successful book run to compare with: {others[0].parent} holds a run made outside `lcrag book` "
                "(or a failed one), which replaced the book's; run `lcrag book` again")
    return "no successful book run to compare with (run `lcrag book` first)"


def _used_keys(run: Path) -> set[str] | None:
    """The keys a run used (its ``keys_used.txt``), None when the file is missing."""
    kf = run / mf.KEYS_FILE
    return set(mf.read_keys(kf)) if kf.exists() else None


def _show_keys(label: str, keys: list[str], limit: int = 20) -> None:
    if not keys:
        return
    print(f"  {label} ({len(keys)}):")
    for k in keys[:limit]:
        print(f"    {k}")
    if len(keys) > limit:
        print(f"    ... and {len(keys) - limit} more")


def report(checks: list[StoreCheck], chapter: str | None = None) -> bool:
    """Print ``lcrag store check``'s report of ``checks``; whether every check is ok."""
    if not checks:
        print("nothing to check: no store files and no book runs" + (f" for {chapter}" if chapter else ""))
        return True
    for c in checks:
        head = (f"{c.chapter} / {c.slug}: {c.store_keys} keys in store, {c.used_keys} used; "
                f"{len(c.orphans)} orphans, {len(c.missing)} missing")  # fmt: skip
        print(("ok      " if c.ok else "PROBLEM ") + head)
        if c.problem:
            print(f"  {c.problem}")
        _show_keys("orphans (in the store, never used by the book run)", c.orphans)
        _show_keys("missing (used by the book run, not in the store)", c.missing)
    return all(c.ok for c in checks)


def prune_store(checks: list[StoreCheck]) -> dict[Path, int]:
    """Remove the orphan entries that ``checks`` found from their chapters' store files (every file of the
    chapter outside a recording in progress); return how many lines each rewritten file lost.

    Refuses (ValueError, nothing written) when a check of a pruned chapter has a problem or missing keys: a run
    that did not finish, or did not reach the store, would prune what it never asked. Each file is rewritten
    under the store's lock, its kept lines byte for byte and in order, and replaced atomically."""
    import os

    from lcrag.models.cache import file_lock
    from lcrag.models.store import STORE_LOCK_TIMEOUT_S, read_entries

    chapters = {c.chapter for c in checks if c.orphans}
    bad = [c for c in checks if c.chapter in chapters and (c.problem or c.missing)]
    if bad:
        raise ValueError(f"not pruning {sorted({c.chapter for c in bad})}: " + "; ".join(
            f"{c.chapter}/{c.slug}: {c.problem or f'{len(c.missing)} keys missing'}" for c in bad))
    orphans = {c.chapter: set(c.orphans) for c in checks if c.orphans}
    pruned: dict[Path, int] = {}
    for chapter, keys in orphans.items():
        sdir = next(c.store_file.parent for c in checks if c.chapter == chapter)
        in_progress = recordings_in_progress(sdir.parent)
        for path in sorted(sdir.glob("*.jsonl")):
            if (chapter, path.stem) in in_progress:
                continue
            with file_lock(path.with_name(path.name + ".lock"), STORE_LOCK_TIMEOUT_S):
                lines = [ln for ln in path.read_bytes().splitlines(keepends=True) if ln.strip()]
                bad: list = []
                if len(entries := read_entries(path, bad)) != len(lines) or bad:
                    raise ValueError(f"{path}: unreadable lines {bad[:3]}; run `lcrag store check` first")
                kept = [ln for ln, e in zip(lines, entries, strict=True) if e["key"] not in keys]
                if len(kept) == len(entries):
                    continue
                tmp = path.with_name(path.name + ".prune")
                tmp.write_bytes(b"".join(kept))
                os.replace(tmp, path)
                pruned[path] = len(entries) - len(kept)
    return pruned
