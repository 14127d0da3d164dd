"""What max-autotune measured while it chose: per tuned operator, the candidates its timer ranked
(library kernels and Inductor's templates), and on a GPU their kernel time as the profiler reads it.

The autotuner's timer counts the device waiting for each launch; the profiler counts the kernels
alone, which is what a CUDA-graph replay pays: where the two rank a library kernel and a template
the other way round, the choice was made on launch cost the compiled model does not pay.
``recording`` collects both readings through Inductor's feedback hook (``add_feedback_saver``);
its re-timing times an ``out=`` library call (``mm``, ``addmm``) with the autotuner's own timer,
so while it runs that timer is made the profiler's too. ``graph_timed`` times each candidate as a
CUDA-graph replay, as newer Inductor does behind ``autotune_cudagraph_benchmarking``.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import time
from collections.abc import Callable, Iterator
from typing import Any

import torch

# Re-timing candidates under the profiler costs a fraction of a second each, and a ResNet-50 tunes
# about fifty operators: so each re-times only the two candidates a record reports (the fastest
# library kernel and the fastest template, one of which was chosen), until this many seconds of
# a rung's compile have gone to it.
RETIME_BUDGET_S = 90.0


def _kind(choice: Any) -> str:
    """``library`` for a call into ATen (``addmm``), ``template`` for a kernel Inductor
    generates (``triton_mm_12``)."""
    from torch._inductor.select_algorithm import ExternKernelCaller
    inner = getattr(choice, "wrapped", choice)  # a CPU choice may come wrapped
    return "library" if isinstance(inner, ExternKernelCaller) else "template"


def _size(node: Any) -> list[int] | str:
    try:
        return [int(s) for s in node.get_size()]
    except Exception:  # a symbolic size: keep its text
        return str(node.get_size())


def summarize_op(name: str, sizes: list[Any], timed: dict[str, tuple[str, float]],
                 kernel: dict[str, float] | None) -> dict[str, Any]:
    """One tuned operator: its candidates' count, the kind chosen (the fastest), and the fastest
    library kernel and template, each with the autotuner's ``ms`` and, where re-timed, the
    profiler's ``kernel_ms``. ``timed``: name -> (kind, ms), inf for one that failed to run."""
    ok = {n: kt for n, kt in timed.items() if math.isfinite(kt[1])}

    def fastest(kind: str) -> dict[str, Any] | None:
        names = [n for n, (k, _) in ok.items() if k == kind]
        pick = min(names, key=lambda n: ok[n][1]) if names else None
        return None if pick is None else {"name": pick, "ms": ok[pick][1],
                                          "kernel_ms": (kernel or {}).get(pick)}

    chosen = min(ok, key=lambda n: ok[n][1]) if ok else None
    return {"op": name, "sizes": sizes, "candidates": len(timed),
            "chosen": None if chosen is None else ok[chosen][0],
            "library": fastest("library"), "template": fastest("template")}


@contextlib.contextmanager
def recording(retime: bool) -> Iterator[list[dict[str, Any]]]:
    """One record per operator autotuned inside the block (none where Inductor's cache held the
    choice); ``retime``: also the profiler's kernel time of those reported (CUDA kernels only)."""
    from torch._inductor import select_algorithm
    ops: list[dict[str, Any]] = []
    spent = [0.0]  # seconds gone to re-timing so far

    def saver(timings, name, input_nodes, choices, profiled_time, *_):
        # Inside Inductor's compile: an error here must not become the rung's fault.
        try:
            timed = {c.name: (_kind(c), float(t)) for c, t in timings.items()}
            rec = summarize_op(name, [_size(n) for n in input_nodes], timed, None)
        except Exception as exc:
            ops.append({"op": name, "error": f"{type(exc).__name__}: {exc}"[:200]})
            return
        if retime and spent[0] < RETIME_BUDGET_S:
            start = time.monotonic()
            try:
                rec = summarize_op(name, rec["sizes"], timed, _kernel_ms(rec, timings,
                                                                         profiled_time))
                # Records made before the timer was swapped hold a library call's second
                # reading by the timer under kernel_ms: this says both kinds are the profiler's.
                rec["retimed_by"] = "profiler"
            except Exception as exc:  # the autotuner's own reading stands without it
                rec["retime_error"] = f"{type(exc).__name__}: {exc}"[:200]
            spent[0] += time.monotonic() - start
        ops.append(rec)

    select_algorithm.add_feedback_saver(saver)
    try:
        yield ops
    finally:  # this hook only: Inductor's own clear_feedback_savers would drop others' too
        savers = _savers(select_algorithm)
        if saver in savers:
            savers.remove(saver)


@contextlib.contextmanager
def side_stream() -> Iterator[None]:
    """A CUDA stream of its own as the current one inside the block, joined to the one before
    after it (nothing without CUDA)."""
    if not torch.cuda.is_available():
        yield
        return
    before = torch.cuda.current_stream()
    side = torch.cuda.Stream()
    side.wait_stream(before)
    try:
        with torch.cuda.stream(side):
            yield
    finally:
        before.wait_stream(side)


def _kernel_ms(rec: dict[str, Any], timings: dict[Any, float],
               profiled_time: Callable[..., dict[Any, float]]) -> dict[str, float]:
    """The profiler's time of the candidates ``rec`` reports, from Inductor's re-timing hook."""
    names = {e["name"] for k in ("library", "template") if (e := rec[k])}
    with gpu_timer(lambda _: _profiled):
        if inspect.signature(profiled_time).parameters:  # it takes the candidates to re-time
            kernel = profiled_time([c for c in timings if c.name in names])
        else:  # an older Inductor re-times every candidate
            kernel = profiled_time()
    return {c.name: float(t) for c, t in kernel.items() if c.name in names}


def _profiled(candidate: Callable[[], Any], **_: Any) -> float:
    """``candidate``'s kernel time by the profiler in ms, as Inductor reads a template's."""
    from torch._inductor.utils import do_bench_using_profiling
    return do_bench_using_profiling(candidate)


@contextlib.contextmanager
def gpu_timer(wrap: Callable[[Callable[..., float]], Callable[..., float]]) -> Iterator[None]:
    """Inductor's GPU timer replaced by ``wrap(timer)`` inside the block, and left as it was
    found after (nested swaps included)."""
    from torch._inductor.runtime.benchmarking import benchmarker
    own = vars(benchmarker).get("benchmark_gpu")
    benchmarker.benchmark_gpu = wrap(benchmarker.benchmark_gpu)
    try:
        yield
    finally:
        if own is None:
            del benchmarker.benchmark_gpu  # the class's own again
        else:
            benchmarker.benchmark_gpu = own


def _savers(select_algorithm: Any) -> list[Any]:
    """Inductor's list of feedback hooks, wherever this version keeps its selector cache."""
    get = getattr(select_algorithm, "get_algorithm_selector_cache", None)
    cache = get() if get else select_algorithm._ALGORITHM_SELECTOR_CACHE
    return cache.feedback_saver_fns


# --8<-- [start:replays]
import contextlib

import torch

from snippets.speed.autotune import gpu_timer, side_stream


def capture(fn):
    """``fn`` captured in a CUDA graph on the current stream, as the
    graph's replay."""
    stream = torch.cuda.current_stream()
    fn()  # lazy initialisation and library handles, outside the graph
    stream.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream,
                          capture_error_mode="thread_local"):
        fn()
    stream.synchronize()
    return graph.replay


@contextlib.contextmanager
def graph_timed(capture=capture):
    """Autotuning's candidates timed as CUDA-graph replays."""
    failed = []

    def replays(time_it):  # Inductor's timer: events, L2 flush, count
        def benchmark_gpu(candidate, **kwargs):
            try:
                replay = capture(candidate)
            except Exception as exc:
                # Time it as before. One that cannot run at all
                # raises again here, and is not counted.
                ms = time_it(candidate, **kwargs)
                failed.append(f"{type(exc).__name__}: {exc}"[:200])
                return ms
            return time_it(replay, **kwargs)  # no launch, as in the model
        return benchmark_gpu

    # torch 2.11 binds a Triton candidate to the stream current when
    # it is built, and no graph is captured on the default stream:
    # so autotuning runs, and captures, on a stream of its own.
    with gpu_timer(replays), side_stream():  # replays(timer), then back
        yield failed
# --8<-- [end:replays]
