"""The ``lcrag`` command line.

    lcrag run <chapter> [--profile P] [--model SPEC] [-p name=value ...] [--out DIR] [--fresh]
    lcrag book [--profile P] [--model SPEC] [--chapter C ...] [--fresh] [--no-build]
    lcrag sweep [CHAPTER ...] [--spec FILE] [--model SPEC ...] [--profile P] [-p name=VALUES ...] [--cluster ADDR]
    lcrag data fetch [--mirror DIR] [--dataset NAME ...]
    lcrag serve start|stop|status [SPEC]
    lcrag models [fetch [SPEC ...]]
    lcrag cache stats
    lcrag store check|prune [--chapter C]

Exit status: 0 success, 1 failure, 2 usage error. Errors are one line; ``--debug`` adds the traceback.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from typing import Any

from lcrag import __version__, config

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
EPILOG = ("exit status: 0 success, 1 failure, 2 usage or setting error, 130 interrupted, 143 terminated. Environment "
          "variables (LCRAG_MODEL, LCRAG_STORE, LCRAG_OFFLINE, ...): book/how-to-run.md; the package: book/reference.md")


def _err(msg: str) -> None:
    print(f"lcrag: error: {msg}", file=sys.stderr)


def _unavailable(what: str, exc: ImportError) -> RuntimeError:
    return RuntimeError(f"`{what}` is not available in this version: {exc}")


# --------------------------------------------------------------------------------------------
# commands


def cmd_run(args: argparse.Namespace) -> int:
    from lcrag.book.profiles import parse_cli_params
    from lcrag.book.runner import run_chapter

    params = parse_cli_params(args.param)
    res = run_chapter(
        args.chapter,
        profile=args.profile,
        model=args.model,
        params=params,
        out_dir=args.out,
        fresh=args.fresh,
        check=False,
        progress=not args.quiet,
    )
    usage = res.manifest.get("usage", {})
    by_source = ", ".join(f"{k} {v}" for k, v in sorted(usage.get("by_source", {}).items())) or "none"
    print(
        f"{res.chapter}: {res.status} in {res.manifest.get('wall_time_s', 0):.1f} s "
        f"(profile {res.profile}, model {res.model})"
    )
    print(f"  model calls: {usage.get('calls', 0)} ({by_source}), cost ${usage.get('cost_usd', 0.0):.4f}")
    print(f"  notebook:    {res.notebook}")
    print(f"  manifest:    {res.out_dir / 'manifest.json'}")
    if not res.ok:
        _err(res.error or "chapter failed")
        return EXIT_FAIL
    return EXIT_OK


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}")
    return int(text)


def cmd_book(args: argparse.Namespace) -> int:
    from lcrag.book.build import BookError, build_book

    try:
        res = build_book(
            chapters=args.chapter or None,
            profile=args.profile,
            model=args.model,
            fresh=args.fresh,
            build=not args.no_build,
            progress=not args.quiet,
            jobs=args.jobs,
            force=args.rerun,
        )
    except BookError as exc:
        _err(str(exc))
        if exc.result.html:
            print(f"book (with failures): {exc.result.html}")
        return EXIT_FAIL
    if res.html is None:
        print(f"pages prepared in {config.project_root() / 'book' / 'executed'} (not built: --no-build)")
    return EXIT_OK


def cmd_sweep(args: argparse.Namespace) -> int:
    import time

    from lcrag.book import sweep

    spec = sweep.read_spec(args.spec) if args.spec else sweep.SweepSpec(chapters={}, models=[])
    if args.chapter:
        spec.chapters = {c: spec.chapters.get(c, {}) for c in args.chapter}
    spec.models = args.model or spec.models
    spec.profile = args.profile or spec.profile
    spec.grid = {**spec.grid, **sweep.parse_grid_params(args.param)}
    tasks = sweep.plan(spec, args.out)
    print(f"sweep: {len(tasks)} tasks on {args.cluster or 'this machine'}")
    t0 = time.monotonic()
    table = sweep.run_sweep(
        tasks,
        n_jobs=args.jobs,
        cluster=args.cluster,
        max_concurrency=args.max_concurrency,
        local_lanes=args.local_lanes,
    )
    path = sweep.save_sweep_table(table, args.table or sweep.default_table_path(args.out))
    shown = ["chapter", "model", "point", "status", "wall_s", "calls", "cost_usd", "out_dir"]
    print(table[shown].to_string(index=False))
    failed = int((~table["ok"]).sum())
    print(f"{len(table) - failed} ok, {failed} failed in {time.monotonic() - t0:.1f} s; table: {path}")
    for row in table[~table["ok"]].itertuples():
        _err(f"{row.chapter} / {row.model} / {row.point or '-'}: {row.error}")
    return EXIT_OK if failed == 0 else EXIT_FAIL


def cmd_data_fetch(args: argparse.Namespace) -> int:
    try:
        from lcrag.data.fetch import fetch
    except ImportError as exc:
        raise _unavailable("lcrag data fetch", exc) from exc
    report = fetch(datasets=args.dataset or None, mirror=args.mirror)
    print(report.summary())
    return EXIT_OK if report.ok else EXIT_FAIL


SERVER_COLUMNS = ("spec", "alive", "healthy", "pid", "port", "base_url", "logits_all", "log")


def _print_records(records: Any, columns: Sequence[str] | None = None) -> None:
    """A list of dicts as a table; with ``columns``, only those present, in that order."""
    if not records:
        print("(none)")
        return
    if isinstance(records, dict):
        records = [records]
    import pandas as pd

    df = pd.DataFrame(list(records))
    if columns and any(c in df.columns for c in columns):
        df = df[[c for c in columns if c in df.columns]]
    print(df.to_string(index=False))


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from lcrag.models import server
    except ImportError as exc:
        raise _unavailable("lcrag serve", exc) from exc
    if args.action == "start":
        h = server.start(args.model or config.default_model())
        print(f"{h.spec}: serving at {h.base_url} (pid {h.pid}, log {h.log})")
    elif args.action == "stop":
        stopped = server.stop(args.model)
        print("stopped: " + ", ".join(stopped) if stopped else "no embedded server was running")
    else:
        _print_records(server.status(), SERVER_COLUMNS)
    return EXIT_OK


def cmd_models(args: argparse.Namespace) -> int:
    """List the embedded models (file, source, whether it is on this machine); ``fetch`` gets their files."""
    from lcrag.models import model_files, wheels
    from lcrag.models.registry import LOCAL_MODELS, parse_spec

    specs = args.specs or [m.spec for m in LOCAL_MODELS.values()]
    if args.action == "fetch":
        for spec in specs:
            path = model_files.gguf_path(parse_spec(spec))
            print(f"{spec}: {path} ({path.stat().st_size / 1e6:.0f} MB, sha256 {model_files.model_digest(path)[:16]}...)")
        return EXIT_OK
    rows = []
    for spec in specs:
        info = parse_spec(spec)
        src = model_files.model_source(info)
        wheel = wheels.WHEEL_MODELS.get(info.gguf)
        rows.append({"model": spec, "kind": info.kind, "window": info.context_window,
                     "source": src.get("source_packages", src.get("file")),
                     "on this machine": "yes" if wheel is None or wheels.target_path(wheel).exists() else
                     "no (fetched on first use, or `lcrag models fetch`)"})
    _print_records(rows)
    return EXIT_OK


def cmd_cache_stats(args: argparse.Namespace) -> int:
    from lcrag.models import store
    from lcrag.models.cache import DiskCache

    for title, stats in (("disk cache", DiskCache().stats()), ("response store", store.stats())):
        print(f"{title}:")
        for k, v in stats.items():
            print(f"  {k}: {v}")
    return EXIT_OK


def cmd_store_check(args: argparse.Namespace) -> int:
    from lcrag.book.store_check import check_store, report

    return EXIT_OK if report(check_store(args.chapter), args.chapter) else EXIT_FAIL


def cmd_store_prune(args: argparse.Namespace) -> int:
    from lcrag.book.store_check import check_store, prune_store

    pruned = prune_store(check_store(args.chapter))  # ValueError (a run missing keys): one line, exit 1
    for path, n in pruned.items():
        print(f"{path}: {n} orphan entries removed")
    if not pruned:
        print("no orphan entries" + (f" for {args.chapter}" if args.chapter else ""))
    return EXIT_OK


def cmd_store_stats(args: argparse.Namespace) -> int:
    from lcrag.models.store import ResponseStore

    rows = ResponseStore().tally(args.chapter)
    if not rows:
        print("the store holds no entries" + (f" for {args.chapter}" if args.chapter else ""))
        return EXIT_OK
    _print_records(rows)
    return EXIT_OK


def cmd_store_record(args: argparse.Namespace) -> int:
    from lcrag.book.recording import record_listed

    return EXIT_OK if record_listed(args.chapter, dry_run=args.dry_run, progress=not args.quiet) else EXIT_FAIL


# --------------------------------------------------------------------------------------------
# parser


def build_parser() -> argparse.ArgumentParser:
    from lcrag.book.profiles import PROFILES, available_chapters  # named in the run parser's help
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors"
    )

    p = argparse.ArgumentParser(
        prog="lcrag", description="Long context or RAG? Run chapters, build the book.", parents=[common], epilog=EPILOG
    )
    p.add_argument("--version", action="version", version=f"lcrag {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    model_help = f"model spec (default: $LCRAG_MODEL or {config.DEFAULT_MODEL})"

    r = sub.add_parser("run", parents=[common], help="execute one chapter")
    r.add_argument("chapter", help=f"{', '.join(available_chapters())} (notebooks/<chapter>.md), or a .md notebook's path")
    r.add_argument("--profile", default="default", help=f"{' | '.join(PROFILES)} (default: default)")
    r.add_argument("--model", default=None, help=model_help)
    r.add_argument("-p", "--param", action="append", metavar="NAME=VALUE", default=[],
                   help="override a parameter (value parsed as YAML); repeatable")
    r.add_argument("--out", default=None, help="run directory (default: runs/<model>/<profile>/<chapter>)")
    r.add_argument(
        "--fresh",
        action="store_true",
        help="record this run's answers again in the chapter's store file for the model (from the model, or "
        "the disk cache); its other entries are kept, and the file is put back if the run fails",
    )
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=cmd_run)

    b = sub.add_parser("book", parents=[common], help="run the book's chapters and build the HTML")
    b.add_argument("--profile", default="default", help=f"{' | '.join(PROFILES)}: every chapter's (default: default)")
    b.add_argument("--model", default=None, help=model_help)
    b.add_argument("--chapter", action="append", default=[], help="run only this chapter; repeatable")
    b.add_argument("--fresh", action="store_true", help="re-record the response store of each chapter run")
    b.add_argument("--no-build", action="store_true", help="run and gather pages, do not call jupyter-book")
    b.add_argument("-q", "--quiet", action="store_true", help="no progress bars, no Sphinx status lines")
    b.add_argument("--rerun", action="store_true",
                   help="execute every chapter, also those whose inputs did not change since their last book run")
    b.add_argument("-j", "--jobs", type=_positive_int, default=None, metavar="N",
                   help="chapters run at once (default: $LCRAG_JOBS, else one per core, at most 4)")
    b.set_defaults(func=cmd_book)

    sw = sub.add_parser("sweep", parents=[common], help="run chapters x models x parameter grids")
    sw.add_argument("chapter", nargs="*", help="chapters to run (or the spec's)")
    sw.add_argument("--spec", default=None, metavar="FILE", help="a YAML sweep spec (see lcrag.book.sweep)")
    sw.add_argument("--model", action="append", default=[], help=model_help + "; repeatable")
    sw.add_argument(
        "--profile", default=None, help="the profile of every run (default: the spec's, else default)"
    )
    sw.add_argument(
        "-p",
        "--param",
        action="append",
        metavar="NAME=VALUES",
        default=[],
        help="sweep a parameter over a YAML list, e.g. n_items='[5, 10]'; repeatable (cartesian product)",
    )
    sw.add_argument("--out", default=None, metavar="ROOT", help="root of the run directories (default: runs/)")
    sw.add_argument("--table", default=None, metavar="CSV", help="where to save the sweep table")
    sw.add_argument(
        "--jobs", type=int, default=None, help="lanes at once (default: 1; all workers on a cluster)"
    )
    sw.add_argument(
        "--cluster", default=None, metavar="ADDRESS", help="a Dask scheduler, e.g. tcp://host:8786"
    )
    sw.add_argument(
        "--max-concurrency", type=int, default=4, help="tasks at once per remote endpoint (default: 4)"
    )
    sw.add_argument(
        "--local-lanes",
        type=int,
        default=1,
        help="lanes per embedded model, for clusters of machines (default: 1)",
    )
    sw.set_defaults(func=cmd_sweep)

    d = sub.add_parser("data", parents=[common], help="datasets")
    dsub = d.add_subparsers(dest="action", metavar="ACTION", required=True)
    df = dsub.add_parser(
        "fetch", parents=[common], help="download (or copy from a mirror) and verify datasets"
    )
    df.add_argument(
        "--mirror", default=None, metavar="DIR", help="copy from this directory instead of downloading"
    )
    df.add_argument(
        "--dataset", action="append", default=[], metavar="NAME", help="only this dataset; repeatable"
    )
    df.set_defaults(func=cmd_data_fetch)

    s = sub.add_parser("serve", parents=[common], help="the embedded llama.cpp server")
    s.add_argument("action", choices=["start", "stop", "status"])
    s.add_argument("model", nargs="?", default=None, help="model spec (stop: all servers when omitted)")
    s.set_defaults(func=cmd_serve)

    mo = sub.add_parser("models", parents=[common], help="the embedded models: list, or fetch their files")
    mo.add_argument("action", nargs="?", choices=["list", "fetch"], default="list")
    mo.add_argument("specs", nargs="*", metavar="SPEC", help="local model specs (default: all embedded models)")
    mo.set_defaults(func=cmd_models)

    c = sub.add_parser("cache", parents=[common], help="the response cache")
    csub = c.add_subparsers(dest="action", metavar="ACTION", required=True)
    csub.add_parser("stats", parents=[common], help="entries and size").set_defaults(func=cmd_cache_stats)

    st = sub.add_parser("store", parents=[common], help="the committed response store")
    ssub = st.add_subparsers(dest="action", metavar="ACTION", required=True)
    sc = ssub.add_parser("check", parents=[common], help="compare the store with the keys the latest book runs used")
    sp = ssub.add_parser("prune", parents=[common], help="remove the entries no latest book run used (after lcrag book)")
    sr = ssub.add_parser("record", parents=[common], help="record responses/recordings.yml's files, in order")
    sr.add_argument("--dry-run", action="store_true", help="print the runs, start none")
    sr.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    ss = ssub.add_parser("stats", parents=[common],
                         help="calls, recorded model seconds and tokens per store file and answering model")
    for parser_, func in ((sc, cmd_store_check), (sp, cmd_store_prune), (sr, cmd_store_record), (ss, cmd_store_stats)):
        parser_.add_argument("--chapter", default=None)
        parser_.set_defaults(func=func)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``lcrag`` script; returns the exit status."""
    from lcrag.book.profiles import UsageError

    parser = build_parser()
    args = parser.parse_args(argv)  # exits with 2 on a usage error
    debug = getattr(args, "debug", False)
    try:
        return args.func(args)
    except (UsageError, config.SettingError) as exc:
        if debug:
            traceback.print_exc()
        _err(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM during a chapter (run_errors.Terminated): a chapter run's
        # names its partial notebook and how to resume (lcrag.book.run_errors.with_where)
        _err(str(exc) or "interrupted; run the same command again to resume from the response cache")
        return 143 if type(exc).__name__ == "Terminated" else 130
    except Exception as exc:  # one clear line for anything else
        if debug:
            traceback.print_exc()
        _err(f"{exc}" if isinstance(exc, RuntimeError) else f"{type(exc).__name__}: {exc}")
        return EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main())
