"""What a decode ladder run says, as data: the fastest rung against eager and the bandwidth
bound, each rung over the one below it, and where the fastest step's time goes."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from snippets.generate import bounds, model
from snippets.generate.findings import TIMED


@dataclass(frozen=True)
class Ladder:
    """The decode ladder: the fastest rung against eager and the bandwidth bound, and where its
    step's time goes, from the profile of that rung."""

    best: str
    best_ms: float
    speedup: float  # over eager, in the same rounds
    share: float  # % of the measured copy bandwidth
    floor_ms: float  # the bytes a step must read, at that bandwidth
    reaches_half: bool  # the done-when of the chapter: half the copy bandwidth or more
    kernels: float | None  # per token, in the profile
    idle: float | None  # % of the step no kernel covers
    busy_share: float | None  # % of the copy bandwidth the kernels reach, the gaps left out
    over_prev: dict[str, float]  # each timed rung over the rung below it, in the same rounds
    compile_s: dict[str, float]  # each compiled rung's first call, in an empty cache
    rung_ms: dict[str, float] = dataclasses.field(default_factory=dict)  # each rung's median
    # eager's step captured by hand (the side rung), where it ran: its speedup over eager, and
    # its median over the cudagraphs rung's, what Inductor adds on top of a graph
    graph_alone: float | None = None
    inductor_on_top: float | None = None
    # whether the decoder has fewer key-value heads than query heads: without, the gqa rung
    # has nothing to group
    grouped: bool | None = None


def ladder(doc: dict[str, Any]) -> Ladder | None:
    timed = [r for r in doc["rows"] if r["status"] in TIMED and r["rung"] != "eager"]
    if not timed:
        return None
    top = min(timed, key=lambda r: r["step_ms"]["median"])
    copy = doc["ceilings"]["copy_gbps"] * 1e9
    floor = top["bytes_per_step"] / copy * 1e3
    prof = top.get("profile") or {}
    # The kernels' busy time, not a class of them: under coordinate-descent tuning Inductor
    # writes a one-row product as a multiply and a sum in its own kernels, so no class holds
    # the products alone.
    busy = prof.get("busy_us_per_call")
    return Ladder(
        top["rung"], top["step_ms"]["median"], top["speedup"], 100 * top["of_copy_bw"], floor,
        top["of_copy_bw"] >= 0.5, prof.get("kernels_per_call"),
        100 * prof["idle_fraction"] if "idle_fraction" in prof else None,
        bounds.copy_share(top["bytes_per_step"], busy, doc["ceilings"]["copy_gbps"])
        if busy else None,
        {r["rung"]: r["speedup_prev"] for r in timed if r.get("speedup_prev") is not None},
        {r["rung"]: r["compile_s"] for r in timed if r.get("compile_s") is not None},
        {r["rung"]: r["step_ms"]["median"] for r in timed}, *_graph_split(timed),
        _grouped(doc["provenance"]["settings"].get("size")))


def _grouped(size: str | None) -> bool | None:
    shape = model.SIZES.get(size) if size else None
    return shape.kv_heads < shape.heads if shape else None


def _graph_split(timed: list[dict[str, Any]]) -> tuple[float | None, float | None]:
    by = {r["rung"]: r for r in timed}
    hand, graphs = by.get("eager-graphed"), by.get("cudagraphs")
    if hand is None:
        return None, None
    return hand["speedup"], (hand["step_ms"]["median"] / graphs["step_ms"]["median"]
                             if graphs else None)
