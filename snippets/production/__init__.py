"""Putting a compiled model in production: what each way of starting a service costs, measured."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from snippets.core import results

# The variable a service reads once, at its start, to serve eager (see ``serve``).
EAGER_ENV = "SNIPPETS_EAGER"

# The child times its own start-up, so it must not import the benchmark (its imports would count
# in every path's seconds); the names and dtypes are the benchmark's.
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
# Relative error allowed against eager: the benchmark's tolerances (see snippets.bench.TOLERANCE:
# bf16 keeps 8 bits of mantissa and fused kernels round in another order).
TOLERANCE = {"bf16": 5e-2, "fp16": 1e-2, "fp32": 1e-2}

# A call is steady once it and every later one take at most this much longer than the median of
# the timeline's second half: CUDA-graph recording and the first autotuned launches show up as
# calls several times slower, ordinary jitter stays well inside it.
STEADY_FACTOR = 1.5


def eager_requested(environ: Mapping[str, str]) -> bool:
    """Whether ``SNIPPETS_EAGER`` is ``1``, ``true`` or ``yes``; read once, at the edge."""
    return environ.get(EAGER_ENV, "").strip().lower() in ("1", "true", "yes")


# --8<-- [start:eager_switch]
def serve(model, *, eager: bool, **options):
    """The model as the service calls it: compiled, or, with the switch
    on, the same object running eager (nothing is traced or compiled)."""
    import torch

    compiled = torch.compile(model, **options)
    # A process-wide stance: every torch.compile'd function runs eager.
    torch.compiler.set_stance("force_eager" if eager else "default")
    return compiled
# --8<-- [end:eager_switch]


# --8<-- [start:warm_up]
def warm_up(compiled, shapes, *, make=None):
    """Call ``compiled`` once on an input of every shape it will serve (an
    input from ``make(shape)``, random by default), before the first
    request: each compile happens here, not to a user. Returns how many
    graphs Dynamo compiled on the way."""
    import torch
    from torch._dynamo.utils import counters

    make = make or torch.randn
    before = counters["stats"]["unique_graphs"]
    with torch.no_grad():
        for shape in shapes:
            compiled(make(shape))
    return counters["stats"]["unique_graphs"] - before
# --8<-- [end:warm_up]


def steady_index(latencies_ms: Sequence[float], factor: float = STEADY_FACTOR) -> int:
    """The first call from which every call is within ``factor`` x the second half's median."""
    if not latencies_ms:
        raise ValueError("steady state of no calls")
    settled = statistics.median(latencies_ms[len(latencies_ms) // 2:])
    index = len(latencies_ms) - 1
    while index > 0 and latencies_ms[index - 1] <= factor * settled:
        index -= 1
    return index


def fault(exc: BaseException) -> str:
    """One line for a configuration's failure: the exception's type and first line."""
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return f"{type(exc).__name__}: {first}"


class MergeError(results.ResultsError):
    """An earlier results file that cannot take this run's rows; the message is one line."""


def check_joinable(old: dict[str, Any], prov: dict[str, Any]) -> None:
    """Raise MergeError where ``prov`` is of another device or torch than ``old``."""
    try:
        results.check_joinable(old, prov, ())
    except results.ResultsError as exc:
        raise MergeError(str(exc)) from None


def merge(previous: dict[str, Any] | None, doc: dict[str, Any],
          key: Callable[[dict[str, Any]], tuple]) -> dict[str, Any]:
    """``doc`` joined to an earlier file of its kind, device and torch (``results.join``), so
    that several commands, each within a machine's time limit, fill one file."""
    if previous is None:
        return doc
    if previous.get("kind") != doc["kind"]:
        raise MergeError(f"--append: {previous.get('kind')} is not {doc['kind']}")
    check_joinable(previous, doc["provenance"])
    return results.join(previous, doc, key,
                        ran=("models", "batch_sizes", "modes", "paths", "repetitions"))
