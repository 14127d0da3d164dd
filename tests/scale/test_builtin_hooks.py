"""When a frame in torch/nn/modules/ starts a graph after a break, on the installed torch
(2.14.1), on the CPU: a built-in module with hooks does (trace_rules.check_verbose lets its
forward be traced); the class fully_shard swaps in does not (its __module__ is not torch.nn's)."""

from __future__ import annotations

import torch
from torch import nn
from torch._dynamo.utils import counters
from torch.distributed.fsdp._fully_shard._fsdp_init import _apply_to_module


class _Marker:  # stands for FSDPModule: the class swap is what matters, not its methods
    pass


def _graphs(swap: bool) -> tuple[int, int]:
    """Graphs and breaks of an nn.Linear whose forward pre-hook breaks the graph, compiled in
    place with backend="eager", its class swapped as fully_shard swaps it or not."""
    torch._dynamo.reset()
    counters.clear()
    layer = nn.Linear(4, 4)
    layer.register_forward_pre_hook(lambda mod, args: torch._dynamo.graph_break())
    if swap:
        _apply_to_module([layer], {}, _Marker, "FSDP", lambda *a, **k: None)
        assert type(layer).__module__.startswith("torch.distributed.")
    layer.compile(backend="eager")
    layer(torch.randn(2, 4))
    torch._dynamo.reset()
    return counters["stats"]["unique_graphs"], sum(counters["graph_break"].values())


def test_a_builtin_module_with_hooks_starts_a_graph_in_its_forward():
    graphs, breaks = _graphs(swap=False)
    assert graphs == 1 and breaks > 0


def test_after_the_class_swap_of_fully_shard_its_forward_runs_eagerly():
    graphs, breaks = _graphs(swap=True)
    assert graphs == 0 and breaks > 0
