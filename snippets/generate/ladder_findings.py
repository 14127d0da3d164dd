"""What a decode ladder run says, as data: the fastest rung against eager and the bandwidth
bound, each rung over the one below it, and where the fastest step's time goes; and what the
page's recap advises from the ladders and loops of both sizes."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core.findings import Verdict
from snippets.generate import bounds, loop_findings, model
from snippets.generate.findings import TIMED
from snippets.generate.loop_findings import Cell


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
    # the rungs the page names, each over the rung below it in the same rounds (None: not run)
    graphs: float | None = None  # cudagraphs
    gqa: float | None = None
    tuning: float | None = None  # coordinate-descent
    int8: float | None = None
    tuning_loses: bool = False  # coordinate descent ran slower than the rung below
    tuning_compile_s: float | None = None  # its first call, in an empty cache
    gqa_compile_s: float | None = None
    int8_ms: float | None = None  # the int8 rung's median
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
    by = {r["rung"]: r for r in timed}

    def over(rung: str) -> float | None:
        return by.get(rung, {}).get("speedup_prev")
    tuning = over("coordinate-descent")
    return Ladder(
        top["rung"], top["step_ms"]["median"], top["speedup"], 100 * top["of_copy_bw"], floor,
        top["of_copy_bw"] >= 0.5, prof.get("kernels_per_call"),
        100 * prof["idle_fraction"] if "idle_fraction" in prof else None,
        bounds.copy_share(top["bytes_per_step"], busy, doc["ceilings"]["copy_gbps"])
        if busy else None, over("cudagraphs"), over("gqa"), tuning, over("int8"),
        tuning is not None and tuning < 1, by.get("coordinate-descent", {}).get("compile_s"),
        by.get("gqa", {}).get("compile_s"), by["int8"]["step_ms"]["median"] if "int8" in by
        else None, *_graph_split(by), _grouped(doc["provenance"]["settings"].get("size")))


def _grouped(size: str | None) -> bool | None:
    shape = model.SIZES.get(size) if size else None
    return shape.kv_heads < shape.heads if shape else None


def _graph_split(by: dict[str, dict[str, Any]]) -> tuple[float | None, float | None]:
    hand, graphs = by.get("eager-graphed"), by.get("cudagraphs")
    if hand is None:
        return None, None
    return hand["speedup"], (hand["step_ms"]["median"] / graphs["step_ms"]["median"]
                             if graphs else None)


class Lead(str, enum.Enum):
    """The step past the recipe that the recorded runs back first, on the generation page."""

    INT4 = "int4"  # int4 weights paid in the 7 B loop
    RETIME = "retime"  # coordinate descent gained at 1 B and lost at 7 B: time it on yours
    TUNE = "tune"  # neither: coordinate descent, as gpt-fast sets it


@dataclass(frozen=True)
class Advice:
    """What the page's recap rests on, across the ladders and loops of both sizes: its lead,
    and from the 7 B loop run (the 1 B one where there is none) the int8 loop that paid and the
    naive loop."""

    lead: Lead
    size: str | None  # of the loop run read
    int8: Cell | None
    naive: Cell | None


def advice(lad: dict[str, Any], lad7: dict[str, Any] | None, lo1: dict[str, Any] | None,
           lo7: dict[str, Any] | None, lo4: dict[str, Any] | None) -> Advice:
    one, seven = ladder(lad), lad7 and ladder(lad7)
    int4 = loop_findings.of(lo4).int4_loop if lo4 else None
    lead = (Lead.INT4 if int4 and int4.verdict is Verdict.PAYS else
            Lead.RETIME if one and seven and seven.tuning_loses and (one.tuning or 0) > 1 else
            Lead.TUNE)
    lo = loop_findings.of(lo7 or lo1) if lo7 or lo1 else None
    return Advice(lead, lo and lo.size, lo and lo.int8_best, lo and lo.naive)
