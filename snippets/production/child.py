"""``python -m snippets.production.child``: one fresh process that starts a service one way and
times it from its own start, as a user's process would be timed."""

from __future__ import annotations

import faulthandler
import json
import logging
import os
import statistics
import time
from pathlib import Path
from typing import Any

import torch

from snippets import production
from snippets.core import backends, cli, config, counters, examples, measure, models, process, rows
from snippets.production import paths, pinning

IMPORTED = time.time()  # when this module's imports (torch's included) were done

PROG = "python -m snippets.production.child"
PATHS = ("eager", "compile", "artifacts", "regional", "aot-build", "aot-load", "precompile-build",
         "precompile-load")


def parser() -> cli.Parser:
    """The child's flags, written by the parent (``startup._child``), so without help."""
    p = cli.Parser(prog=PROG)
    p.add_argument("--path", choices=PATHS, required=True)
    p.add_argument("--model", required=True)  # resnet50, transformer or pkg.module:factory
    p.add_argument("--batch-size", type=cli.positive, default=1)
    p.add_argument("--device", default="cpu")
    p.add_argument("--dtype", choices=list(production.DTYPES), default="fp32")
    p.add_argument("--started-at", type=float)  # time.time() just before this process
    p.add_argument("--calls", type=cli.positive, default=10)  # timed one by one, then --rounds
    p.add_argument("--rounds", type=cli.positive, default=5)
    p.add_argument("--sample-ms", type=float, default=50.0)
    for flag in ("--save-artifacts", "--artifacts", "--package"):  # written by one path, read by
        p.add_argument(flag, type=Path, metavar="FILE")  # another (the package: builds, loads)
    return p


def _build(spec: str, batch_size: int, device: torch.device, dtype: str):
    """The model and its example on ``device``, floating-point tensors in ``dtype``."""
    factory = models.BUILTIN.get(spec) or models.load_factory(spec)
    torch.manual_seed(0)  # the same weights and input in every child
    model, x = models.build(factory, spec, batch_size)
    dt = production.DTYPES[dtype]
    return model.to(device, dt).eval(), examples.place(x, device, dt)


def _input_path(package: Path) -> Path:
    return package.with_name(package.name + ".input.pt")


def _isa_check_s() -> float | None:
    """Seconds Inductor takes to find the CPU's vector instructions (a test program compiled
    per candidate), which ``aoti_load_package`` checks. The answer is cached for the process, so
    asking first moves that time out of the load; both stay inside "ready"."""
    try:
        from torch._inductor.cpu_vec_isa import pick_vec_isa
    except ImportError:  # a torch that does not check this way
        return None
    started = time.perf_counter()
    pick_vec_isa()
    return time.perf_counter() - started


def _compiler_import_s() -> float:
    """Seconds to import Dynamo and Inductor, which a precompiled function's load needs: timed
    just before it, as the CPU check is for a package."""
    started = time.perf_counter()
    import torch._dynamo  # noqa: F401
    import torch._inductor.compile_fx  # noqa: F401
    return time.perf_counter() - started


def _isa_checked() -> bool | None:
    """Whether this process ran Inductor's CPU check: asked after the first answer, since a
    function whose kernels are not C++ never runs it and asking first would add it."""
    try:
        from torch._inductor.cpu_vec_isa import valid_vec_isa_list
    except ImportError:
        return None
    return valid_vec_isa_list.cache_info().currsize > 0


def _ready(args: Any, device: torch.device, eager: bool, stamp: dict,
           rec: dict[str, Any]) -> tuple[Any, Any, Any]:
    """``(callable, input, model)`` along ``args.path`` (no model for a package, which holds its
    weights); the path's own steps' times go in ``rec``."""
    if args.path == "aot-load":
        pinning.check(args.package, stamp)
        # The request: the build's example input, so no model is built before the first answer.
        # It goes to the device first, as a service's first request would: that also starts
        # the CUDA context the package's kernels are loaded into.
        x = examples.place(torch.load(_input_path(args.package)), device)
        rec["isa_check_s"] = _isa_check_s()
        # Whether the check was answered from the CPU's flags (TORCHINDUCTOR_VEC_ISA_OK=1).
        rec["isa_trusted"] = torch._inductor.config.cpp.vec_isa_ok is True
        loaded = paths.aot_load(args.package)
        started = time.perf_counter()  # a ModelOutput's library, which the answer is built of
        rec["output_imports"] = paths.import_output_types(loaded)
        rec["output_import_s"] = time.perf_counter() - started
        return loaded, x, None
    if args.path == "artifacts":
        paths.load_artifacts(pinning.read(args.artifacts, stamp))
    model, x = _build(args.model, args.batch_size, device, args.dtype)
    if args.path == "precompile-load":  # the service's own model: the file holds no weights
        pinning.check(args.package, stamp)
        rec["compiler_import_s"] = _compiler_import_s()
        fn = paths.load_precompiled(args.package)
        return (lambda *a, **kw: fn(model, *a, **kw)), x, model
    if args.path == "eager":
        return model, x, model
    if args.path == "regional":
        paths.compile_regions(model)
        torch.compiler.set_stance("force_eager" if eager else "default")
        return model, x, model
    return production.serve(model, eager=eager), x, model


def _timeline(fn: Any, x: examples.Example, calls: int, device: torch.device,
              t0: float) -> tuple[list[torch.Tensor], list[float], list[float]]:
    """The first output's floating-point leaves, each call's ms, and when each returned."""
    ms, ends, first = [], [], None
    for _ in range(calls):
        with measure.Stopwatch(device) as watch:
            out = examples.call(fn, x)
        ends.append(time.time() - t0)
        ms.append(watch.seconds * 1e3)
        if first is None:  # copied after the clock: the next call may reuse its memory
            first = examples.reference(out)
    return first, ms, ends


def _cache_counts() -> dict[str, int]:
    """Inductor's graph-cache hits and misses in this process: whether a warm path was warm."""
    from torch._dynamo.utils import counters

    return {"fx_cache_hits": int(counters["inductor"]["fxgraph_cache_hit"]),
            "fx_cache_misses": int(counters["inductor"]["fxgraph_cache_miss"])}


def run(args: Any, t0: float, import_s: float, eager: bool) -> dict[str, Any]:
    device = torch.device(config.resolve_device(args.device))
    stamp = pinning.current(device)
    rec: dict[str, Any] = {"status": "ok", "message": "", "import_s": import_s,
                           "eager_switch": eager}
    # The guide's global switches for this device type (TF32 and cuDNN's autotuner on CUDA), as
    # the benchmark measures with; the parent records them in the run's settings.
    with backends.DEFAULT[device.type].apply(), torch.no_grad():
        if args.path in paths.BUILDS:
            model, x = _build(args.model, args.batch_size, device, args.dtype)
            build = paths.aot_build if args.path == "aot-build" else paths.precompile
            with measure.Stopwatch(device) as watch:
                build(model, x, args.package)
            pinning.write(args.package, None, stamp)
            torch.save(examples.place(x, "cpu"), _input_path(args.package))
            return {**rec, "build_s": watch.seconds, "ready_s": time.time() - t0}
        fn, x, model = _ready(args, device, eager, stamp, rec)
        rec["ready_s"] = time.time() - t0  # loaded or wrapped, nothing called yet
        first, ms, ends = _timeline(fn, x, args.calls, device, t0)
        if args.path == "precompile-load":
            rec["isa_checked"] = _isa_checked()
        steady = production.steady_index(ms)
        # The host's speed beside the steady rounds, as the benchmark records it: one process's
        # steady figure moves with the host, cache or not (two OpenMP threads on a 2-core CPU
        # ran ResNet-50 many times slower beside one busy process; on the GPU host a slow spell
        # slowed eager and compiled alike), and the canary tells such a process apart. A warm
        # process runs the graph the cold one compiled (its FX-graph cache hits the entry the
        # cold one missed), so a gap between their figures is the host's.
        gate = measure.HostGate(enabled=False)
        timed = measure.measure_variants({"call": examples.bind(fn, x)}, device,
                                         rounds=args.rounds, sample_ms=args.sample_ms,
                                         warmup=0, gate=gate)
        if model is None:  # the package's weights are the seeded model's: build it to check
            model, _ = _build(args.model, args.batch_size, device, args.dtype)
        torch.compiler.set_stance("force_eager")  # the reference must not compile anything
        # every floating-point leaf of the first answer against eager's (a ModelOutput's too)
        err = examples.relative_error(first, examples.reference(examples.call(model, x)))
        if args.save_artifacts:
            pinning.write(args.save_artifacts, paths.save_artifacts(), stamp)
    status, message = rows.answer(err, production.TOLERANCE[args.dtype])
    return {**rec, "first_s": ends[0], "steady_s": ends[steady], "steady_call": steady,
            "calls_ms": ms, "latency_ms": timed["call"].as_dict(),
            "calls_per_sample": timed.calls["call"], "rel_err": err,
            "host_canary_us": statistics.median(gate.canary_us),
            "graphs_compiled": counters.graphs_compiled(), **_cache_counts(),
            "status": status, "message": message}


def main(argv: list[str] | None = None) -> int:
    # A crash in native code (a segfault loading a package) then leaves the Python stack on
    # stderr, where the parent reads the innermost frame into the row.
    faulthandler.enable()
    # Inductor's C++ backend logs "No CUDA runtime is found" on every CPU-only machine (as the
    # benchmark's command line notes): expected, and not this run's output.
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    args = parser().parse_args(argv)
    if args.path in (*paths.BUILDS, "aot-load", "precompile-load") and not args.package:
        cli.fail(PROG, f"--path {args.path} needs --package FILE")
    if args.path == "artifacts" and not args.artifacts:
        cli.fail(PROG, "--path artifacts needs --artifacts FILE")
    cli.device(PROG, args.device)
    eager = production.eager_requested(os.environ)  # read once, here at the edge
    # Without --started-at (a run by hand) the clock starts now, after the imports.
    started = args.started_at or time.time()
    try:
        with process.stdout_to_stderr():  # the C++ compiler's chatter must not reach the JSON
            rec = run(args, started, max(0.0, IMPORTED - started), eager)
    except (pinning.StampMismatch, models.SpecError) as exc:
        cli.fail(PROG, str(exc))
    except paths.NoBlocks as exc:
        print(json.dumps({"status": "unsupported", "message": str(exc)}))
        return 0
    except Exception as exc:  # the path's own fault: recorded in its row, the run goes on
        print(json.dumps({"status": "error", "message": production.fault(exc)}))
        return 1
    print(json.dumps(rec, allow_nan=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
