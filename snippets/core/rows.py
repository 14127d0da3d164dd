"""Typed rows as findings and tables read them, and the one way a timed row is finished."""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from snippets.core import measure


class Status(str, enum.Enum):
    """What became of one configuration (the ``status`` field of every row)."""

    OK = "ok"
    NOISY = "noisy"  # timed, but its IQR is above measure.NOISY_IQR_RATIO of its median
    MISMATCH = "mismatch"  # ran, and its output differs from eager's beyond the tolerance
    OOM = "oom"
    ERROR = "error"
    UNSUPPORTED = "unsupported"  # the installed torch, or the model, lacks what the row needs


# A row whose time is a valid measurement of a correct answer.
TIMED = frozenset({Status.OK.value, Status.NOISY.value})
FAILED = frozenset({Status.MISMATCH.value, Status.OOM.value, Status.ERROR.value})


def timed(row: Mapping[str, Any] | None, field: str = "latency_ms") -> bool:
    """Whether a raw row holds a valid time of a correct answer."""
    return bool(row) and row["status"] in TIMED and bool(row.get(field))


def median(row: Mapping[str, Any] | None, field: str = "latency_ms") -> float | None:
    """The median of a raw row's timing field (``latency_ms``, ``step_ms``), or None."""
    return ((row or {}).get(field) or {}).get("median")


@dataclass(frozen=True, order=True)
class Key:
    """What a row is of; the variant is a mode, a rung, a strategy..."""

    device: str
    model: str
    batch: int
    variant: str


@dataclass(frozen=True)
class Row:
    """One row of a results file, typed."""

    key: Key
    status: Status
    time: measure.Measurement | None
    calls: int | None  # calls per sample
    fields: Mapping[str, Any]  # the row as recorded

    @property
    def timed(self) -> bool:
        return self.status.value in TIMED and self.time is not None

    @property
    def median(self) -> float | None:
        return self.time.median if self.time else None

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)


def row(raw: Mapping[str, Any], device: str, *, variant: str | None,
        timing: str | None) -> Row:
    """A raw row as a ``Row``; ``variant`` and ``timing`` name its kind's fields, or None."""
    name = raw.get(variant) if variant else None
    lat = raw.get(timing) if timing else None
    time = measure.Measurement.from_dict(lat) if isinstance(lat, dict) else None
    return Row(Key(device, str(raw.get("model", "")), int(raw.get("batch_size") or 0),
                   str(name or "")),
               Status(raw.get("status", "ok")), time, raw.get("calls_per_sample"), raw)


def by_key(found: Iterable[Row]) -> dict[Key, Row]:
    return {r.key: r for r in found}


def noisy_message(m: measure.Measurement) -> str:
    return f"IQR is {100 * m.iqr_ratio:.1f}% of median"


def finish(row: dict[str, Any], m: measure.Measurement, *, calls: int | None,
           baseline: measure.Measurement | None = None, flops: int | None = None,
           peak_tflops: float | None = None, field: str = "latency_ms",
           rate: bool = True) -> dict[str, Any]:
    """A timed row, finished in place: samples under ``field``, calls, TFLOP/s and % of peak
    (``rate``), speedup over ``baseline``, and ``noisy`` where an ok row's spread is high."""
    row[field], row["calls_per_sample"] = m.as_dict(), calls
    if rate:
        row["tflops"] = flops / (m.median * 1e-3) / 1e12 if flops else None
        if peak_tflops and row["tflops"] is not None:
            row["pct_of_peak"] = 100 * row["tflops"] / peak_tflops
    if baseline is not None:
        r = measure.speedup(baseline, m)
        row["speedup"], row["speedup_iqr"] = r.value, r.iqr
    if row["status"] == Status.OK.value and m.noisy:
        row["status"], row["message"] = Status.NOISY.value, noisy_message(m)
    return row


def answer(err: float, tol: float) -> tuple[str, str]:
    """(status, message) of an answer ``err`` away from eager's (relative error, NaN where the
    shapes differ or a value is not finite): ok within ``tol``, else a mismatch."""
    if err <= tol:
        return Status.OK.value, ""
    wrong = f"rel_err {err:.3g} above {tol}" if math.isfinite(err) else "wrong shape or not finite"
    return Status.MISMATCH.value, wrong


def fault(exc: BaseException) -> tuple[str, str]:
    """(status, one-line message) of a configuration's exception: its row records it."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()] or [""]
    # Inductor's "backend='inductor' raised:" says where; the line after it says what.
    first = (f"{lines[0]} {lines[1]}" if lines[0].endswith(":") and len(lines) > 1
             else lines[0])[:300]
    if isinstance(exc, torch.cuda.OutOfMemoryError) or "out of memory" in first.lower():
        return Status.OOM.value, first
    return Status.ERROR.value, f"{type(exc).__name__}: {first}"


def or_none(fn: Callable[[], Any]) -> Any:
    """``fn()``, or None where it raised: evidence a row is still worth having without."""
    try:
        return fn()
    except Exception:  # noqa: BLE001 (evidence only: the row says None)
        return None


# ---- one baseline per table ----------------------------------------------------------------

@dataclass(frozen=True)
class InRun:
    """A row as a table places it: which of its group's ``runs`` measured it (1-based), and
    whether that run's baseline is in the table (``paired``), to show ratios against."""

    row: dict[str, Any]
    run: int
    runs: int
    paired: bool

    @property
    def tag(self) -> str:
        """``command 2`` for a group's second run; "" for the first."""
        return f"command {self.run}" if self.run > 1 else ""


def in_runs(found: Iterable[dict[str, Any]], is_baseline: Callable[[dict[str, Any]], bool],
            group: Callable[[dict[str, Any]], tuple] = lambda r: (r["model"], r["batch_size"]),
            ) -> list[InRun]:
    """A table's rows in blocks, one per run (``part``) of each group, so every ratio is against
    a row shown from the same run; first-seen order throughout."""
    rows = list(found)
    groups = list(dict.fromkeys(group(r) for r in rows))
    out = []
    for g in groups:
        members = [r for r in rows if group(r) == g]
        parts = list(dict.fromkeys(r.get("part", 0) for r in members))
        for n, part in enumerate(parts, 1):
            block = [r for r in members if r.get("part", 0) == part]
            paired = any(is_baseline(r) for r in block)
            out += [InRun(r, n, len(parts), paired) for r in block]
    return out


def own_baseline(found: Iterable[dict[str, Any]], row: dict[str, Any],
                 is_baseline: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
    """The baseline row of ``row``'s model, batch and run, or None."""
    return next((r for r in found if is_baseline(r)
                 and (r["model"], r["batch_size"]) == (row["model"], row["batch_size"])
                 and r.get("part", 0) == row.get("part", 0)), None)


def printed_peak(prov: Mapping[str, Any]) -> float | None:
    """The matmul rate a page prints for a file, every % of peak against it: its ceilings' or
    its bf16 peak (the first command's, in a file several filled)."""
    return (prov.get("ceilings") or {}).get("matmul_tflops") or prov.get("peak_bf16_tflops")


def pct_of_peak(row: Mapping[str, Any], prov: Mapping[str, Any]) -> float | None:
    """A row's TFLOP/s as % of the file's printed peak, or None."""
    peak = printed_peak(prov)
    return 100 * row["tflops"] / peak if row.get("tflops") is not None and peak else None
