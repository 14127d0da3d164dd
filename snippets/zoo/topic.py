"""The zoo: its one topic record (``snippets.core.topic``)."""

from __future__ import annotations

from snippets.bench import graphs, tables
from snippets.core.topic import Findings, Topic
from snippets.zoo import findings, kernels, kinds

TOPIC = Topic("zoo", (kinds.ZOO,), findings={
    "zoo": Findings(findings.of, ("zoo",)),
    # The zoo's models with the graph variants, and wav2vec2's profiled ladder: GPU, recorded.
    "zoo-graphs": Findings(graphs.of, ("zoo-graphs",)),
    "zoo-kernels": Findings(kernels.of, ("zoo-wav2vec2-ladder",)),
}, tables={kinds.ZOO.name: tables.table})  # the benchmark's rows over the zoo's catalog
