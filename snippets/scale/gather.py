"""One configuration's row, made of its ranks' records (``rank.py`` writes one each)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from snippets.core import measure
from snippets.scale.job import Job

COUNTS = ("graph_count", "compiled_graphs", "graph_breaks", "ops_captured",
          "compiled_autograd_graphs")


def key(row: dict[str, Any]) -> tuple:
    """What makes a configuration: rows of the same key measure the same thing."""
    return (row["model"], row["strategy"], row["variant"], row["nodes"], row["nproc_per_node"],
            row["bucket_cap_mb"])


def read_ranks(folder: Path) -> list[dict[str, Any]]:
    """Every rank record in ``folder``, by rank; one that cannot be read is left out."""
    found = []
    for path in folder.glob("rank*.json"):
        try:
            found.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    return sorted(found, key=lambda r: r.get("rank", 0))


def new_row(item: Job, **fields: Any) -> dict[str, Any]:
    """A row with the configuration's key and every measured field empty."""
    single = item.strategy == "single"
    row = {"model": item.model, "strategy": item.strategy, "variant": item.variant,
           "nodes": item.nodes, "nproc_per_node": item.nproc, "world_size": item.world,
           "batch_size": item.batch_size, "global_batch": item.batch_size * item.world,
           "bucket_cap_mb": None if single else item.bucket_cap_mb,
           "run_status": "ok", "run_message": "", "status": "ok", "message": "", "compile_s": None,
           "first_steps_s": [], "step_ms": None, "samples_per_s": None,
           **dict.fromkeys(COUNTS), "break_reasons": [], "peak_mem_mb": None, "losses": [],
           "batch_norm": None, "scaling_efficiency": None, "loss_gap": None,
           "loss_gap_eager": None, "profile": None, "launch": "", "wall_s": None,
           "ranks": []}
    row.update(fields)
    return row


def _slowest(per_rank: list[list[float]]) -> list[float]:
    """Step by step, the slowest rank's time (over the steps every rank timed)."""
    return [max(step) for step in zip(*per_rank, strict=False)]


def _mean_loss(per_rank: list[list[float | None]]) -> list[float | None]:
    return [None if any(v is None for v in step) else statistics.fmean(step)
            for step in zip(*per_rank, strict=False)]


def row(job: Job, ranks: list[dict[str, Any]], failure: str | None, *,
        wall: float | None = None, launch_line: str = "") -> dict[str, Any]:
    """The configuration's row: ``failure`` is the launcher's own fault (a timeout, a nonzero
    exit), None if it exited cleanly."""
    base = new_row(job, wall_s=wall, launch=launch_line, ranks=ranks)
    faulted = sorted((r for r in ranks if r.get("status") != "ok"),
                     key=lambda r: r.get("failed_at") or 0.0)
    if faulted:
        first = faulted[0]  # the earliest: the others' faults may be its consequence
        status = first["status"]
        same = len(faulted) == job.world and len({r.get("message") for r in faulted}) == 1
        where = "" if same else f"rank {first['rank']}: "
        message = where + first.get("message", "")
        return {**base, "run_status": status, "run_message": message, "status": status,
                "message": message}
    if failure or len(ranks) != job.world:
        missing = sorted(set(range(job.world)) - {r.get("rank") for r in ranks})
        message = failure or f"no record from rank {', '.join(map(str, missing))}"
        return {**base, "run_status": "error", "run_message": message, "status": "error",
                "message": message}
    first = ranks[0]
    steps = measure.Measurement(tuple(_slowest([r["step_ms"] for r in ranks])))
    peaks = [r.get("peak_mem_mb") for r in ranks]
    status, message = "ok", ""
    if steps.noisy:
        status, message = "noisy", f"IQR {100 * steps.iqr_ratio:.1f}% of median"
    return {**base, "run_status": status, "run_message": message, "status": status,
            "message": message,
            "compile_s": max(r["compile_s"] or 0.0 for r in ranks),
            "first_steps_s": _slowest([r["first_steps_s"] for r in ranks]),
            "step_ms": steps.as_dict(),
            "samples_per_s": job.batch_size * job.world / (steps.median * 1e-3),
            **{k: first.get(k) for k in COUNTS}, "break_reasons": first.get("break_reasons", []),
            "peak_mem_mb": None if None in peaks else max(peaks),
            "losses": _mean_loss([r["losses"] for r in ranks]),
            "batch_norm": first.get("batch_norm"), "profile": first.get("profile")}
