"""``python -m snippets.bench``: eager against torch.compile on real models, measured honestly.

For each model and batch size, eager and every compiled mode run on the same weights and inputs,
under the same grad mode (eval, no grad). Compile time is the first call, timed apart. After a
warmup, the variants are timed in interleaved rounds; each sample is the per-call latency of a
batch of back-to-back calls, device-synchronized. Every row carries its raw samples.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import torch
import torch._inductor.config
from torch import nn

from snippets import machine, measure, models
from snippets.explain import explain

MODES = ("eager", "default", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# The modes that compile in seconds; max-autotune benchmarks kernel choices and takes minutes.
FAST_MODES = MODES[:3]
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
# Relative error allowed between compiled and eager output. bf16 keeps 8 bits of mantissa, and
# fused kernels round in a different order than eager, so a few percent is rounding, not a bug.
TOLERANCE = {"bf16": 5e-2, "fp16": 1e-2, "fp32": 1e-2}  # fp32 may run as TF32 on CUDA


@dataclass(frozen=True, kw_only=True)
class BenchConfig:
    """Everything one run needs; None means "the default for the device", see ``resolve``."""

    models: tuple[str, ...] = ("resnet50", "transformer")
    batch_sizes: tuple[int, ...] | None = None  # (1, 32) on CUDA, (1,) on CPU
    modes: tuple[str, ...] | None = None  # eager + FAST_MODES on CUDA; eager, default on CPU
    dtype: str | None = None  # bf16 on CUDA (with TF32 for any fp32 matmul), fp32 on CPU
    channels_last: bool = False
    device: str = "auto"
    rounds: int | None = None  # 100 on CUDA, 10 on CPU
    warm_rounds: int | None = None  # untimed interleaved rounds first: 10 on CUDA, 1 on CPU
    sample_ms: float | None = None  # how long one sample lasts: 25 ms on CUDA, 100 ms on CPU
    warmup: int = 3  # calls after compile, before any timing
    # Re-measure rounds timed while the host CPU ran slow (measure.HostGate). Off by default: on
    # the GPU host the slow spells outlasted the budget; the host's speed is recorded either way.
    host_gate: bool = False
    factories: tuple[tuple[str, models.Factory], ...] = ()  # user models from --model

    def resolve(self) -> BenchConfig:
        """Fill every None with the device's default, so the run and its record are explicit."""
        dev = self.device
        if dev == "auto":
            dev = "cuda" if torch.cuda.is_available() else "cpu"
        cuda = dev.startswith("cuda")
        modes = self.modes or (FAST_MODES if cuda else ("eager", "default"))
        if "eager" not in modes:  # every speedup is against the eager row of the same run
            modes = ("eager", *modes)
        return replace(
            self, device=dev, modes=modes,
            batch_sizes=self.batch_sizes or ((1, 32) if cuda else (1,)),
            dtype=self.dtype or ("bf16" if cuda else "fp32"),
            rounds=self.rounds or (100 if cuda else 10),
            warm_rounds=self.warm_rounds if self.warm_rounds is not None else (10 if cuda else 1),
            sample_ms=self.sample_ms or (25.0 if cuda else 100.0),
        )

    def settings(self) -> dict[str, Any]:
        return {
            "models": [*self.models, *(n for n, _ in self.factories)],
            "batch_sizes": list(self.batch_sizes or ()), "modes": list(self.modes or ()),
            "dtype": self.dtype, "tf32": torch.backends.cuda.matmul.allow_tf32,
            "cudnn_benchmark": torch.backends.cudnn.benchmark,
            "channels_last": self.channels_last, "rounds": self.rounds,
            "warm_rounds": self.warm_rounds, "host_gate": self.host_gate,
            "sample_ms": self.sample_ms, "warmup": self.warmup, "grad": False, "train": False,
            # compile_s of a warm cache is seconds where a cold one is a minute: say which applied
            "fx_graph_cache": bool(torch._inductor.config.fx_graph_cache),
            "inductor_cache_dir": os.environ.get("TORCHINDUCTOR_CACHE_DIR"),
        }


def setup_backends(device: torch.device) -> None:
    if device.type == "cuda":
        torch.set_float32_matmul_precision("high")  # TF32 for fp32 matmuls, as production does
        torch.backends.cudnn.allow_tf32 = True
        torch.backends.cudnn.benchmark = True  # fixed shapes: let cuDNN pick its fastest conv


def count_flops(model: nn.Module, x: torch.Tensor) -> int:
    """FLOPs of one forward. The eval-mode transformer's fused fast path hides its matmuls from
    the counter, so it is switched off while counting."""
    from torch.utils.flop_counter import FlopCounterMode

    fastpath = getattr(torch.backends, "mha", None)
    was = fastpath.get_fastpath_enabled() if fastpath else None
    try:
        if fastpath:
            fastpath.set_fastpath_enabled(False)
        with FlopCounterMode(display=False) as counter:
            model(x)
        return int(counter.get_total_flops())
    finally:
        if fastpath:
            fastpath.set_fastpath_enabled(was)


def _row(model: str, bs: int, mode: str, **fields: Any) -> dict[str, Any]:
    row = {"model": model, "batch_size": bs, "mode": mode, "status": "ok", "message": "",
           "compile_s": None, "latency_ms": None, "speedup": None, "speedup_iqr": None,
           "rel_err": None, "peak_mem_mb": None, "flops": None, "tflops": None,
           "pct_of_peak": None, "graph_count": None, "graph_breaks": None, "calls_per_sample": None,
           "cpu_steal_pct": None, "sm_clock_mhz": None, "rounds_discarded": None,
           "host_canary_us": None}
    row.update(fields)
    return row


def _fault(exc: BaseException) -> tuple[str, str]:
    """(status, one-line message) for an exception raised by one configuration."""
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    if isinstance(exc, torch.cuda.OutOfMemoryError) or "out of memory" in first.lower():
        return "oom", first
    return "error", f"{type(exc).__name__}: {first}"


def _or_none(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception:
        return None


def _peak_mem_mb(fn: Callable[[], object], device: torch.device, weights: int) -> float | None:
    """Weights plus what one steady-state call allocates at its peak. CUDA-graph pools are taken
    at capture, not per call, so reduce-overhead's transient memory reads near zero."""
    if device.type != "cuda":
        return None
    torch.cuda.synchronize(device)
    before = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    fn()
    torch.cuda.synchronize(device)
    return (torch.cuda.max_memory_allocated(device) - before + weights) / 2**20


def measure_group(
    cfg: BenchConfig, name: str, factory: models.Factory, bs: int, peak_tflops: float | None,
    progress: Callable[[str], None],
) -> Iterator[dict[str, Any]]:
    """All rows of one (model, batch size): eager first, then each compiled mode."""
    device, dtype = torch.device(cfg.device), DTYPES[cfg.dtype]
    model, x = models.build(factory, name, bs)
    # --8<-- [start:prepare]
    model = model.to(device, dtype).eval()
    x = x.to(device, dtype)
    if cfg.channels_last and x.dim() == 4:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    # --8<-- [end:prepare]
    weights = sum(t.numel() * t.element_size() for t in (*model.parameters(), *model.buffers()))
    progress(f"{name} bs={bs}: eager reference, FLOPs and graph count")
    ref = model(x).float().clone()
    flops = _or_none(lambda: count_flops(model, x))
    # A model Dynamo cannot trace still has eager numbers; its compiled rows will say why.
    exp = _or_none(lambda: explain(model, x))
    common = {"flops": flops, "graph_count": exp and exp.graph_count,
              "graph_breaks": exp and exp.graph_break_count}
    torch._dynamo.reset()  # explain's traces must not count against the compiled modes

    fns: dict[str, Callable[[], object]] = {"eager": lambda: model(x)}
    rows = {"eager": _row(name, bs, "eager", rel_err=0.0, **common)}
    for mode in cfg.modes:
        if mode == "eager":
            continue
        progress(f"{name} bs={bs}: compiling {mode}")
        try:
            # --8<-- [start:compile]
            compiled = torch.compile(model, mode=mode)
            t0 = time.perf_counter()
            out = compiled(x)  # the first call compiles
            measure.synchronize(device)
            compile_s = time.perf_counter() - t0
            # --8<-- [end:compile]
            err = measure.relative_error(out.float(), ref)
            del out  # a CUDA-graph output is overwritten by the next replay; hold none
            for _ in range(cfg.warmup):
                compiled(x)
        except Exception as exc:  # one configuration's fault is its row's, the run goes on
            status, msg = _fault(exc)
            yield _row(name, bs, mode, status=status, message=msg, **common)
            continue
        ok = err <= TOLERANCE[cfg.dtype]
        rows[mode] = _row(name, bs, mode, compile_s=compile_s, rel_err=err, **common,
                          status="ok" if ok else "mismatch",
                          message="" if ok else f"rel_err {err:.3g} above {TOLERANCE[cfg.dtype]}")
        fns[mode] = lambda c=compiled: c(x)

    for _ in range(cfg.warmup):
        model(x)
    progress(f"{name} bs={bs}: measuring {', '.join(fns)}")
    try:
        calls = {m: measure.calls_per_sample(measure.time_calls(f, 3, device), cfg.sample_ms)
                 for m, f in fns.items()}
        monitor = machine.Monitor(device.index or 0 if device.type == "cuda" else None)
        gate = measure.HostGate(enabled=cfg.host_gate)
        timed = measure.interleaved(fns, cfg.rounds, calls, device, cfg.warm_rounds,
                                    after_round=monitor.sample, gate=gate)
        evidence = monitor.summary()
        evidence["rounds_discarded"] = gate.discarded
        evidence["host_canary_us"] = {"best": gate.best_us,
                                      "median": statistics.median(gate.canary_us),
                                      "samples": gate.kept_us}
        mems = {m: _peak_mem_mb(f, device, weights) for m, f in fns.items()}
    except Exception as exc:
        status, msg = _fault(exc)
        for row in rows.values():
            yield {**row, "status": status, "message": msg}
        return
    for mode, row in rows.items():
        m = timed[mode]
        row["latency_ms"] = {"median": m.median, "iqr": m.iqr, "samples": list(m.samples)}
        row["calls_per_sample"], row["peak_mem_mb"] = calls[mode], mems[mode]
        row.update(evidence)
        row["tflops"] = flops / (m.median * 1e-3) / 1e12 if flops else None
        if peak_tflops and row["tflops"] is not None:
            row["pct_of_peak"] = 100 * row["tflops"] / peak_tflops
        if mode != "eager":
            r = measure.speedup(timed["eager"], m)
            row["speedup"], row["speedup_iqr"] = r.value, r.iqr
        if row["status"] == "ok" and m.noisy:
            row["status"], row["message"] = "noisy", f"IQR is {100 * m.iqr_ratio:.1f}% of median"
        yield row


def run(cfg: BenchConfig, peak: float | None = None,
        progress: Callable[[str], None] = lambda _: None) -> Iterator[dict[str, Any]]:
    """Yield every row of a resolved config, one (model, batch size) group after another.
    ``peak`` is the device's measured bf16 matmul TFLOP/s, to put each row's rate against."""
    device = torch.device(cfg.device)
    setup_backends(device)
    factories = [(n, models.BUILTIN[n]) for n in cfg.models] + list(cfg.factories)
    for name, factory in factories:
        for bs in cfg.batch_sizes:
            try:
                with torch.no_grad():
                    yield from measure_group(cfg, name, factory, bs, peak, progress)
            except models.SpecError:
                raise
            except Exception as exc:  # the model itself failed (eager OOM at batch 256, say)
                status, msg = _fault(exc)
                for mode in cfg.modes:
                    yield _row(name, bs, mode, status=status, message=msg)
            finally:
                torch._dynamo.reset()
                with contextlib.suppress(Exception):
                    if device.type == "cuda":
                        torch.cuda.empty_cache()


def document(cfg: BenchConfig, progress: Callable[[str], None] = lambda _: None,
             on_row: Callable[[dict[str, Any]], None] = lambda _: None) -> dict[str, Any]:
    """A whole results document for a resolved config: provenance, the measured bf16 peak on
    CUDA, then the rows. ``on_row`` sees the document after each row (to save it); an interrupted
    run leaves it with the finished rows and ``complete`` false."""
    from snippets import results

    device = torch.device(cfg.device)
    setup_backends(device)  # before provenance: the settings record TF32 and cuDNN state
    doc = results.new_document(results.provenance(device, cfg.settings()))
    if device.type == "cuda":
        progress("measuring the bf16 matmul peak")
        doc["provenance"]["peak_bf16_tflops"] = measure.matmul_peak_tflops(device)
    for row in run(cfg, doc["provenance"].get("peak_bf16_tflops"), progress):
        doc["rows"].append(row)
        on_row(doc)
    doc["complete"] = True
    return doc


if __name__ == "__main__":
    from snippets.bench_cli import main

    raise SystemExit(main())
