"""The ceilings a row is read against, measured in the same run, and the roofline reading of a
row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from snippets.core import examples

# GPU: the benchmark peak's 8192-square bf16 matmul (measure.matmul_peak_tflops), and a copy far
# past the L2 cache (50 MiB on an H100), from HBM. CPU: sizes a laptop runs in under a second, the
# copy past a server's last-level cache.
SIZES: dict[str, dict[str, Any]] = {
    "cuda": {"matmul_n": 8192, "matmul_dtype": "bf16", "copy_mib": 2048, "reps": 10,
             "repeats": 7},
    "cpu": {"matmul_n": 1536, "matmul_dtype": "fp32", "copy_mib": 512, "reps": 2, "repeats": 3},
}
DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}


# --8<-- [start:ceilings]
def matmul_tflops(device, n, dtype, reps, repeats):
    """TFLOP/s of ``reps`` back-to-back n×n products, a sample per repeat."""
    import torch

    from snippets.core import measure

    a = torch.randn(n, n, device=device, dtype=dtype)
    b = torch.randn(n, n, device=device, dtype=dtype)
    for _ in range(2):  # cuBLAS picks its kernel, the clocks rise
        a @ b
    samples = []
    for _ in range(repeats):
        ms = measure.time_calls(lambda: a @ b, reps, device)
        samples.append(2 * n**3 / (ms * 1e-3) / 1e12)
    return measure.Measurement(tuple(samples))


def copy_gbps(device, mib, reps, repeats):
    """GB/s of a device-to-device copy, counting reads and writes."""
    import torch

    from snippets.core import measure

    src = torch.ones(mib * 2**20, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    dst.copy_(src)
    samples = []
    for _ in range(repeats):
        ms = measure.time_calls(lambda: dst.copy_(src), reps, device)
        samples.append(2 * src.numel() / (ms * 1e-3) / 1e9)
    return measure.Measurement(tuple(samples))
# --8<-- [end:ceilings]


def ceilings(device: torch.device, **sizes: Any) -> dict[str, Any]:
    """Both ceilings of ``device``, with samples and sizes (``sizes`` overrides ``SIZES``)."""
    s = {**SIZES[device.type], **sizes}
    mm = matmul_tflops(device, s["matmul_n"], DTYPES[s["matmul_dtype"]], s["reps"],
                       s["repeats"])
    cp = copy_gbps(device, s["copy_mib"], s["reps"], s["repeats"])
    return {**s, "matmul_tflops": mm.median, "matmul_samples": list(mm.samples),
            "copy_gbps": cp.median, "copy_samples": list(cp.samples)}


def min_bytes(weights: int, x: examples.Example, out: Any) -> dict[str, int]:
    """The least one call moves: weights and inputs read once, outputs written once."""
    return {"weights": weights, "input": examples.nbytes(x), "output": examples.nbytes(out)}


# --8<-- [start:reading]
def floors(flops, moved, ceil):
    """The times a row's FLOPs take at the matmul ceiling and its bytes at
    the copy ceiling, in ms, and the larger of the two."""
    compute_ms = flops / (ceil["matmul_tflops"] * 1e12) * 1e3
    memory_ms = sum(moved.values()) / (ceil["copy_gbps"] * 1e9) * 1e3
    bound_ms = max(compute_ms, memory_ms)  # no schedule beats this floor
    return compute_ms, memory_ms, bound_ms
# --8<-- [end:reading]


def reading(flops: float | None, moved: dict[str, int] | None, measured_ms: float | None,
            ceil: dict[str, Any] | None) -> dict[str, Any] | None:
    """A row's compute and memory floors beside its measured time, the larger bound and its
    share of the measured time (1: on the roofline); None where a figure is missing."""
    if not (flops and moved and measured_ms and ceil):
        return None
    compute_ms, memory_ms, bound_ms = floors(flops, moved, ceil)
    return {"compute_ms": compute_ms, "memory_ms": memory_ms,
            "bound": "compute" if compute_ms >= memory_ms else "memory",
            "bound_ms": bound_ms, "measured_ms": measured_ms,
            "of_roofline": bound_ms / measured_ms,
            # FLOPs per byte moved, against the ridge where the two ceilings meet
            "intensity": flops / sum(moved.values()),
            "ridge": ceil["matmul_tflops"] * 1e12 / (ceil["copy_gbps"] * 1e9)}


def row_reading(row: dict[str, Any], ceil: dict[str, Any] | None) -> dict[str, Any] | None:
    """``reading`` of a ladder row, from its FLOPs, bytes and median."""
    return reading(row.get("flops"), row.get("bytes"),
                   (row.get("latency_ms") or {}).get("median"), ceil)


@dataclass(frozen=True)
class Roof:
    """A row against its roofline: floor as % of measured, the bound, the floor in ms, and the
    compute floor as % of it (the most of peak it can reach)."""

    of_roofline_pct: float
    bound: str
    bound_ms: float
    cap_pct: float


def roof(row: dict[str, Any], ceil: dict[str, Any] | None) -> Roof | None:
    read = row_reading(row, ceil)
    if not read:
        return None
    return Roof(100 * read["of_roofline"], read["bound"], read["bound_ms"],
                100 * read["compute_ms"] / read["bound_ms"])
