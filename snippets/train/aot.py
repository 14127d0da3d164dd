"""What AOTAutograd traces of a training step: the graphs it hands the compiler, looked at."""

from __future__ import annotations

import copy
import functools
from collections import Counter
from typing import Any

import torch
from torch import nn

from snippets.train.group import first_line
from snippets.train.step import optimizer_for, train_step

LOSS_OPS = ("nll_loss", "log_softmax")  # what F.cross_entropy becomes in a traced graph


def _recording_backend(graphs: list[dict[str, Any]]):
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.aot_autograd import make_boxed_func

    def keep(kind: str):
        def compiler(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]):
            ops = [str(getattr(n.target, "__name__", n.target)) for n in gm.graph.nodes
                   if n.op == "call_function"]
            graphs.append({"kind": kind, "ops": ops})
            return make_boxed_func(gm.forward)  # run the graph as traced
        return compiler

    return aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward"))


def _small() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 10))
    return model, torch.randn(4, 16), torch.randint(0, 10, (4,))


def _has_loss(ops: list[str]) -> bool:
    return any(op.startswith(LOSS_OPS) for op in ops)


def traced() -> list[dict[str, Any]]:
    """For compiling the model and compiling the whole step: the graphs AOTAutograd made (kind,
    operator count, whether the loss is in it), in the order they were compiled, and the first
    line of each of Dynamo's graph-break reasons."""
    from torch._dynamo.utils import counters

    base, x, y = _small()
    out = []
    for variant in ("model", "step"):
        torch._dynamo.reset()
        graphs: list[dict[str, Any]] = []
        backend = _recording_backend(graphs)
        model = copy.deepcopy(base)
        optimizer = optimizer_for(model, 1e-3)
        # make_step's two compiled variants, with this backend in place of Inductor
        if variant == "model":
            step = functools.partial(train_step, torch.compile(model, backend=backend), optimizer)
        else:
            step = functools.partial(torch.compile(train_step, backend=backend), model, optimizer)
        before = Counter(counters["graph_break"])
        step(x, y)
        breaks = Counter(counters["graph_break"]) - before
        out.append({
            "variant": variant,
            "graphs": [{"kind": g["kind"], "ops": len(g["ops"]), "loss": _has_loss(g["ops"])}
                       for g in graphs],
            "breaks": sum(breaks.values()),
            "reasons": list(dict.fromkeys(first_line(r) for r in breaks)),
        })
    torch._dynamo.reset()
    return out
