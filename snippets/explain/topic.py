"""Graph breaks: its one topic record (``snippets.core.topic``)."""

from __future__ import annotations

from snippets.core.topic import Findings, Producer, Topic
from snippets.explain import costs, fastpath, findings, kinds, tables

TOPIC = Topic("explain", (kinds.GRAPH_BREAKS, kinds.FASTPATH, kinds.CAUSES, kinds.MODELS,
                          kinds.TRANSFORMER_GRAPH, kinds.AGREEMENT), producers={
    costs.KIND: Producer(("cuda", "cpu"), costs.produce_on),
    fastpath.KIND: Producer(("cuda", "cpu"), fastpath.produce_on),
}, findings={
    "explain-costs": Findings(findings.costs, (costs.KIND,)),
    "explain-costs-large": Findings(findings.costs, ("graph-breaks-large",)),
    "explain-fastpath": Findings(findings.fastpath, (fastpath.KIND,)),
}, tables={costs.KIND: tables.costs, fastpath.KIND: tables.fastpath_latency})
