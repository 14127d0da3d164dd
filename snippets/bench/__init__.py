"""The benchmark: eager against torch.compile on the same weights and inputs, in eval without
grad; the first call (the compile) timed apart, then every variant in interleaved rounds."""

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
    """One (model, batch size) while it is measured: its rows so far and the callables to time."""

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


def _prepare(cfg: BenchConfig, name: str, factory: models.Factory, bs: int) -> _Group:
    """The model and its input on the device, in the run's dtype and layout (token ids and
    masks keep their dtype)."""
    device, dtype = torch.device(cfg.device), DTYPES[cfg.dtype]
    model, x = models.build(factory, name, bs)
    model = model.to(device, dtype).eval()
    if cfg.channels_last:
        model = model.to(memory_format=torch.channels_last)
    x = examples.place(x, device, dtype, channels_last=cfg.channels_last)
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


def _start(g: _Group, mode: str) -> tuple[Callable[[], object], object, float]:
    """A variant's callable, its first answer and the seconds that answer took: the compile, or
    for the hand capture its warm-up and capture."""
    if mode == "eager-graphed":
        return cudagraph.capture_timed(g.model, g.x, g.device)
    backend = mode == "cudagraphs-backend"  # Dynamo's graph replayed, no Inductor to cache
    options = {"backend": "cudagraphs"} if backend else {"mode": mode}
    cold = g.cfg.cold_compile and not backend
    with backends.cold_cache(reset=False) if cold else contextlib.nullcontext():
        # The first call compiles: timed whole, apart from every later (steady) call.
        run = examples.bind(torch.compile(g.model, **options), g.x)
        out, seconds = measure.time_first_call(run, g.device)
    return run, out, seconds


def _compile_mode(g: _Group, mode: str) -> dict[str, Any] | None:
    """Compile one mode (or capture one graph variant) and check its output; a fault is returned
    as that mode's finished row. A graph compiled while warming up is a recompile (a guard that
    failed on a repeated call)."""
    if mode in GRAPH_VARIANTS and g.device.type != "cuda":
        return new_row(g.name, g.bs, mode, status="unsupported", **g.common, message="needs CUDA")
    tol = TOLERANCE[g.cfg.dtype]
    graphs_before, skips_before = counters.graphs_compiled(), counters.cudagraph_skips()
    try:
        run, out, compile_s = _start(g, mode)
        graphs = counters.graphs_compiled() - graphs_before
        err = examples.relative_error(out, g.ref)
        del out  # a CUDA-graph output is overwritten by the next replay; hold none
        for _ in range(g.cfg.warmup):  # here, so a fault while warming (a CUDA-graph
            run()  # capture, say) is this mode's row and not the whole group's
    except Exception as exc:  # one configuration's fault is its row's, the run goes on
        status, msg = rows.fault(exc)
        return new_row(g.name, g.bs, mode, status=status, message=msg, **g.common)
    ok = err <= tol
    g.rows[mode] = new_row(g.name, g.bs, mode, compile_s=compile_s, rel_err=err,
                        **g.common, graphs_compiled=graphs,
                        recompiles=counters.graphs_compiled() - graphs_before - graphs,
                        cudagraph_skips=counters.cudagraph_skips() - skips_before,
                        status="ok" if ok else "mismatch",
                        message="" if ok else f"rel_err {err:.3g} above {tol}")
    if mode == "eager-graphed":
        g.rows[mode]["copies_input"] = True  # files recorded before copied nothing per call
    g.fns[mode] = run
    return None


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
    progress(f"{name} bs={bs}: eager")
    _reference(g)
    for mode in cfg.modes:
        if mode != "eager":
            progress(f"compiling {name} bs={bs} {mode}")
            fault = _compile_mode(g, mode)
            if fault:
                yield fault
    progress(f"timing {name} bs={bs}")
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
    """Every row of a resolved config, group after group, under its backend settings. ``peak``:
    the measured bf16 matmul TFLOP/s; ``group``: the speed ladder's and the zoo's own."""
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
    """A config's results document; ``on_row`` sees it after each row (to save it). ``group``,
    ``ceilings``, ``kind`` and ``settings`` are for the runs built on the benchmark's."""
    cfg = cfg.resolve()
    return runs.document(kind, torch.device(cfg.device), {**cfg.settings(), **(settings or {})},
                         lambda peak: run(cfg, peak, progress, group), progress, on_row,
                         commit=commit, ceilings=ceilings)


def produce_on(device: str, **fields: Any) -> Callable[..., dict[str, Any]]:
    """The page's run on one device type: this device's defaults unless ``fields`` say else."""
    return functools.partial(document, BenchConfig(device=device, **fields))


def crosscheck_on(device: str) -> Callable[..., dict[str, Any]]:
    """The page's run timed again by two other timers; on a CPU the transformer alone (short)."""
    return produce_on(device, crosscheck=True,
                      **({"models": ("transformer",)} if device == "cpu" else {}))


def channels_last_on(device: str) -> Callable[..., dict[str, Any]]:
    """ResNet-50 alone in channels_last, eager included: the layout its convolutions prefer."""
    return produce_on(device, models=("resnet50",), channels_last=True)

