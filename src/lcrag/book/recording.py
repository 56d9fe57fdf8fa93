"""Recordings of the response store that outlast a sitting (issue 18).

``responses/recordings.yml`` lists them in the order they are to be recorded: each entry names the store file
(``chapter`` and ``model``: ``responses/<chapter>/<model slug>.jsonl``), the ``profile`` of the run that records it,
and optionally ``run_model`` (the run's generator, when the file is another model's: the 1.5B judging SmolLM2's
answers) and ``parameters``. ``lcrag store record`` runs them one after another in record mode; each run takes
the answers the store already holds and asks the model only for the rest, so a recording cut off at any moment
resumes where its last committed line left it. While an entry is listed, ``lcrag store check`` accepts its
file's entries that no book run reads yet (:func:`lcrag.models.store.recordings_in_progress`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from lcrag import config
from lcrag.models.store import RECORDINGS_FILE, recordings_in_progress


@dataclass(frozen=True)
class Recording:
    chapter: str
    model: str  # whose store file it fills
    profile: str = "default"
    run_model: str | None = None  # the run's --model, if not ``model``
    parameters: dict[str, Any] = field(default_factory=dict)

    @property
    def runs_as(self) -> str:
        return self.run_model or self.model

    def command(self) -> str:
        """The ``lcrag run`` command line that records it (``LCRAG_STORE=record``)."""
        words = ["lcrag", "run", self.chapter, "--model", self.runs_as, "--profile", self.profile]
        for name, value in self.parameters.items():
            words += ["-p", f"{name}={yaml.safe_dump(value, default_flow_style=True).strip().removesuffix('...').strip()}"]
        return shlex.join(words)


def recordings(root: Path | None = None, chapter: str | None = None) -> list[Recording]:
    """The recordings listed in ``<store>/recordings.yml``, in order, each checked against its chapter's
    profiles and parameters (a ``ValueError`` naming the file and entry, before anything runs)."""
    from lcrag.book.profiles import ProfileError, resolve
    from lcrag.models.registry import parse_spec

    store = Path(root or config.store_dir())
    out = []
    for i, e in enumerate(recordings_in_progress(store).values(), 1):
        where = f"{store / RECORDINGS_FILE}: entry {i} ({e.get('chapter')} / {e.get('model')})"
        unknown = set(e) - {"chapter", "model", "profile", "run_model", "parameters", "started"}
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
        params = e.get("parameters") or {}
        if not isinstance(params, dict):
            raise ValueError(f"{where}: parameters must be a mapping, got {params!r}")
        rec = Recording(e["chapter"], e["model"], e.get("profile") or "default", e.get("run_model"), params)
        try:
            parse_spec(rec.model), parse_spec(rec.runs_as)
            resolve(rec.chapter, rec.profile, rec.parameters)
        except (ProfileError, ValueError) as exc:
            raise ValueError(f"{where}: {exc}") from None
        if chapter is None or rec.chapter == chapter:
            out.append(rec)
    return out


def record(recs: list[Recording], *, progress: bool = True, say=print, out_root: Path | None = None) -> list:
    """Run each recording in record mode, in order (in ``out_root/<chapter>-<n>``, default: where ``lcrag run``
    puts them); stop at the first that fails. The runs' results (:class:`lcrag.book.runner.RunResult`)."""
    from lcrag.book.runner import run_chapter

    results = []
    for i, rec in enumerate(recs, 1):
        say(f"recording: LCRAG_STORE=record {rec.command()}")
        res = run_chapter(rec.chapter, profile=rec.profile, model=rec.runs_as, params=dict(rec.parameters),
                          out_dir=out_root / f"{rec.chapter}-{i}" if out_root else None, store_mode="record",
                          check=False, progress=progress)
        results.append(res)
        usage = res.manifest.get("usage", {})
        say(f"  {res.status} in {res.manifest.get('wall_time_s', 0):.0f} s, "
            f"{usage.get('calls', 0)} calls ({usage.get('by_source', {})})")
        if not res.ok:
            say(f"  error: {res.error}")
            break
    return results


def record_listed(chapter: str | None = None, *, dry_run: bool = False, progress: bool = True, say=print,
                  out_root: Path | None = None) -> bool:
    """``lcrag store record``: the listed recordings (checked first: a bad entry is a ``ValueError`` before any
    run), printed with ``dry_run``, else recorded in order."""
    recs = recordings(chapter=chapter)
    if not recs:
        say("no recordings listed in responses/recordings.yml" + (f" for {chapter}" if chapter else ""))
        return True
    if dry_run:
        for rec in recs:
            say(f"LCRAG_STORE=record {rec.command()}")
        return True
    results = record(recs, progress=progress, say=say, out_root=out_root)
    return len(results) == len(recs) and all(r.ok for r in results)
