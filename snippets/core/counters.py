"""Dynamo's and Inductor's counters (``torch._dynamo.utils.counters``, never reset): a difference
of two readings is what the code between them did."""

from __future__ import annotations


def graphs_compiled() -> int:
    """Graphs Dynamo handed to a backend (``torch/_dynamo/output_graph.py``)."""
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


def cudagraph_skips() -> int:
    """Graphs Inductor ran without a CUDA graph (``torch/_inductor/cudagraph_utils.py``)."""
    from torch._dynamo.utils import counters

    return int(counters["inductor"]["cudagraph_skips"])
