"""The tutorial's advice on training, held to a run's numbers."""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import Any

from snippets.core import measure, render
from snippets.train import tables
from snippets.train.step import CUDA_GRAPHS

AUTOTUNED = ("max-autotune-no-cudagraphs", "max-autotune")
# What each autotuning mode adds autotuning to: the same compile without it, CUDA graphs or not.
UNTUNED = {"max-autotune-no-cudagraphs": "model", "max-autotune": "reduce-overhead"}
# Two commands whose host canaries differ by more than this share ran on hosts too far apart
# for a ratio of a host-bound step to eager's to cancel the difference everywhere: said so.
HOSTS_APART = 0.2
# Autotuning that compiles within this factor of the default mode's first steps would be cheap
# enough to use from the start, shapes stable or not: the claim says it is not.
CHEAP_COMPILE = 1.5
# The optimizer is a "hot spot" when compiling it saves at least this share of eager's step. The
# rows hold no timing of the optimizer alone, so the time compiling it saves (``model`` against
# ``model+optimizer``) stands for its share: a lower bound, measured apart from the whole step.
HOT_SPOT = 0.10


def ratio(base: dict[str, Any] | None, other: dict[str, Any] | None) -> measure.Ratio | None:
    """Speedup of ``other`` over ``base`` with its spread, where both learn like eager. In one
    command, the paired ratios; across commands (hosts at other speeds), two CUDA-graph replays
    by their steps (the GPU's work), any other pair through each one's own eager step. The
    relative spreads add."""
    if not base or not other or not tables.step_median(base) or not tables.step_median(other):
        return None
    if base["status"] not in tables.LEARNS or other["status"] not in tables.LEARNS:
        return None
    a, b = (measure.Measurement.from_dict(r["step_ms"]) for r in (base, other))
    if base.get("part") == other.get("part"):
        return measure.speedup(a, b)
    if base["variant"] in CUDA_GRAPHS and other["variant"] in CUDA_GRAPHS:
        value = a.median / b.median
        return measure.Ratio(value, value * (a.iqr / a.median + b.iqr / b.median))
    sa, sb = base.get("speedup"), other.get("speedup")
    if not sa or not sb:
        return measure.Ratio(a.median / b.median, 0.0)
    spread = (base.get("speedup_iqr") or 0.0) / sa + (other.get("speedup_iqr") or 0.0) / sb
    return measure.Ratio(sb / sa, sb / sa * spread)


def unranked(base: dict[str, Any], other: dict[str, Any]) -> float | None:
    """The hosts' gap (``tables.hosts_apart``) where it is too wide for ``ratio`` to rank rows
    of two commands, else None; two steady (not noisy) replays still rank, being the GPU's work
    (a noisy replay waits on the host too: the transformer's at batch 32 on the H200)."""
    apart = tables.hosts_apart(base, other)
    if apart is None or apart <= HOSTS_APART:
        return None
    steady = all(r["variant"] in CUDA_GRAPHS and r["status"] == "ok" for r in (base, other))
    return None if steady else apart


def faster(r: measure.Ratio | None) -> bool:
    """Measurably faster: even half its spread below the median ratio is above 1."""
    return r is not None and r.value - r.iqr / 2 > 1


def _show(r: measure.Ratio | None) -> str:
    if r is None:
        return "–"
    # A spread that rounds to nothing at two decimals is still a spread, not none.
    half = f"{r.iqr / 2:.2f}" if r.iqr / 2 >= 0.005 else "<0.01"
    return f"{r.value:.2f}x ± {half}"


class Holds(str, enum.Enum):
    """A claim's verdict against one model and batch size."""

    HOLDS = "holds"
    BY_EXCEPTION = "holds by its exception"  # the whole step is faster, the optimizer a hot spot
    DOES_NOT_HOLD = "does not hold"
    NO_VERDICT = "no verdict"  # a row missing, failed or learning differently; or hosts apart
    NOT_MEASURED = "not measured"
    FAILED = "failed"  # the autotuned row failed or learned differently (its status says)


class Payback(str, enum.Enum):
    """Whether autotuning's faster steps pay for its longer first steps at one shape."""

    PAYS = "pays"
    NEVER = "never"  # its steps are no faster
    NOT_SHOWN = "not measurably faster"  # faster by the median, not past half its spread
    UNRANKED = "unranked"  # two commands on hosts too far apart for the ratio to rank them
    NO_SPEED = "no speed"  # no ratio: a row missing, failed or learning differently


@dataclass(frozen=True)
class OptimizerJudged:
    """"Compile the model, not the whole step, unless the optimizer is a hot spot", at one
    model and batch: the optimizer and the whole step compiled, each over ``model``."""

    model: str
    batch: int
    optimizer: measure.Ratio | None
    whole: measure.Ratio | None
    share: float | None
    hosts_apart: float | None
    verdict: Holds


@dataclass(frozen=True)
class AutotuneJudged:
    """"Add max-autotune only once the shapes are stable", at one model, batch and mode, against
    the same compile untuned (``base``): it holds where the first steps cost over
    ``CHEAP_COMPILE`` times as much."""

    model: str
    batch: int
    mode: str
    base: str
    verdict: Holds
    cost: float | None = None
    speed: measure.Ratio | None = None
    hosts_apart: float | None = None
    payback: Payback | None = None
    pays_after: float | None = None
    status: str | None = None  # a failed row's status and message


def hot_share(rows: dict, model: str, bs: int) -> float | None:
    """``model``'s step less ``model+optimizer``'s, over eager's."""
    eager, base, opt = (tables.step_median(rows.get((model, bs, v)))
                        for v in ("eager", "model", "model+optimizer"))
    return None if not (eager and base and opt) else (base - opt) / eager


def optimizer_verdict(opt: measure.Ratio | None, whole: measure.Ratio | None,
                      share: float | None) -> Holds:
    """The hot spot is read from ``opt`` and ``share`` alone, never from the whole step, so the
    verdict cannot hold merely because the whole step won."""
    if opt is None or whole is None or share is None:
        return Holds.NO_VERDICT
    if not faster(whole):
        return Holds.HOLDS
    return Holds.BY_EXCEPTION if faster(opt) and share >= HOT_SPOT else Holds.DOES_NOT_HOLD


def optimizer_judged(doc: dict[str, Any]) -> list[OptimizerJudged]:
    rows, out = tables.by_key(doc), []
    for model, bs in tables.groups(doc):
        base = rows.get((model, bs, "model"))
        others = [rows.get((model, bs, v)) for v in ("model+optimizer", "step")]
        opt, whole = (ratio(base, o) for o in others)
        gaps = [g for o in others if base and o and (g := unranked(base, o)) is not None]
        share = hot_share(rows, model, bs)
        out.append(OptimizerJudged(model, bs, opt, whole, share, max(gaps) if gaps else None,
                                   Holds.NO_VERDICT if gaps
                                   else optimizer_verdict(opt, whole, share)))
    return out


def optimizer_claim(doc: dict[str, Any]) -> str:
    # The saving is shown where the verdict reads it: where the whole step is faster.
    body = [[f"{j.model} · {j.batch}", _show(j.optimizer), _show(j.whole),
             render.num(j.share if j.verdict in (Holds.BY_EXCEPTION, Holds.DOES_NOT_HOLD)
                        else None, ".0%"),
             j.verdict.value + (f": hosts {j.hosts_apart:.0%} apart" if j.hosts_apart else "")]
            for j in optimizer_judged(doc)]
    head = ("Model · batch", "Optimizer compiled too, over `model`", "Whole step, over `model`",
            f"Optimizer saves (mark {HOT_SPOT:.0%})", "Verdict")
    return render.markdown_table(head, body, align="lrrrl")


def autotune_judged_one(model: str, bs: int, mode: str, base: dict[str, Any] | None,
                        tuned: dict[str, Any] | None) -> AutotuneJudged:
    untuned = base["variant"] if base else UNTUNED[mode]
    if not base or not tuned or base.get("compile_s") is None or tuned.get("compile_s") is None:
        return AutotuneJudged(model, bs, mode, untuned, Holds.NOT_MEASURED)
    if tuned["status"] not in tables.LEARNS:
        status = f"{tuned['status']}: {tuned['message']}" if tuned["message"] else tuned["status"]
        return AutotuneJudged(model, bs, mode, untuned, Holds.FAILED, status=status)
    cost = tuned["compile_s"] / base["compile_s"] if base["compile_s"] else float("inf")
    verdict = Holds.DOES_NOT_HOLD if cost <= CHEAP_COMPILE else Holds.HOLDS
    r = ratio(base, tuned)
    judged = functools.partial(AutotuneJudged, model, bs, mode, untuned, verdict, cost, r)
    if r is None:
        return judged(payback=Payback.NO_SPEED)
    if (apart := unranked(base, tuned)) is not None:
        return judged(hosts_apart=apart, payback=Payback.UNRANKED)
    steps = tables.break_even_steps(tuned, base, r.value) if faster(r) else None
    if steps is not None:
        return judged(payback=Payback.PAYS, pays_after=steps)
    return judged(payback=Payback.NEVER if r.value <= 1 else Payback.NOT_SHOWN)


def autotuned_modes(doc: dict[str, Any]) -> list[str]:
    """The autotuning modes the run timed; else the first, which the claim says is unmeasured."""
    return [m for m in AUTOTUNED if any(r["variant"] == m for r in doc["rows"])] or [AUTOTUNED[0]]


def autotune_judged(doc: dict[str, Any]) -> list[AutotuneJudged]:
    rows = tables.by_key(doc)
    return [autotune_judged_one(model, bs, m, rows.get((model, bs, UNTUNED[m])),
                                rows.get((model, bs, m)))
            for model, bs in tables.groups(doc) for m in autotuned_modes(doc)]


def _payback_cell(j: AutotuneJudged) -> str:
    if j.payback is Payback.PAYS:
        return f"after {j.pays_after:,.0f} steps"
    if j.payback is Payback.UNRANKED:
        return f"unranked: hosts {j.hosts_apart:.0%} apart"
    return "–" if j.payback in (None, Payback.NO_SPEED) else j.payback.value


def autotune_claim(doc: dict[str, Any]) -> str:
    body = [[f"{j.model} · {j.batch}", f"`{j.mode}` against `{j.base}`",
             render.num(j.cost, ".1f"), _show(j.speed), _payback_cell(j),
             j.status if j.verdict is Holds.FAILED else j.verdict.value]
            for j in autotune_judged(doc)]
    head = ("Model · batch", "Autotuned", "First steps ×", "Steps' speed", "Pays back",
            "Verdict")
    return render.markdown_table(head, body, align="llrrll")


def verdicts(doc: dict[str, Any]) -> str:
    return optimizer_claim(doc) + "\n\n" + autotune_claim(doc)
