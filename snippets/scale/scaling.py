"""A row against the others: scaling efficiency ``t_1 / (N * t_N)`` against one process, and its
loss against one process's and its own strategy's eager run (batch norm normalizes per rank, so
such a model is held to the latter only). Derived again whenever rows are added."""

from __future__ import annotations

import math
from typing import Any

from snippets.core.examples import loss_gap
from snippets.core.rows import median


def _gap(row: dict[str, Any], ref: dict[str, Any] | None) -> float | None:
    if not ref or not ref.get("losses") or not row.get("losses"):
        return None
    gap = loss_gap(row["losses"], ref["losses"])
    return gap if math.isfinite(gap) else None


def _learned(row: dict[str, Any]) -> bool:
    return row["run_status"] in ("ok", "noisy") and bool(row.get("losses"))


def derive(rows: list[dict[str, Any]], tolerance: float | None) -> list[dict[str, Any]]:
    """Every row with its efficiency, loss gaps and status computed from the rows given."""
    single = {(r["model"], r["variant"], r["global_batch"]): r for r in rows
              if r["strategy"] == "single" and _learned(r)}
    eager = {(r["model"], r["strategy"], r["nodes"], r["nproc_per_node"], r["global_batch"]): r
             for r in rows if r["variant"] == "eager" and _learned(r)}
    out = []
    for r in rows:
        r = {**r, "scaling_efficiency": None, "loss_gap": None, "loss_gap_eager": None,
             "status": r["run_status"], "message": r["run_message"]}
        if not _learned(r):
            out.append(r)
            continue
        one = single.get((r["model"], r["variant"], r["global_batch"]))
        t_1, t_n = median(one, "step_ms"), median(r, "step_ms")
        if r["strategy"] != "single" and t_1 and t_n:
            r["scaling_efficiency"] = t_1 / (r["world_size"] * t_n)
        if not (r["strategy"] == "single" and r["variant"] == "eager"):  # the reference itself
            r["loss_gap"] = _gap(r, single.get((r["model"], "eager", r["global_batch"])))
        if r["variant"] != "eager":
            r["loss_gap_eager"] = _gap(r, eager.get((r["model"], r["strategy"], r["nodes"],
                                                      r["nproc_per_node"], r["global_batch"])))
        wrong = _diverged(r, tolerance)
        if wrong:
            r["status"], r["message"] = "mismatch", wrong
        out.append(r)
    return out


def _diverged(r: dict[str, Any], tolerance: float | None) -> str:
    """Why a row is a ``mismatch``, or ""."""
    if tolerance is None:
        return ""
    if r["loss_gap_eager"] is not None and r["loss_gap_eager"] > tolerance:
        return f"eager gap {r['loss_gap_eager']:.3g} > {tolerance:g}"
    if r["loss_gap"] is not None and r["loss_gap"] > tolerance and not r.get("batch_norm"):
        return f"single gap {r['loss_gap']:.3g} > {tolerance:g}"
    return ""
