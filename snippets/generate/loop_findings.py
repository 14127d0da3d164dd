"""What a loop run says, as data: per weights, the step, the gpt-fast loop and the naive loop
against the copy bandwidth and against each other; int8 against the run's dtype; and torchao's
int8 step beside the package's int8 layer's, with what their host times and profiles point at."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core import measure, rows
from snippets.core.findings import Verdict, verdict
from snippets.generate import bounds

INT8 = ("int8", "int8-head", "torchao", "torchao-unwrapped")


class Cause(str, enum.Enum):
    """Where torchao's int8 step loses to the package's int8 layer, as both steps' host times
    and profiles read. Each reading needs the profile (``--profile``)."""

    NOT_SLOWER = "not slower"  # torchao's step kept pace (within noise of it, or faster)
    # The host takes longer to issue torchao's step than its kernels take to run, while the
    # int8 layer's host time stays under its kernels': the GPU waits on the host.
    HOST = "host"
    # torchao's kernels are busy longer per step than the int8 layer's, by at least half the
    # difference in step time: the GPU's own work is slower.
    KERNELS = "kernels"
    UNKNOWN = "unknown"  # slower, without a profile, or neither reading accounts for it


@dataclass(frozen=True)
class Cell:
    """One weights, one way, timed in the run's rounds."""

    weights: str
    way: str
    ms: float  # per step: a loop's time over its forwards
    tokens_per_s: float
    share: float  # % of the copy bandwidth
    speedup: float | None  # over the run's dtype's row of the same way, in the same rounds
    verdict: Verdict | None
    vs_step: float | None  # a loop's speed as a share of its own step's
    vs_loop: float | None  # the naive loop's speed as a share of the gpt-fast loop's
    prefill_share: float | None  # % of the gpt-fast loop's time the prompt took
    first_diff: int | None = None  # the first token that differs from eager's (None: none)


@dataclass(frozen=True)
class Torchao:
    """torchao's int8 step beside the int8 layer's, from the same rounds."""

    ratio: float  # torchao's speed over the int8 layer's, paired by round (below 1: slower)
    verdict: Verdict
    host_us: float | None  # host time per step call
    busy_us: float | None  # the kernels' busy time per step, from the profile
    layer_host_us: float | None
    layer_busy_us: float | None
    cause: Cause


@dataclass(frozen=True)
class Pair:
    """One weights' step against another's, paired by round: ``ratio`` is the other's time
    over this one's (below 1: this one is slower)."""

    weights: str
    baseline: str
    way: str
    ratio: float
    verdict: Verdict


@dataclass(frozen=True)
class Remainder:
    """Where one weights' step falls short of reading its bytes at the copy bandwidth, from the
    step's profile: the time outside any kernel, the library's kernels (cuDNN's attention), and
    the share the step's bytes reach over Inductor's kernels' time alone."""

    weights: str
    step_us: float
    share: float  # % of the copy bandwidth, the step as timed
    busy_share: float  # the step's bytes over its kernels' busy time, % of the copy bandwidth
    outside_us: float  # step time with no kernel running (host, gaps), per step
    library_us: float  # kernels not Inductor's, per step
    library_top: str | None  # the longest of them
    inductor_us: float  # Inductor's Triton kernels, per step
    inductor_share: float  # the step's bytes over Inductor's kernels' time alone, as above
    top: tuple[tuple[str, float], ...]  # the longest kernels and their µs per step

    @property
    def in_kernels(self) -> bool:
        """Whether the kernels hold the step: under a tenth of it has no kernel running."""
        return self.outside_us < 0.1 * self.step_us


def remainder(row: dict[str, Any], copy_gbps: float) -> Remainder | None:
    """A profiled step row's ``Remainder``; None where the row has no GPU profile."""
    p = row.get("profile") or {}
    busy, classes = p.get("busy_us_per_call"), p.get("by_class")
    if not (rows.timed(row) and busy and classes and row.get("bytes_per_step")):
        return None
    step_us, moved = 1e3 * row["latency_ms"]["median"], row["bytes_per_step"]

    def share(us: float) -> float:
        return bounds.copy_share(moved, us, copy_gbps)

    triton = classes.get("triton", 0.0)
    library = [k for k in p.get("top", []) if not k["name"].startswith("triton_")]
    return Remainder(row["weights"], step_us, 100 * row["of_copy_bw"], share(busy),
                     max(step_us - busy, 0.0), busy - triton,
                     library[0]["name"] if library else None, triton,
                     share(triton) if triton else 0.0,
                     tuple((k["name"], k["us_per_call"]) for k in p.get("top", [])))


@dataclass(frozen=True)
class Published:
    """Figures a project published, not measured here, for the page to set beside its own."""

    source: str
    model: str
    device: str
    tokens_per_s: float  # bf16
    gbps: float
    int8_tokens_per_s: float
    int8_gbps: float
    peak_gbps: float  # the bandwidth the project took as its device's peak
    int4_tokens_per_s: float
    int4_group: int  # inputs per scale and offset

    @property
    def share(self) -> float:
        return 100 * self.gbps / self.peak_gbps

    @property
    def int8_ratio(self) -> float:
        return self.int8_tokens_per_s / self.tokens_per_s

    @property
    def int4_ratio(self) -> float:
        return self.int4_tokens_per_s / self.tokens_per_s


# gpt-fast's README: the benchmark table (batch 1, a 5-token prompt, one A100-80GB limited to
# 330 W) and its note that this GPU's peak bandwidth "seems" about 1,700 GB/s; its int4 row
# ("4-bit (G=32)") groups 32 inputs.
GPT_FAST = Published("https://github.com/pytorch-labs/gpt-fast#benchmarks", "Llama-2-7B",
                     "A100-80GB at 330 W", 104.9, 1397.31, 155.58, 1069.20, 1700.0, 196.80, 32)


@dataclass(frozen=True)
class Loop:
    size: str
    batch: int
    tokens: int
    dtype: str
    copy_gbps: float
    cells: tuple[Cell, ...]
    torchao: Torchao | None
    unwrapped: Pair | None  # torchao unwrapped before the compile, over torchao as is (step)
    head: Pair | None  # the int8 layer with the head int8 too, over the head kept (loop)
    naive_parted: tuple[str, ...] = ()  # weights whose naive loop's tokens left the loop's
    # the cells the page names: the run's dtype three ways, the other weights' loops and steps
    step: Cell | None = None
    loop: Cell | None = None
    naive: Cell | None = None
    int8_loop: Cell | None = None
    torchao_loop: Cell | None = None
    int4_step: Cell | None = None
    int4_loop: Cell | None = None
    int8_best: Cell | None = None  # the fastest int8 weights' loop, where it paid
    # where the profiled steps fall short of the copy bandwidth
    dense_remainder: Remainder | None = None
    int8_remainder: Remainder | None = None
    gpt_fast = GPT_FAST  # not a field: the same published figures for every run


def _measurement(row: dict[str, Any] | None) -> measure.Measurement | None:
    if not rows.timed(row):
        return None
    return measure.Measurement.from_dict(row["latency_ms"])


def _cell(r: dict[str, Any]) -> Cell:
    share = r.get("prefill_share")
    return Cell(r["weights"], r["way"], r["latency_ms"]["median"], r["tokens_per_s"],
                100 * r["of_copy_bw"], r.get("speedup"),
                verdict(r["speedup"], r.get("speedup_iqr") or 0.0) if r.get("speedup") else None,
                r.get("vs_step"), r.get("vs_loop"), None if share is None else 100 * share,
                r.get("first_diff"))


def cause(ratio: Verdict, host: float | None, busy: float | None, layer_host: float | None,
          layer_busy: float | None, gap_us: float) -> Cause:
    """The reading of ``Cause`` from torchao's and the layer's host and busy times per step
    (µs) and the difference of their step times (``gap_us``)."""
    if ratio is not Verdict.SLOWER:
        return Cause.NOT_SLOWER
    if None in (host, busy, layer_host, layer_busy):
        return Cause.UNKNOWN
    if host > busy and layer_host <= layer_busy:
        return Cause.HOST
    if busy - layer_busy >= gap_us / 2:
        return Cause.KERNELS
    return Cause.UNKNOWN


def torchao(doc: dict[str, Any]) -> Torchao | None:
    """torchao's step beside the int8 layer's; None where the run did not time both."""
    steps = {r["weights"]: r for r in doc["rows"] if r["way"] == "step"}
    ours, theirs = _measurement(steps.get("int8")), _measurement(steps.get("torchao"))
    if ours is None or theirs is None:
        return None
    ratio = measure.speedup(ours, theirs)
    v = verdict(ratio.value, ratio.iqr)
    a, b = steps["torchao"], steps["int8"]
    pa, pb = a.get("profile") or {}, b.get("profile") or {}
    return Torchao(
        ratio.value, v, a.get("host_us"), pa.get("busy_us_per_call"), b.get("host_us"),
        pb.get("busy_us_per_call"),
        cause(v, a.get("host_us"), pa.get("busy_us_per_call"), b.get("host_us"),
              pb.get("busy_us_per_call"), 1e3 * (theirs.median - ours.median)))


def pair(doc: dict[str, Any], weights: str, baseline: str, ways: tuple[str, ...]
         ) -> Pair | None:
    """``weights`` against ``baseline`` in the first of ``ways`` where the run timed both."""
    by = {(r["weights"], r["way"]): r for r in doc["rows"]}
    for way in ways:
        a, b = _measurement(by.get((weights, way))), _measurement(by.get((baseline, way)))
        if a is not None and b is not None:
            r = measure.speedup(b, a)
            return Pair(weights, baseline, way, r.value, verdict(r.value, r.iqr))
    return None


def of(doc: dict[str, Any]) -> Loop:
    s, copy = doc["provenance"]["settings"], doc["ceilings"]["copy_gbps"]
    cells = tuple(_cell(r) for r in doc["rows"] if rows.timed(r))
    at = {(c.weights, c.way): c for c in cells}
    best = min((c for c in cells if c.way == "loop" and c.weights in INT8), key=lambda c: c.ms,
               default=None)
    rests = {r["weights"]: remainder(r, copy) for r in doc["rows"] if r["way"] == "step"}
    return Loop(s["size"], s["batch"], s["tokens"], s["dtype"], copy, cells, torchao(doc),
                pair(doc, "torchao-unwrapped", "torchao", ("step", "loop")),
                pair(doc, "int8-head", "int8", ("loop", "step")),
                tuple(r["weights"] for r in doc["rows"]
                      if r["way"] == "naive" and r.get("first_diff") is not None),
                *(at.get(k) for k in (("dense", "step"), ("dense", "loop"), ("dense", "naive"),
                                      ("int8", "loop"), ("torchao", "loop"), ("int4", "step"),
                                      ("int4", "loop"))),
                best if best and best.verdict is Verdict.PAYS else None,
                rests.get("dense"), rests.get("int8"))
