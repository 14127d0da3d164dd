"""Newer switches of ``torch.compile`` a service reaches for, each run on a small model on the CPU,
with what it changed counted: compiles, and the graphs' operations. Nothing here is timed."""

from __future__ import annotations

import importlib
import subprocess
import sys
from typing import Any

# torch and nn are imported in the shown sections below, so that each runs alone
from snippets.core import process, torch_logs

STANCES = ("default", "eager_on_recompile", "eager_then_compile")
# What each API is, by where the installed torch keeps it.
APIS = {
    "eager_on_recompile": "stance",
    "eager_then_compile": "stance",
    "nested_compile_region": "torch.compiler.nested_compile_region",
    "skip_guard_on_inbuilt_nn_modules_unsafe":
        "torch.compiler.skip_guard_on_inbuilt_nn_modules_unsafe",
    "triton_op": "torch.library.triton_op",
    "custom_op": "torch.library.custom_op",
}


class Counter:
    """A backend that runs the graph as Dynamo recorded it and counts what it was handed."""

    def __init__(self) -> None:
        self.graphs = 0
        self.ops = 0
        self.subgraph_calls = 0

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list[Any]):
        self.graphs += 1
        for node in gm.graph.nodes:
            if node.op == "call_function" and "invoke_subgraph" in str(node.target):
                self.subgraph_calls += 1
            elif node.op in ("call_function", "call_method", "call_module"):
                self.ops += 1
        return gm.forward


def small() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16)).eval()


# --8<-- [start:stances]
import torch
from torch import nn

# Three calls: a shape, a second one, a third. The second is where the
# default stance compiles again (a size changed, so Dynamo marks it dynamic),
# and the third where a dynamic graph is reused.
SCHEDULE = ((4, 16), (8, 16), (16, 16))


def under_stance(stance: str, model: nn.Module, backend,
                 warm_up: bool = False) -> list[bool]:
    """Call ``model`` compiled with ``backend`` (one that counts its graphs,
    say) on every shape of ``SCHEDULE`` under ``stance`` (with ``warm_up``,
    the first call under the default stance, as a service warms up before it
    takes traffic); whether each answer matched eager's."""
    compiled = torch.compile(model, backend=backend)
    matched = []
    with torch.no_grad():
        for i, shape in enumerate(SCHEDULE):
            x = torch.randn(shape)
            now = "default" if warm_up and i == 0 else stance
            with torch.compiler.set_stance(now):
                matched.append(torch.allclose(compiled(x), model(x)))
    return matched
# --8<-- [end:stances]


def stances() -> list[dict[str, Any]]:
    """A row per stance: how many graphs it compiled over the schedule, and whether every
    answer matched eager's. ``eager_on_recompile`` twice: from the first call, and after a
    warm-up under the default stance."""
    out = []
    for stance, warm_up in [*((s, False) for s in STANCES), ("eager_on_recompile", True)]:
        torch._dynamo.reset()
        counter = Counter()
        matched = under_stance(stance, small(), counter, warm_up)
        out.append({"stance": stance, "warm_up": warm_up, "calls": len(SCHEDULE),
                    "compiles": counter.graphs, "all_correct": all(matched)})
    return out


def print_default_stance() -> None:
    """``disabled``'s child: the graphs the default stance compiled, and whether every answer
    matched eager's."""
    counter = Counter()
    matched = under_stance("default", small(), counter)
    print(counter.graphs, all(matched))


def disabled() -> dict[str, Any]:
    """The same schedule in a process started with ``TORCH_COMPILE_DISABLE=1``: torch reads it
    once, when ``torch._dynamo.config`` first loads (``disable``; the first ``torch.compile``,
    not ``import torch``), so it needs a process of its own."""
    env = process.child_env(TORCH_COMPILE_DISABLE="1")
    proc = subprocess.run([sys.executable, "-c", torch_logs.call(print_default_stance)],
                          env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode:
        return {"stance": "TORCH_COMPILE_DISABLE=1", "warm_up": False, "calls": len(SCHEDULE),
                "compiles": None,
                "all_correct": False, "message": proc.stderr.strip().splitlines()[-1][:200]}
    graphs, matched = proc.stdout.split()[-2:]
    return {"stance": "TORCH_COMPILE_DISABLE=1", "warm_up": False, "calls": len(SCHEDULE),
            "compiles": int(graphs), "all_correct": matched == "True"}


# --8<-- [start:region]
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm, self.ff = nn.LayerNorm(64), nn.Linear(64, 64)

    @torch.compiler.nested_compile_region  # traced once, called again
    def forward(self, x):
        return x + torch.relu(self.ff(self.norm(x)))
# --8<-- [end:region]


class Plain(Block):
    def forward(self, x):  # the same block, unmarked
        return x + torch.relu(self.ff(self.norm(x)))


def regions(blocks: int = 8) -> list[dict[str, Any]]:
    """The ops in the graph Dynamo hands the backend for ``blocks`` identical blocks, marked and
    not: unmarked, every block's ops are in it again; marked, one block's are traced into a
    subgraph and the graph calls it once per block."""
    out = []
    for name, cls in (("unmarked", Plain), ("nested_compile_region", Block)):
        torch._dynamo.reset()
        torch.manual_seed(0)
        model = nn.Sequential(*(cls() for _ in range(blocks))).eval()
        counter = Counter()
        x = torch.randn(4, 64)
        with torch.no_grad():
            same = torch.allclose(torch.compile(model, backend=counter)(x), model(x))
        out.append({"variant": name, "blocks": blocks, "graphs": counter.graphs,
                    "ops": counter.ops, "subgraph_calls": counter.subgraph_calls,
                    "all_correct": same})
    return out


# --8<-- [start:guards]
def with_fewer_guards(model, backend="inductor"):
    """Compiled without the guards on torch's built-in modules' attributes:
    faster to check, and wrong if the service changes such a module after
    the first call (the _unsafe in the name)."""
    import torch

    drop = torch.compiler.skip_guard_on_inbuilt_nn_modules_unsafe
    return torch.compile(model, backend=backend,
                         options={"guard_filter_fn": drop})
# --8<-- [end:guards]


def guards() -> dict[str, Any]:
    """Whether the filtered compile runs and answers as eager does."""
    torch._dynamo.reset()
    model, x = small(), torch.randn(4, 16)
    with torch.no_grad():
        same = torch.allclose(with_fewer_guards(model, Counter())(x), model(x))
    return {"variant": "guard_filter_fn", "all_correct": same}


def present() -> dict[str, bool]:
    """Which of ``APIS`` the installed torch has: a stance where ``set_stance`` documents it."""
    doc = torch.compiler.set_stance.__doc__ or ""
    out = {}
    for name, where in APIS.items():
        if where == "stance":
            out[name] = f'"{name}"' in doc
        else:
            mod, _, attr = where.rpartition(".")
            out[name] = hasattr(importlib.import_module(mod), attr)
    return out


def report() -> dict[str, Any]:
    """Everything the page shows, in one value (a live section)."""
    have = present()
    rows = stances() if have["eager_then_compile"] else []
    return {"torch": torch.__version__, "present": have, "stances": rows + [disabled()],
            "regions": regions() if have["nested_compile_region"] else [],
            "guards": guards() if have["skip_guard_on_inbuilt_nn_modules_unsafe"] else None}
