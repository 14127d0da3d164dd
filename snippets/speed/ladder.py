"""The speed ladder: from eager, one step at a time, each rung adding one change to the one below.

A rung is a compile mode, a memory layout and Inductor's freezing; its speedup over the rung below
is what that one change buys. Every rung runs on its own copy of the weights, timed in the same
interleaved rounds as the benchmark's modes. Rows use the benchmark's schema (the rung's name is
the row's ``mode``), with ``speedup_prev``, the bytes a call must move at least (``bytes``), and a
``profile`` of the fastest rung and of any rung plainly slower than the one below it (and that one).
Freezing, which Dynamo reads only from Inductor's global switch (see ``frozen``), is also on around
each of a frozen rung's calls, so no rung compiles again while it is timed.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
import torch._dynamo.config
from torch import nn

import snippets.speed.autotune as autotuning  # the module; ``autotune`` is a flag below
from snippets.bench.rows import new_row
from snippets.core import backends, cudagraph, examples, measure, models, roofline
from snippets.speed import settings
from snippets.core import profile as profiler
from snippets.core.rows import fault, finish as finish_row, or_none
from snippets.explain.fastpath import fastpath, has_encoder


@dataclass(frozen=True)
class Rung:
    name: str
    mode: str | None  # None: eager
    channels_last: bool = False
    freezing: bool = False
    fastpath: bool = True  # the encoder's fused fast path (see ``snippets.explain.fastpath``)
    graph_timed: bool = False  # autotuning times its candidates as CUDA-graph replays
    descent: bool = False  # Inductor's coordinate-descent tuning of its own kernels
    by_hand: bool = False  # eager captured in a CUDA graph by hand: a side rung on eager

    @property
    def key(self) -> str:
        """The rung's name on a command line: ``+ CUDA graphs`` is ``cuda-graphs``."""
        return "eager-graphed" if self.by_hand else (
            self.name.removeprefix("+ ").replace(" ", "-").replace("_", "-").lower())


# --8<-- [start:rungs]
def rungs_for(device, x, autotune, encoder=False, graph_timed=False,
              descent=False, by_hand=False):
    """Each rung keeps what the one below did and adds one thing."""
    from snippets.core import examples
    from snippets.speed.ladder import Rung

    cuda, image = device.type == "cuda", examples.has_image(x)
    replay = "reduce-overhead" if cuda else "default"  # no CUDA graphs on CPUs
    rungs = [Rung("eager", None), Rung("compile", "default")]
    if image:  # convolutions prefer NHWC
        rungs.append(Rung("+ channels_last", "default", channels_last=True))
    if cuda:  # one graph replay instead of one launch per kernel
        rungs.append(Rung("+ CUDA graphs", replay, channels_last=image))
    # An encoder's fast path is one fused op per layer, opaque to Inductor;
    # off, Dynamo traces the layer's parts and Inductor fuses around them.
    fast = not encoder
    if encoder:
        rungs.append(Rung("+ no fast path", replay, fastpath=fast))
    # Freezing: the weights become constants of an inference graph, so
    # Inductor folds them, fuses each batch norm into its convolution, and
    # on a CPU lets oneDNN prepack them. Inference only; off by default.
    rungs.append(Rung("+ freezing", replay, channels_last=image,
                      freezing=True, fastpath=fast))
    if descent:  # the part of max-autotune that tunes Inductor's own kernels
        rungs.append(Rung("+ coordinate descent", replay, channels_last=image,
                          freezing=True, fastpath=fast, descent=True))
    if autotune:  # minutes of benchmarking kernel choices per shape
        mode = "max-autotune" if cuda else "max-autotune-no-cudagraphs"
        rungs.append(Rung("+ max-autotune", mode, channels_last=image,
                          freezing=True, fastpath=fast))
    if cuda and graph_timed:  # autotuning's timer without the launch cost
        rungs.append(Rung("+ graph-timed autotune", "max-autotune",
                          channels_last=image, freezing=True,
                          fastpath=fast, graph_timed=True))
    if by_hand:  # eager's kernels in one graph, no compiler: beside eager
        rungs.append(Rung("eager, graphed by hand", None, channels_last=image,
                          by_hand=True))
    return rungs
# --8<-- [end:rungs]


KEYS = ("eager", "compile", "channels-last", "cuda-graphs", "no-fast-path", "freezing",
        "coordinate-descent", "max-autotune", "graph-timed-autotune", "eager-graphed")


# --8<-- [start:options]
def compile_rung(model, rung):
    """A rung's mode and freezing, as this compile's own Inductor options."""
    import torch._inductor

    options = dict(torch._inductor.list_mode_options(rung.mode))
    # For Inductor; Dynamo reads the switch instead (see frozen, below).
    options["freezing"] = rung.freezing
    if rung.descent:
        options["coordinate_descent_tuning"] = True
    return torch.compile(model, options=options)


def frozen(on):
    """Freezing, on around every call of a frozen rung (compile and run):
    ``with frozen(on):``."""
    import torch._inductor.config

    # The option alone is not enough: Dynamo reads the global switch while
    # it traces, to make the weights static. Without it the weights stay
    # inputs of the graph: on a CPU they are not prepacked, and under CUDA
    # graphs every call copies all of them into the graph's buffers.
    return torch._inductor.config.patch(freezing=on)
# --8<-- [end:options]


@dataclass
class Built:
    fn: Callable[[], object]
    compile_s: float | None
    rel_err: float
    weights_bytes: int
    moved: dict[str, int]


def build(rung: Rung, model: nn.Module, x: examples.Example, ref: list[torch.Tensor],
          device: torch.device) -> Built:
    """One rung on its own copy of the weights: laid out, compiled (its first call timed) and
    checked against eager's output."""
    m = copy.deepcopy(model)
    xi = x
    if rung.channels_last and examples.has_image(x):
        m = m.to(memory_format=torch.channels_last)
        xi = examples.place(x, device, channels_last=True)
    weights = examples.parameter_bytes(m)
    if rung.by_hand:
        fn, out, compile_s = cudagraph.capture_timed(m, xi, device)
    elif rung.mode is None:
        fn, out, compile_s = examples.bind(m, xi), examples.call(m, xi), None
    else:
        # A code object of its own per rung: Dynamo keeps compiled code per code object, and with
        # the model's modules inlined it does not tell two copies of one model apart, so two
        # rungs whose options match (the fast path is a switch, not an option) would share one.
        fn = examples.bind(compile_rung(settings.own_function(m), rung), xi)
        out, compile_s = measure.time_first_call(fn, device)
    built = Built(fn, compile_s, examples.relative_error(out, ref), weights,
                  roofline.min_bytes(weights, xi, out))
    del out  # a CUDA-graph output is overwritten by the next replay
    return built


def climb(name: str, factory: models.Factory, bs: int, *, device: torch.device,
          dtype: torch.dtype, autotune: bool, rounds: int, warm_rounds: int, sample_ms: float,
          warmup: int, tolerance: float, peak_tflops: float | None = None,
          only: tuple[str, ...] | None = None, profile_calls: int = 0,
          backends_for: Callable[[str | None], backends.BackendSettings] | None = None,
          progress: Callable[[str], None] = lambda _: None) -> Iterator[dict[str, Any]]:
    """All rungs of one (model, batch size), timed together; a rung that fails is its row.
    ``only`` keeps the rungs of those keys (eager always: speedups are against it);
    ``profile_calls`` calls of the fastest rung are profiled; ``backends_for(mode)`` gives a
    rung its own backend settings (else the run's apply to all)."""
    model, x = models.build(factory, name, bs)
    model, x = model.to(device, dtype).eval(), examples.place(x, device, dtype)
    ref = examples.reference(examples.call(model, x))
    flops = or_none(lambda: models.count_flops(model, x))
    asked = set(only or ())  # the rungs climbed only when asked for by name
    ladder = [r for r in rungs_for(device, x, autotune, has_encoder(model),
                                   "graph-timed-autotune" in asked, "coordinate-descent" in asked,
                                   "eager-graphed" in asked)
              if only is None or r.key in only or r.key == "eager"]

    @contextlib.contextmanager
    def around(rung_name: str) -> Iterator[None]:
        """A rung's backend settings, freezing switch and fast path, around each of its calls,
        so that a compile at any call (the first, or Dynamo's again) sees them."""
        rung = next(r for r in ladder if r.name == rung_name)
        chosen = backends_for(rung.mode).apply() if backends_for else contextlib.nullcontext()
        with chosen, frozen(rung.freezing), fastpath(rung.fastpath):
            yield

    built: dict[str, Built] = {}
    faults: dict[str, dict[str, Any]] = {}
    # Row fields a rung's build records: what autotuning measured (empty where Inductor's cache
    # held every choice), and a graph-timed rung's candidates timed from their launch after all.
    recorded: dict[str, dict[str, Any]] = {}
    torch._dynamo.reset()  # nothing compiled before the ladder counts towards its entries
    # Each rung is compiled for its one shape, as a fresh process would: a rung that differs
    # from the one before only in layout must not be compiled with dynamic strides.
    with torch._dynamo.config.patch(automatic_dynamic_shapes=False):
        for rung in ladder:
            progress(rung.name)
            if rung.by_hand and device.type != "cuda":
                faults[rung.name] = new_row(name, bs, rung.name, status="unsupported",
                                            message="needs CUDA", flops=flops)
                continue
            try:
                tunes = "max-autotune" in (rung.mode or "")
                with around(rung.name), (autotuning.recording(device.type == "cuda") if tunes
                                         else contextlib.nullcontext([])) as ops, (
                        autotuning.graph_timed() if rung.graph_timed
                        else contextlib.nullcontext([])) as uncaptured:
                    b = build(rung, model, x, ref, device)
                    for _ in range(warmup):
                        b.fn()
                built[rung.name] = b
                recorded[rung.name] = {
                    **({"autotune": ops} if tunes else {}),
                    **({"uncaptured": {"count": len(uncaptured),
                                       "first": sorted(set(uncaptured))[:3]}}
                       if rung.graph_timed else {})}
            except Exception as exc:  # one rung's fault is its row; the ladder goes on
                status, msg = fault(exc)
                faults[rung.name] = new_row(name, bs, rung.name, status=status, message=msg,
                                            flops=flops)
        progress(f"timing {len(built)} rungs")
        timed = measure.measure_variants({k: b.fn for k, b in built.items()}, device,
                                         rounds=rounds, sample_ms=sample_ms, warmup=0,
                                         warm_rounds=warm_rounds, around=around)
    rows, prev = [], None
    for rung in ladder:
        if rung.name in faults:
            rows.append(faults[rung.name])
            continue
        b, m = built[rung.name], timed[rung.name]
        row = new_row(name, bs, rung.name, compile_s=b.compile_s, flops=flops,
                      **settings.checked(b.rel_err, tolerance))
        with around(rung.name):
            row["peak_mem_mb"] = or_none(
                lambda b=b: measure.peak_memory_mb(b.fn, device, b.weights_bytes))
        finish_row(row, m, calls=timed.calls[rung.name], flops=flops, peak_tflops=peak_tflops,
                   baseline=timed["eager"] if "eager" in built else None)
        # The side rung stands on eager, not on the rung listed before it, and no rung on it.
        below = "eager" if rung.by_hand and "eager" in built else prev
        row["speedup_prev"] = measure.speedup(timed[below], m).value if below else None
        row["prev_rung"] = below  # the rung below as measured: --rungs may leave one out
        # freezing_switch: set as Inductor's switch while Dynamo traced (see ``frozen``).
        row["rung"] = {"mode": rung.mode,
                       "channels_last": rung.channels_last and examples.has_image(x),
                       "freezing": rung.freezing, "key": rung.key,
                       **({"freezing_switch": True} if rung.freezing else {}),
                       **({"fastpath": False} if not rung.fastpath else {}),
                       **({"by_hand": True} if rung.by_hand else {})}
        row["bytes"] = b.moved
        row.update(recorded[rung.name])
        if backends_for:
            row["backends"] = backends_for(rung.mode).as_dict()
        if not rung.by_hand:
            prev = rung.name
        rows.append(row)
    ok = [r for r in rows if r["status"] in ("ok", "noisy") and r.get("latency_ms")]
    # Besides the fastest rung, a rung plainly slower than the one below it is a surprise that
    # the page must explain: both are profiled, so that it can say what the step changed.
    slower = [r for r in rows if (r.get("speedup_prev") or 1.0) < 1 - measure.NOISY_IQR_RATIO]
    wanted = {r["mode"] for r in slower} | {r["prev_rung"] for r in slower}
    wanted |= {min(ok, key=lambda r: r["latency_ms"]["median"])["mode"]} if ok else set()
    profiled = [r for r in rows if r["mode"] in wanted and r["mode"] in built]
    for row in profiled if profile_calls else []:
        progress(f"profiling {row['mode']}")
        with around(row["mode"]):
            row["profile"] = profiler.profile_or_error(
                built[row["mode"]].fn, device, profile_calls, lambda exc: fault(exc)[1])
    # The slower rung keeps the profile of the rung below as this run measured it: a file that
    # joins several commands keeps the rung below as the first command recorded it (see
    # ``speed.join``), and the reading needs the two profiles of one run.
    for row in slower:
        below = next((r for r in rows if r["mode"] == row["prev_rung"]), None)
        if below is not None and below.get("profile") is not None:
            row["below_profile"] = below["profile"]
    yield from rows
