"""What a diagnosis found, as data: each phase's section, and the verdict drawn from them."""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass
from typing import Any

from snippets.core import measure
from snippets.core.findings import Verdict, verdict


class Phase(str, enum.Enum):
    """The phases, in the order a diagnosis runs them."""

    BREAKS = "graph breaks"
    MODES = "modes"
    RECOMPILES = "recompiles"


class Status(str, enum.Enum):
    DONE = "done"
    SKIPPED = "skipped"  # the budget ran out before it (its message says what it needed)
    FAULT = "fault"  # it raised; its message is the exception's first line


@dataclass(frozen=True)
class Strategy:
    """One way of telling the compiler about shapes, run over the whole shape schedule."""

    name: str  # "default", "mark_dynamic", "dynamic=True"
    compiles: int  # graphs Dynamo compiled over the schedule (each piece of a broken graph counts)
    compiled_at: tuple[int, ...]  # the batch sizes whose call compiled something
    recompiled: tuple[str, ...] = ()  # "forward in model.py:12" per recompile Dynamo logged
    guard_failures: tuple[str, ...] = ()  # what the recompiles log gives as the reason, deduped
    errors: tuple[str, ...] = ()
    correct: bool = True  # every call's output matched eager's
    stall_s: float | None = None  # with Inductor: seconds the calls that compiled took, summed


@dataclass(frozen=True)
class ModeRun:
    """One torch.compile mode: its first call (the compile), its output against eager, its time."""

    mode: str
    status: str  # "ok", "mismatch", "error", "oom", "skipped"
    message: str = ""
    compile_s: float | None = None  # the first call in an empty Inductor cache
    rel_err: float | None = None
    warm_s: float | None = None  # the first call again, after a Dynamo reset, the cache warm
    latency: measure.Measurement | None = None
    speedup: measure.Ratio | None = None  # eager's median over this mode's, paired spread
    break_even_calls: float | None = None  # compile_s / (eager - compiled) per call; None: never


@dataclass(frozen=True)
class Section:
    phase: Phase
    status: Status
    seconds: float
    message: str = ""
    found: Any = None  # BREAKS: explain.Explanation; RECOMPILES, MODES: a tuple of the above
    skipped: tuple[str, ...] = ()  # parts the budget left out (a strategy, a mode, the timing)
    form: str = ""  # BREAKS: how a call passes the example (examples.call_form), for the code


# The least gain the verdict asks of a mode before it says to compile. A gain beyond the noise of
# one run's rounds but under this is smaller than the drift between runs on the recorded
# machines (the noise page), and its compile takes a hundred thousand calls or more to repay
# (the built-in transformer's fast path on the H200: 1.005x, 148,000 calls).
WORTH = 1.05


class Advice(str, enum.Enum):
    COMPILE = "compile"  # a mode that is correct, pays beyond the noise and gains WORTH or more
    STAY_EAGER = "stay eager"  # no correct mode pays beyond the noise by WORTH
    UNDECIDED = "undecided"  # the modes were not timed (skipped, fault, interrupted)


class RiskKind(str, enum.Enum):
    BREAK = "graph break"
    RECOMPILE = "recompile"
    MISMATCH = "wrong output"
    FAST_PATH = "fused fast path"  # a native op Inductor can only call, not fuse into
    NO_TF32 = "fp32 products without TF32"  # on CUDA, at torch's default matmul precision


# torch.nn's inference fast path: nn.TransformerEncoderLayer and nn.MultiheadAttention, in eval
# without grad, call one fused native op each, and Dynamo records the call as it is
# (torch/nn/modules/transformer.py, torch/nn/modules/activation.py). The graph-breaks page shows
# what that leaves Inductor; torch.backends.mha.set_fastpath_enabled(False) turns it off.
FAST_PATH_OPS = ("_transformer_encoder_layer_fwd", "_native_multi_head_attention")


# The matrix products in a graph: fp32 ones run without TF32 at torch's default matmul
# precision, "highest" (torch.backends.cuda.matmul.fp32_precision "ieee").
PRODUCT_OPS = frozenset({"linear", "mm", "addmm", "bmm", "baddbmm", "matmul",
                         "scaled_dot_product_attention"})
# The convolutions: cuDNN runs fp32 ones as TF32 by default, whatever the matmul precision
# (torch.backends.cudnn.allow_tf32 is True, cudnn.conv.fp32_precision "tf32":
# torch/backends/cudnn/__init__.py and torch/csrc/Context.h, torch 2.14.1), so they miss TF32
# only where a run turned that off.
CONV_OPS = frozenset({"conv1d", "conv2d", "conv3d", "conv_transpose2d"})
# What max-autotune benchmarks one by one: both.
MATMUL_OPS = PRODUCT_OPS | CONV_OPS


# The frame Dynamo compiles a torch.nn module through when its trace rules skip the module's
# own file (``wrap_inline``'s ``inner``): a recompile logged there is the module's call.
WRAPPER_FRAME = "torch/_dynamo/external_utils.py"


def default_compile_s(sections: tuple[Section, ...] | list[Section]) -> float | None:
    """The default mode's first call in an empty cache, where the modes phase timed it."""
    runs = _found(tuple(sections), Phase.MODES) or ()
    return next((m.compile_s for m in runs if m.mode == "default"), None)


def matmul_ops(sections: tuple[Section, ...] | list[Section],
               ops: frozenset[str] = MATMUL_OPS) -> int:
    """The products and convolutions (or the ``ops`` given) in the graphs the breaks phase
    found (0 if it did not finish)."""
    exp = _found(tuple(sections), Phase.BREAKS)
    return sum(op in ops for graph in (exp.ops_per_graph if exp else ()) for op in graph)


def without_tf32(sections: tuple[Section, ...] | list[Section], matmul_precision: str,
                 cudnn_tf32: bool = True) -> int:
    """The fp32 ops of the graphs that ran without TF32 on CUDA: the products at "highest",
    the convolutions only where cuDNN's TF32 was off."""
    return ((matmul_ops(sections, PRODUCT_OPS) if matmul_precision == "highest" else 0)
            + (0 if cudnn_tf32 else matmul_ops(sections, CONV_OPS)))


@dataclass(frozen=True)
class Risk:
    kind: RiskKind
    where: str  # the user's line of a break, the function that recompiled, or the mode
    count: int = 1


@dataclass(frozen=True)
class Recommendation:
    advice: Advice
    mode: str | None = None
    speedup: float | None = None
    spread: float | None = None  # IQR of the paired per-round ratios
    verdict: Verdict | None = None
    compile_s: float | None = None
    break_even_calls: float | None = None
    shapes: str | None = None  # the shape strategy to use, where one compiles less than default
    stalls_s: tuple[float | None, float | None] = (None, None)  # default's, then the strategy's
    risks: tuple[Risk, ...] = ()
    compile_args: tuple[tuple[str, str], ...] = ()  # torch.compile's arguments, as code
    before_call: tuple[str, ...] = ()  # lines to run on each input before the call
    call: str = "y = model(x)"  # the call, as the example is passed (a tensor, a tuple, a dict)


def _found(sections: tuple[Section, ...], phase: Phase) -> Any:
    return next((s.found for s in sections if s.phase is phase and s.status is Status.DONE),
                None)


def best_strategy(strategies: tuple[Strategy, ...]) -> Strategy | None:
    """The strategy that compiles least without errors or wrong outputs, where it compiles less
    than the default does; else None (recompiling costs nothing to fix)."""
    default = next((s for s in strategies if s.name == "default"), None)
    fine = [s for s in strategies if s.name != "default" and s.correct and not s.errors]
    best = min(fine, key=lambda s: s.compiles, default=None)
    if default is None or best is None or best.compiles >= default.compiles:
        return None
    return best


def risks(sections: tuple[Section, ...], device_type: str = "cpu",
          matmul_precision: str = "highest", cudnn_tf32: bool = True) -> tuple[Risk, ...]:
    """What the diagnosis found in the way; ``device_type``, ``matmul_precision`` and
    ``cudnn_tf32`` are the run's (see ``without_tf32``)."""
    found: list[Risk] = []
    exp = _found(sections, Phase.BREAKS)
    for r in exp.break_reasons if exp else ():
        found.append(Risk(RiskKind.BREAK, r.location or r.reason, r.times))
    ops = Counter(op for graph in (exp.ops_per_graph if exp else ()) for op in graph)
    found += [Risk(RiskKind.FAST_PATH, op, ops[op]) for op in FAST_PATH_OPS if ops[op]]
    default = next((s for s in _found(sections, Phase.RECOMPILES) or () if s.name == "default"),
                   None)
    if default is not None:
        for where in dict.fromkeys(default.recompiled):
            found.append(Risk(RiskKind.RECOMPILE, where, default.recompiled.count(where)))
    for m in _found(sections, Phase.MODES) or ():
        if m.status == "mismatch":
            found.append(Risk(RiskKind.MISMATCH, m.mode))
    if device_type == "cuda" and (n := without_tf32(sections, matmul_precision, cudnn_tf32)):
        where = " and ".join(w for w, off in (
            ("torch.get_float32_matmul_precision() == 'highest'",
             matmul_precision == "highest" and matmul_ops(sections, PRODUCT_OPS)),
            ("torch.backends.cudnn.allow_tf32 == False",
             not cudnn_tf32 and matmul_ops(sections, CONV_OPS))) if off)
        found.append(Risk(RiskKind.NO_TF32, where, n))
    return tuple(found)


def recommend(sections: tuple[Section, ...], device_type: str = "cpu",
              matmul_precision: str = "highest", cudnn_tf32: bool = True) -> Recommendation:
    """The verdict: the correct mode with the largest speedup that pays beyond the noise and
    by ``WORTH`` or more."""
    found = risks(sections, device_type, matmul_precision, cudnn_tf32)
    strategy = best_strategy(_found(sections, Phase.RECOMPILES) or ())
    runs = [m for m in _found(sections, Phase.MODES) or () if m.speedup is not None]
    form = next((s.form for s in sections if s.phase is Phase.BREAKS and s.form), "x")
    shapes = {} if strategy is None else {"shapes": strategy.name, "stalls_s": (
        next(s.stall_s for s in _found(sections, Phase.RECOMPILES) if s.name == "default"),
        strategy.stall_s)}
    if not runs:
        return Recommendation(Advice.UNDECIDED, risks=found, **shapes)
    paying = [m for m in runs if m.status == "ok" and m.speedup.value >= WORTH
              and verdict(m.speedup.value, m.speedup.iqr) is Verdict.PAYS]
    if not paying:
        top = max(runs, key=lambda m: m.speedup.value)
        return Recommendation(Advice.STAY_EAGER, top.mode, top.speedup.value, top.speedup.iqr,
                              verdict(top.speedup.value, top.speedup.iqr), top.compile_s,
                              None, risks=found, **shapes)
    best = max(paying, key=lambda m: m.speedup.value)
    args: list[tuple[str, str]] = [] if best.mode == "default" else [("mode", repr(best.mode))]
    before: tuple[str, ...] = ()
    if strategy is not None and strategy.name == "dynamic=True":
        args.append(("dynamic", "True"))
    elif strategy is not None and strategy.name == "mark_dynamic":
        before = (MARK_DYNAMIC[form],)
    return Recommendation(Advice.COMPILE, best.mode, best.speedup.value, best.speedup.iqr,
                          Verdict.PAYS, best.compile_s, best.break_even_calls, risks=found,
                          compile_args=tuple(args), before_call=before,
                          call=f"y = model({form})", **shapes)


# The batch marked dynamic on every tensor the call passes, as the diagnosis marked it
# (examples.mark_dynamic), by how the example is passed.
MARK_DYNAMIC = {"x": "torch._dynamo.mark_dynamic(x, 0)",
                "*x": "for t in x: torch._dynamo.mark_dynamic(t, 0)",
                "**x": "for t in x.values(): torch._dynamo.mark_dynamic(t, 0)"}


def as_dict(rec: Recommendation) -> dict[str, Any]:
    """The verdict as a results file holds it (enums by value)."""
    return {"advice": rec.advice.value, "mode": rec.mode, "speedup": rec.speedup,
            "spread": rec.spread, "verdict": rec.verdict.value if rec.verdict else None,
            "compile_s": rec.compile_s, "break_even_calls": rec.break_even_calls,
            "shapes": rec.shapes, "stalls_s": list(rec.stalls_s),
            "risks": [{"kind": r.kind.value, "where": r.where, "count": r.count}
                      for r in rec.risks],
            "compile_args": [list(a) for a in rec.compile_args],
            "before_call": list(rec.before_call), "call": rec.call}
