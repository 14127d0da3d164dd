"""What Dynamo and Inductor have done in this process, from their own counters
(``torch._dynamo.utils.counters``, which no call resets): the graphs compiled, and the CUDA graphs
Inductor skipped. Every producer that counts compiles reads them here; a difference of two
readings is what the code between them did."""

from __future__ import annotations


def graphs_compiled() -> int:
    """Graphs Dynamo has compiled in this process (``counters["stats"]["unique_graphs"]``, bumped
    in ``torch/_dynamo/output_graph.py`` for each graph it hands to a backend)."""
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


def cudagraph_skips() -> int:
    """Compiled graphs Inductor ran without a CUDA graph (``counters["inductor"]
    ["cudagraph_skips"]``, bumped in ``torch/_inductor/cudagraph_utils.py`` with the reason it
    logs)."""
    from torch._dynamo.utils import counters

    return int(counters["inductor"]["cudagraph_skips"])
