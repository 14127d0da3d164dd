"""Eager against torch.compile on one model, timed: run this file as is."""

import statistics
import time

import torch
from torch import nn


def synchronize(device):
    if device.type == "cuda":  # kernels run asynchronously: wait for them
        torch.cuda.synchronize(device)


def time_first_call(fn, device):
    """(output, seconds) of one call: for a compiled model, its compile."""
    synchronize(device)
    t0 = time.perf_counter()
    out = fn()
    synchronize(device)
    return out, time.perf_counter() - t0


def time_calls(fn, calls, device):
    """Milliseconds per call over `calls` back-to-back calls: CUDA events on
    a GPU, launches included; the wall clock on a CPU."""
    synchronize(device)
    if device.type != "cuda":
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - t0) * 1e3 / calls
    start, end = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / calls


def rotated(names, k):
    """Round k's order: a slow spell of the machine hits every variant."""
    k %= len(names)
    return names[k:] + names[:k]


@torch.no_grad()
def compare(model, x, modes=("default",), rounds=20, calls=10, warmup=3):
    """Per variant: its samples (ms per call), their median and the speedup
    over eager's; per mode also compile seconds and error against eager."""
    device, ref = x.device, model(x)
    fns, rows = {"eager": lambda: model(x)}, {"eager": {"samples": []}}
    for mode in modes:
        fns[mode] = lambda c=torch.compile(model, mode=mode): c(x)
        out, seconds = time_first_call(fns[mode], device)
        err = ((out - ref).float().norm() / ref.float().norm()).item()
        rows[mode] = {"compile_s": seconds, "rel_err": err, "samples": []}
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    for r in range(rounds):  # interleaved: every variant once per round
        for name in rotated(list(fns), r):
            rows[name]["samples"].append(time_calls(fns[name], calls, device))
    eager = statistics.median(rows["eager"]["samples"])
    for row in rows.values():
        row["median_ms"] = statistics.median(row["samples"])
        row["speedup"] = eager / row["median_ms"]
    return rows


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    layer = nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True)
    model = nn.TransformerEncoder(layer, 4).to(device, dtype).eval()
    x = torch.randn(1, 64, 256, device=device, dtype=dtype)
    for name, row in compare(model, x).items():
        figures = {k: round(v, 3) for k, v in row.items() if k != "samples"}
        print(f"{name:8s}", figures)
