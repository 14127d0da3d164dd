"""Made-up documents for the tests of what the speed tables and verdicts compute: every figure
here is invented to make the arithmetic checkable by hand, and nothing in it was measured."""

from __future__ import annotations

from typing import Any

from snippets.core import backends, results


def prov(device: str = "NVIDIA H200", dtype: str = "bf16", **extra: Any) -> dict[str, Any]:
    cuda = "H200" in device
    return {"device": device, "device_type": "cuda" if cuda else "cpu", "driver": None,
            "cuda": None, "torch": "2.11.0", "torchvision": None, "triton": None,
            "python": "3.12", "date": "2026-01-01T00:00:00+00:00", "commit": "abc",
            "host_cpu": "x", "cpu_count": 2,
            "settings": {"dtype": dtype, "rounds": 3, "warm_rounds": 0, "sample_ms": 1.0,
                         "warmup": 1, "run": "ladder"}, **extra}


def lat(*samples: float) -> dict[str, Any]:
    s = sorted(samples)
    return {"median": s[len(s) // 2], "iqr": s[-1] - s[0], "samples": list(samples)}


def row(model: str, bs: int, mode: str, ms: tuple[float, ...], **fields: Any) -> dict[str, Any]:
    from snippets.bench.rows import new_row

    return new_row(model, bs, mode, latency_ms=lat(*ms), **fields)


def doc(kind: str, rows: list[dict[str, Any]], **prov_fields: Any) -> dict[str, Any]:
    d = results.new_document(kind, prov(**prov_fields))
    d["rows"], d["complete"] = rows, True
    return results.validate(d)


def point(model: str, bs: int, mode: str, ms: tuple[float, ...], *, benchmark: bool,
          tf32: bool = True) -> dict[str, Any]:
    b = backends.BackendSettings(matmul_precision="high" if tf32 else "highest",
                                 cudnn_tf32=tf32, cudnn_benchmark=benchmark)
    return row(model, bs, mode, ms, backends=b.as_dict(), point=f"b={benchmark} t={tf32}")
