"""The benchmark: eager against torch.compile on real models, measured honestly.

For each model and batch size, eager and every compiled mode run on the same weights and inputs,
under the same grad mode (eval, no grad). Compile time is the first call, timed apart. After a
warmup, the variants are timed in interleaved rounds; each sample is the per-call latency of a
batch of back-to-back calls, device-synchronized. Every row carries its raw samples.
``python -m snippets.bench`` runs it (``__main__``); ``tables`` draws what it returns.
"""

from __future__ import annotations

import contextlib
import functools
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from snippets.bench import kinds
from snippets.bench.rows import new_row
# The settings, re-exported: a run is bench.BenchConfig(...) wherever it is made.
from snippets.bench.settings import (  # noqa: F401
    DEFAULTS, DTYPES, FAST_MODES, GRAPH_VARIANTS, MODES, TOLERANCE, VARIANTS, BenchConfig,
    cache_state)
from snippets.core import (backends, counters, cudagraph, examples, machine, measure,
                           models, rows, runs)
from snippets.explain import explain


@dataclass
class _Group:
    """One (model, batch size) while it is measured: the model, its input, the eager reference
    and the rows so far, with the callables that will be timed."""

    cfg: BenchConfig
    name: str
    bs: int
    model: nn.Module
    x: examples.Example
    weights: int = 0
    ref: list[torch.Tensor] | None = None
    common: dict[str, Any] = field(default_factory=dict)
    fns: dict[str, Callable[[], object]] = field(default_factory=dict)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def device(self) -> torch.device:
        return torch.device(self.cfg.device)


def prepare(model, x, device, dtype, channels_last=False):
    """The model and its input on the device, in the run's dtype and layout
    (floating-point inputs only: token ids and masks keep their dtype)."""
    model = model.to(device, dtype).eval()
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    x = examples.place(x, device, dtype, channels_last=channels_last)
    return model, x


def _prepare(cfg: BenchConfig, name: str, factory: models.Factory, bs: int) -> _Group:
    """Build the model and its input, and ``prepare`` them for the run."""
    device, dtype = torch.device(cfg.device), DTYPES[cfg.dtype]
    model, x = prepare(*models.build(factory, name, bs), device, dtype, cfg.channels_last)
    return _Group(cfg, name, bs, model, x, examples.parameter_bytes(model))


def _reference(g: _Group) -> None:
    """Eager's output (what every mode is checked against), the FLOPs and Dynamo's graph count."""
    g.ref = examples.reference(examples.call(g.model, g.x))
    flops = rows.or_none(lambda: models.count_flops(g.model, g.x))
    # A model Dynamo cannot trace still has eager numbers; its compiled rows will say why.
    args, kwargs = examples.split(g.x)
    exp = rows.or_none(lambda: explain(g.model, *args, **kwargs))
    g.common = {"flops": flops, "graph_count": exp and exp.graph_count,
                "graph_breaks": exp and exp.graph_break_count}
    torch._dynamo.reset()  # explain's traces must not count against the compiled modes
    eager = examples.bind(g.model, g.x)
    for _ in range(g.cfg.warmup):
        eager()
    g.fns["eager"] = eager
    g.rows["eager"] = new_row(g.name, g.bs, "eager", rel_err=0.0, **g.common)


def compile_and_call(model, x, mode, device):
    """``model`` compiled in ``mode`` and bound to ``x``, its first answer,
    and the seconds that first call took: the compile."""
    compiled = torch.compile(model, mode=mode)
    # The first call compiles: timed whole, apart from every later (steady)
    # call. compiled(x), compiled(*x) or compiled(**x), as the example holds
    run = examples.bind(compiled, x)
    out, compile_s = measure.time_first_call(run, device)
    return run, out, compile_s


def _start(g: _Group, mode: str) -> tuple[Callable[[], object], object, float]:
    """A variant's callable, its first answer and the seconds that answer took: the compile, or
    for the hand capture its warm-up and capture."""
    model, x, device = g.model, g.x, g.device
    if mode == "eager-graphed":
        return cudagraph.capture_timed(model, x, device)
    if mode == "cudagraphs-backend":
        run = examples.bind(torch.compile(model, backend="cudagraphs"), x)
        out, seconds = measure.time_first_call(run, device)
        return run, out, seconds
    cold = backends.cold_cache(reset=False) if g.cfg.cold_compile else contextlib.nullcontext()
    with cold:
        return compile_and_call(model, x, mode, device)


def _compile_mode(g: _Group, mode: str) -> dict[str, Any] | None:
    """Compile one mode (or capture one graph variant) and check its output; a fault is returned
    as that mode's finished row. The row counts the graphs its first call compiled, the graphs
    compiled again while it warmed up (a recompile: a guard that failed on a repeated call) and
    the CUDA graphs Inductor skipped (a reduce-overhead mode that runs without them says so in
    ``cudagraph_skips``)."""
    if mode in GRAPH_VARIANTS and g.device.type != "cuda":
        return new_row(g.name, g.bs, mode, status="unsupported", **g.common,
                       message="a CUDA graph needs a CUDA device")
    tol = TOLERANCE[g.cfg.dtype]
    counts = _Counts()
    try:
        run, out, compile_s = _start(g, mode)
        graphs = counts.graphs()
        err = examples.relative_error(out, g.ref)
        del out  # a CUDA-graph output is overwritten by the next replay; hold none
        for _ in range(g.cfg.warmup):  # here, so a fault while warming (a CUDA-graph
            run()  # capture, say) is this mode's row and not the whole group's
    except Exception as exc:  # one configuration's fault is its row's, the run goes on
        status, msg = rows.fault(exc)
        return new_row(g.name, g.bs, mode, status=status, message=msg, **g.common)
    status, message = rows.answer(err, tol)
    g.rows[mode] = new_row(g.name, g.bs, mode, compile_s=compile_s, rel_err=err,
                        **g.common, graphs_compiled=graphs,
                        recompiles=counts.graphs() - graphs, cudagraph_skips=counts.skips(),
                        status=status, message=message)
    g.fns[mode] = run
    return None


class _Counts:
    """Dynamo's graphs compiled and Inductor's CUDA-graph skips since this was made."""

    def __init__(self) -> None:
        self._graphs, self._skips = counters.graphs_compiled(), counters.cudagraph_skips()

    def graphs(self) -> int:
        return counters.graphs_compiled() - self._graphs

    def skips(self) -> int:
        return counters.cudagraph_skips() - self._skips


def _time(g: _Group) -> tuple[measure.Timed, dict[str, Any], dict[str, float | None]]:
    """Every variant of the group in interleaved rounds, with the machine's evidence beside."""
    cfg, device = g.cfg, g.device
    monitor = machine.Monitor(device)
    gate = measure.HostGate(enabled=cfg.host_gate)
    timed = measure.measure_variants(
        g.fns, device, rounds=cfg.rounds, sample_ms=cfg.sample_ms, warmup=0,  # done above
        warm_rounds=cfg.warm_rounds, after_round=monitor.sample, gate=gate)
    evidence = monitor.summary()
    evidence["rounds_discarded"] = gate.discarded
    evidence["host_canary_us"] = {"best": gate.best_us,
                                  "median": statistics.median(gate.canary_us),
                                  "samples": gate.kept_us}
    mems = {m: measure.peak_memory_mb(f, device, g.weights) for m, f in g.fns.items()}
    if cfg.crosscheck:
        from snippets.bench import crosscheck

        evidence["crosscheck"] = crosscheck.check(g.fns, device, timed.calls)
    return timed, evidence, mems


def _finish(g: _Group, timed: measure.Timed, evidence: dict[str, Any],
            mems: dict[str, float | None], peak_tflops: float | None) -> Iterator[dict[str, Any]]:
    """The timed rows: latency, speedup over eager with its spread, rate, and a noise flag."""
    flops = g.common["flops"]
    for mode, row in g.rows.items():
        row["peak_mem_mb"] = mems[mode]
        row.update({k: v for k, v in evidence.items() if k != "crosscheck"})
        if "crosscheck" in evidence:
            row["crosscheck"] = evidence["crosscheck"][mode]
        yield rows.finish(row, timed[mode], calls=timed.calls[mode], flops=flops,
                          peak_tflops=peak_tflops,
                          baseline=timed["eager"] if mode != "eager" else None)


def measure_group(
    cfg: BenchConfig, name: str, factory: models.Factory, bs: int, peak_tflops: float | None,
    progress: Callable[[str], None],
) -> Iterator[dict[str, Any]]:
    """All rows of one (model, batch size): eager first, then each compiled mode."""
    g = _prepare(cfg, name, factory, bs)
    progress(f"{name} bs={bs}: eager reference")
    _reference(g)
    for mode in cfg.modes:
        if mode != "eager":
            progress(f"{name} bs={bs}: compiling {mode}")
            fault = _compile_mode(g, mode)
            if fault:
                yield fault
    progress(f"{name} bs={bs}: measuring {', '.join(g.fns)}")
    try:
        timed, evidence, mems = _time(g)
    except Exception as exc:
        status, msg = rows.fault(exc)
        for row in g.rows.values():
            yield {**row, "status": status, "message": msg}
        return
    yield from _finish(g, timed, evidence, mems, peak_tflops)


Group = Callable[[BenchConfig, str, models.Factory, int, "float | None",
                  Callable[[str], None]], Iterator[dict[str, Any]]]


def run(cfg: BenchConfig, peak: float | None = None,
        progress: Callable[[str], None] = lambda _: None,
        group: Group | None = None) -> Iterator[dict[str, Any]]:
    """Yield every row of a resolved config, one (model, batch size) group after another, under
    the config's backend settings. ``peak`` is the device's measured bf16 matmul TFLOP/s;
    ``group`` measures one (model, batch size) (default: the modes side by side; the speed
    ladder and the zoo pass their own)."""
    device = torch.device(cfg.device)
    group = group or measure_group
    factories = [(n, models.BUILTIN[n]) for n in cfg.models] + list(cfg.factories)
    with cfg.backends.apply():
        for name, factory in factories:
            for bs in cfg.batch_sizes:
                try:
                    with torch.no_grad():
                        yield from group(cfg, name, factory, bs, peak, progress)
                except models.SpecError:
                    raise
                except Exception as exc:  # the model itself failed (eager OOM at batch 256, say)
                    status, msg = rows.fault(exc)
                    for mode in cfg.modes:
                        yield new_row(name, bs, mode, status=status, message=msg)
                finally:
                    torch._dynamo.reset()
                    with contextlib.suppress(Exception):
                        if device.type == "cuda":
                            torch.cuda.empty_cache()


def document(cfg: BenchConfig, progress: Callable[[str], None] = lambda _: None,
             on_row: Callable[[dict[str, Any]], None] = lambda _: None, *,
             commit: str | None = None, group: Group | None = None,
             ceilings: Callable[[torch.device], dict[str, Any]] | None = None,
             kind: str = kinds.BENCH.name, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """A whole results document for a config: provenance, the measured bf16 peak on CUDA, then
    the rows. ``on_row`` sees the document after each row (to save it); an interrupted run
    leaves it with the finished rows and ``complete`` false. ``group``, ``ceilings``, ``kind``
    and ``settings`` (added to the config's) are for the runs built on the benchmark's."""
    cfg = cfg.resolve()
    return runs.document(kind, torch.device(cfg.device), {**cfg.settings(), **(settings or {})},
                         lambda peak: run(cfg, peak, progress, group), progress, on_row,
                         commit=commit, ceilings=ceilings)


def produce_on(device: str, **fields: Any) -> Callable[..., dict[str, Any]]:
    """The page's run on one device type: this device's defaults unless ``fields`` say else."""
    return functools.partial(document, BenchConfig(device=device, **fields))


def crosscheck_on(device: str) -> Callable[..., dict[str, Any]]:
    """The noise page's cross-check: the page's run timed again by two other timers; on a CPU
    the transformer alone, to keep the produce step short."""
    return produce_on(device, crosscheck=True,
                      **({"models": ("transformer",)} if device == "cpu" else {}))


def channels_last_on(device: str) -> Callable[..., dict[str, Any]]:
    """ResNet-50 alone in channels_last, eager included: the layout its convolutions prefer."""
    return produce_on(device, models=("resnet50",), channels_last=True)

