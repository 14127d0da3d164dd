"""The benchmark: its one topic record (``snippets.core.topic``)."""

from __future__ import annotations

from snippets import bench
from snippets.bench import crosscheck_findings, findings, graphs, independent, kinds, payoff, tables
from snippets.core.topic import Findings, Producer, Topic

TOPIC = Topic("bench", (kinds.BENCH, kinds.INDEPENDENT), producers={
    "bench": Producer(("cuda", "cpu"), bench.produce_on),
    "bench-channels-last": Producer(("cuda",), bench.channels_last_on),
    "bench-crosscheck": Producer(("cuda", "cpu"), bench.crosscheck_on),
}, findings={
    "bench": Findings(findings.of, ("bench",)),
    "bench-crosscheck": Findings(crosscheck_findings.of, ("bench-crosscheck",)),
    # The CUDA graphs without Inductor beside reduce-overhead: recorded only, on a GPU.
    "bench-graphs": Findings(graphs.of, ("bench-graphs",)),
    # The graph-breaks run's small blocks, as the page on when compile does not pay reads them.
    "graph-breaks-tiny": Findings(payoff.tiny, ("graph-breaks",)),
    # The same blocks under CUDA graphs (mode="reduce-overhead"): recorded only, on a GPU.
    "graph-breaks-tiny-graphs": Findings(payoff.tiny, ("graph-breaks-reduce-overhead",)),
}, tables={kinds.BENCH.name: tables.table, independent.KIND: independent.alone_table})
