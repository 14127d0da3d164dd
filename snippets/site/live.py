"""Every result the site executes at each build on any machine, by the name its page shows it
under (``pages.live(name, render)``).

Listed once, here, so that a build knows them all before the first page is rendered: the
prefetcher (``snippets.site.prefetch``) executes the missing ones in a second process while the
pages render, and a page and the prefetcher compute the same cache key for the same name. In
the order MkDocs renders them (pages by file name, the Results page last; within a page, from the
top): the pages execute them in this order, and the prefetcher starts from the end.

``python -m snippets.site.live`` executes them all and records their values in ``live-sections/``,
committed, so a recorded build from a fresh clone renders them without executing them: every
one compiles on the CPU, and together they were most of such a build's time. A record serves
only the code, configuration and torch release that made it (``cache.record_key``); after a
change to the code a section runs, the build executes that section again until it is
re-recorded, and ``--check`` (and the suite) names the sections whose record is stale.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from typing import Any

from snippets import debug, dynamic
from snippets.core import cli, results
from snippets.dynamic import recompiles
from snippets.explain import agreement, counts, fastpath, logs
from snippets.production import apis
from snippets.site import cache
from snippets.site.build import Build, current
from snippets.speed import freezing
from snippets.train import aot

SECTIONS: dict[str, Callable[[], Any]] = {
    # debugging.md: Debugging toolbox
    "debug-trace": debug.trace_report,
    "debug-guards": functools.partial(debug.log, "guards"),
    "debug-dynamic": functools.partial(debug.log, "dynamic"),
    "debug-output-code": functools.partial(debug.log, "output_code"),
    "debug-profile": debug.profile_events,
    "debug-registry": debug.registry_rows,
    # dynamic-shapes.md: Dynamic shapes and recompilation
    "dynamic-counts": dynamic.counts_doc,
    "recompiles-log": recompiles.recompile_log,
    "fail-on-recompile": recompiles.stance_demo,
    # graph-breaks.md: Finding graph breaks
    "explain-causes": counts.causes_doc,
    "graph-breaks-log": logs.graph_break_log,
    "fullgraph-error": logs.fullgraph_text,
    agreement.KIND: agreement.produce,
    "explain-models": counts.models_doc,
    "transformer-graph": fastpath.graph_doc,
    # production.md: Putting it in production
    "production-apis": apis.report,
    # speed.md: How fast can it go
    "speed-freezing": freezing.compared,
    # training.md: Training
    "train-aot": aot.traced,
}


def producer(name: str) -> Callable[[], Any]:
    try:
        return SECTIONS[name]
    except KeyError:
        raise KeyError(f"no live section {name!r}: add it to snippets.site.live.SECTIONS") from None


def value(name: str, build: Build | None = None,
          produce: Callable[[], Any] | None = None) -> tuple[Any, dict[str, Any]]:
    """A live section's value and where it came from: the repository's record where it is
    current (``cache.recorded``), else the build's cache, executing it there when new."""
    build = build or current()
    produce = produce or producer(name)
    found = cache.recorded(f"live-{name}", produce, build)
    return found if found is not None else cache.cached(f"live-{name}", produce, build)


def stale(build: Build) -> list[str]:
    """The sections whose record is missing or was made by other code, configuration or torch."""
    return [name for name, produce in SECTIONS.items()
            if cache.recorded(f"live-{name}", produce, build) is None]


PROG = "python -m snippets.site.live"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=PROG, description=(
        "Execute the site's live sections and record their values in live-sections/, so a "
        "build from a fresh clone renders them without executing them."))
    p.add_argument("names", nargs="*", help="the sections to record (default: every stale one)")
    p.add_argument("--all", action="store_true", help="record every section, stale or not")
    p.add_argument("--check", action="store_true",
                   help="record nothing; list the stale sections and exit 1 if there are any")
    args = p.parse_args(argv)
    build = Build(docs_dir=current().docs_dir)
    unknown = [n for n in args.names if n not in SECTIONS]
    if unknown:
        cli.fail(PROG, f"no live section {unknown[0]!r}; known: {', '.join(SECTIONS)}")
    if args.check:
        found = stale(build)
        for name in found:
            print(f"stale: {name}")
        return 1 if found else 0
    todo = args.names or (list(SECTIONS) if args.all else stale(build))
    commit = cli.commit_from_env() or results.git_commit()
    for name in todo:  # in page order, as a build executes them
        meta = cache.record(f"live-{name}", SECTIONS[name], build, commit)
        print(f"{name}: {meta['seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
