"""Every live section the pages show (``pages.live(name, render)``): a cheap result (graph and
break counts, a log, a traced graph) that runs on any machine, in page order.

``python -m snippets.site.produce`` records their values in ``live-sections/``, committed; a
build renders them and executes nothing. A record made by other code (``cache.record_key``)
still renders, and ``python -m snippets.site.live --check`` names it stale.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from snippets import debug
from snippets.core import cli, flags
from snippets.dynamic import producer, recompiles
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
    "dynamic-counts": producer.counts_doc,
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


def value(name: str, build: Build | None = None) -> tuple[Any, dict[str, Any]]:
    """A live section's recorded value and its metadata (where, when, by which commit)."""
    if name not in SECTIONS:
        raise KeyError(f"no live section {name!r}")
    found = cache.read_record(f"live-{name}", build or current())
    if found is None:
        raise FileNotFoundError(f"unrecorded: snippets.site.produce --only {name}")
    return found


def stale(build: Build) -> list[str]:
    """The sections whose record is missing or was made by other code, configuration or torch."""
    return [name for name, produce in SECTIONS.items()
            if not cache.is_current(f"live-{name}", produce, build)]


PROG = "python -m snippets.site.live"


@dataclass(frozen=True, kw_only=True)
class LiveConfig:
    """The check of the records; it has nothing else to set.

    Attributes:
        check: exit 1 if a section is stale (as it always does)
    """

    check: bool = False


def main(argv: list[str] | None = None) -> int:
    p = cli.Parser(prog=PROG, description="Name the stale live sections.")
    flags.declare(p, LiveConfig)
    flags.build(PROG, LiveConfig, p.parse_args(argv))
    found = stale(Build(docs_dir=current().docs_dir))
    for name in found:
        print(f"stale: {name}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
