"""Every result the site executes at each build on any machine, by the name its page shows it
under (``pages.live(name, render)``).

Listed once, here, so that a build knows them all before the first page is rendered: the
prefetcher (``snippets.site.prefetch``) executes the missing ones in a second process while the
pages render, and a page and the prefetcher compute the same cache key for the same name. In
the order MkDocs renders them (pages by file name, the Results page last; within a page, from the
top): the pages execute them in this order, and the prefetcher starts from the end.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from snippets import debug, dynamic
from snippets.dynamic import recompiles
from snippets.explain import agreement, counts, fastpath, logs
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
