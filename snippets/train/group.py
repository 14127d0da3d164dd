"""One model at one batch size, every variant of its training step: the rows of a run."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from snippets.core import measure, models, rows
from snippets.train.step import CUDA_GRAPHS, make_step, optimizer_for

FIRST_STEPS = 3  # timed one by one: the first compiles; the compiled optimizer compiles again
#                  at the second, once its state exists; the third shows the steady state begin


def new_row(model: str, bs: int, variant: str, **fields: Any) -> dict[str, Any]:
    row = {"model": model, "batch_size": bs, "variant": variant, "status": "ok", "message": "",
           "compile_s": None, "first_steps_s": [], "step_ms": None, "speedup": None,
           "speedup_iqr": None, "samples_per_s": None, "flops": None, "tflops": None,
           "pct_of_peak": None, "peak_mem_mb": None, "graph_count": None, "graph_breaks": None,
           "break_reasons": [], "losses": [], "loss_gap": None, "calls_per_sample": None,
           "cpu_steal_pct": None, "sm_clock_mhz": None, "graph_pool_mb": None,
           "graph_pool_shared_with": []}
    row.update(fields)
    return row


def count_flops(model: nn.Module, x: torch.Tensor, y: torch.Tensor,
                amp_dtype: torch.dtype | None) -> int:
    """FLOPs of one forward and backward pass (the optimizer's few are left out)."""
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        with torch.autocast(x.device.type, dtype=amp_dtype, enabled=amp_dtype is not None):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
    return int(counter.get_total_flops())


def first_line(text: object) -> str:
    """The first line of Dynamo's graph-break message, which names the cause."""
    return next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")


def _compiled() -> tuple[int, Counter]:
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"]), Counter(counters["graph_break"])


def held_bytes(model: nn.Module, optimizer: torch.optim.Optimizer) -> int:
    """What a variant keeps between steps: weights and buffers, gradients, optimizer state."""
    tensors = [*model.parameters(), *model.buffers()]
    tensors += [p.grad for p in model.parameters() if p.grad is not None]
    tensors += [v for s in optimizer.state.values() for v in s.values()
                if isinstance(v, torch.Tensor)]
    return sum(t.numel() * t.element_size() for t in tensors)


@dataclass
class Group:
    """One (model, batch size) while it is measured: how to build its seeded model, the batch
    and labels, and per variant its step and row."""

    name: str
    factory: models.Factory
    bs: int
    device: torch.device
    amp_dtype: torch.dtype | None
    seed: int
    x: torch.Tensor
    y: torch.Tensor
    steps: dict[str, Callable[[], torch.Tensor]] = field(default_factory=dict)
    held: dict[str, Callable[[], int]] = field(default_factory=dict)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)

    def model(self) -> nn.Module:
        """The model with its initial weights, built from the seed (every variant's start: a
        deep copy would fail on a module that holds something it cannot copy), in training
        mode, in fp32 on the device."""
        torch.manual_seed(self.seed)
        model, _ = models.build(self.factory, self.name, self.bs)
        return model.to(self.device).train()


def prepare(name: str, factory: models.Factory, bs: int, device: torch.device,
            amp_dtype: torch.dtype | None, seed: int) -> Group:
    """The seeded model in training mode on the device (fp32 weights), its batch, and labels
    drawn from ``seed`` over as many classes as the model has outputs."""
    torch.manual_seed(seed)
    model, x = models.build(factory, name, bs)
    model, x = model.to(device).eval(), x.to(device)
    with torch.no_grad():
        classes = model(x[:1]).shape[-1]
    labels = torch.randint(0, classes, (bs,), generator=torch.Generator().manual_seed(seed))
    return Group(name, factory, bs, device, amp_dtype, seed, x, labels.to(device))


def first_steps(g: Group, variant: str, steps: int, lr: float) -> dict[str, Any]:
    """The variant's first ``steps`` steps from the shared initial weights: the first few timed
    whole, every loss kept, graphs and breaks counted. A fault is the returned row's."""
    torch._dynamo.reset()  # this variant traces and compiles its own graphs
    model = g.model()
    optimizer = optimizer_for(model, lr)
    step = make_step(variant, model, optimizer, g.amp_dtype)
    graphs_before, breaks_before = _compiled()
    losses, first = [], []
    try:
        for i in range(steps):
            with measure.Stopwatch(g.device) as watch:
                loss = step(g.x, g.y)
            if i < FIRST_STEPS:
                first.append(watch.seconds)
            value = loss.item()
            losses.append(value if math.isfinite(value) else None)  # JSON has no NaN
    except Exception as exc:
        if variant == "eager":
            raise  # without eager's steps there is nothing to compare with: the group's fault
        status, message = rows.fault(exc)
        return new_row(g.name, g.bs, variant, status=status, message=message)
    graphs, breaks = _compiled()
    new_breaks = breaks - breaks_before
    g.steps[variant] = lambda: step(g.x, g.y)
    g.held[variant] = lambda: held_bytes(model, optimizer)
    return new_row(g.name, g.bs, variant, compile_s=sum(first), first_steps_s=first,
                   losses=losses, graph_count=graphs - graphs_before,
                   graph_breaks=sum(new_breaks.values()),
                   break_reasons=list(dict.fromkeys(first_line(r) for r in new_breaks)))


def timed_rows(g: Group, timed: measure.Timed, evidence: dict[str, Any], flops: int | None,
               peak_tflops: float | None) -> Iterator[dict[str, Any]]:
    """The rows with their step times: median and spread, speedup over eager, throughput."""
    mems = {v: measure.peak_memory_mb(s, g.device, g.held[v]()) for v, s in g.steps.items()}
    # The CUDA-graph variants' pool, which a replay does not allocate: one pool per device, so
    # where two such variants ran in the group, both hold a share of the one number.
    graphed = [v for v in g.steps if v in CUDA_GRAPHS]
    pool = measure.graph_pool_mb(g.device) if graphed else None
    for variant, row in g.rows.items():
        if variant not in g.steps:  # faulted before timing: its row is final
            yield row
            continue
        m = timed[variant]
        row.update(evidence, samples_per_s=g.bs / (m.median * 1e-3), peak_mem_mb=mems[variant],
                   flops=flops)
        if variant in graphed and pool is not None:
            row["graph_pool_mb"] = pool
            row["graph_pool_shared_with"] = [v for v in graphed if v != variant]
        yield rows.finish(row, m, calls=timed.calls[variant], flops=flops,
                          peak_tflops=peak_tflops, field="step_ms",
                          baseline=timed["eager"] if variant != "eager" else None)
