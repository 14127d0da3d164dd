"""Diagnose a user's model: where it breaks, whether it recompiles, which mode pays, what to
paste."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import torch

from snippets import explain
from snippets.bench import TOLERANCE, payoff
from snippets.core import backends, config, examples, measure, models, results, rows
from snippets.diagnose import findings, kinds, shapes
from snippets.diagnose.findings import ModeRun, Phase, Section, Status, Strategy
# The settings, re-exported: a diagnosis is diagnose.DiagnoseConfig(...) wherever it is made.
from snippets.diagnose.settings import (  # noqa: F401
    DEFAULTS, DEVICE_MODES, PRECISIONS, DiagnoseConfig, parse_shapes, ran_at)

KIND = kinds.DIAGNOSE.name
STRATEGIES = shapes.STRATEGIES
# A phase's part is started only with at least this much of the budget left (seconds, on the
# 2-core CPU this guide's CPU runs use): a Dynamo-only pass over the schedule takes a few seconds,
# a small model's Inductor compile ten to thirty.
NEEDS_S = {"strategy": 5.0, "stalls": 40.0, "compile": 20.0, "timing": 5.0, "autotune": 120.0}
# max-autotune benchmarks kernel choices, every product and convolution apart: it starts only
# with this many times the default's first two calls left, and this many seconds per such op
# (on the recorded H200, ResNet-50's 53 convolutions and a linear layer, fp32, had ten
# benchmarked at 330 s and were still compiling at 400 s, where six times the default was 180 s).
AUTOTUNE_TIMES = 6.0
TUNE_S_PER_OP = 15.0
class Budget:
    """The seconds left of ``budget_s`` from the moment it is made."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock, self._end = clock, clock() + seconds

    def left(self) -> float:
        return self._end - self._clock()

    def allows(self, part: str, needs_s: float | None = None) -> bool:
        return self.left() >= (NEEDS_S[part] if needs_s is None else needs_s)


def _skip(part: str, name: str, budget: Budget, needs_s: float | None = None) -> str:
    needs = NEEDS_S[part] if needs_s is None else needs_s
    return f"{name}: needs {needs:.0f} s, {max(budget.left(), 0):.0f} s left"


def compile_needs_s(mode: str, runs: dict[str, ModeRun], tuned_ops: int = 0) -> float:
    """The budget a mode's compile must find left: autotuning scales with the default's and
    with the products and convolutions it benchmarks (``tuned_ops``)."""
    if "autotune" not in mode:
        return NEEDS_S["compile"]
    first = runs.get("default")
    spent = (first.compile_s or 0.0) + (first.warm_s or 0.0) if first else 0.0
    return max(NEEDS_S["autotune"], AUTOTUNE_TIMES * spent, TUNE_S_PER_OP * tuned_ops)


def verdict_of(cfg: DiagnoseConfig, sections: tuple[Section, ...]) -> findings.Recommendation:
    """The verdict of a finished diagnosis, at the precision it ran (the factory may set one)."""
    return findings.recommend(sections, config.device_type(cfg.resolve().device),
                              torch.get_float32_matmul_precision(),
                              torch.backends.cudnn.allow_tf32)


def breaks(model: torch.nn.Module, x: examples.Example, budget: Budget) -> Section:
    """Phase 1: the breaks Dynamo logs, once per user line, in explain's words."""
    args, kwargs = examples.split(x)
    return Section(Phase.BREAKS, Status.DONE, 0.0,
                   found=explain.explain_quietly(model, *args, **kwargs),
                   form=examples.call_form(x))


def stalls_need_s(default: Strategy, best: Strategy, compile_s: float | None) -> float:
    """The budget the stalls must find left: a cold compile, as long as the default mode's first
    call (``compile_s``), per graph the two strategies compile over the schedule."""
    if compile_s is None:
        return NEEDS_S["stalls"]
    return max(NEEDS_S["stalls"], compile_s * (default.compiles + best.compiles))


def recompiles(factory: models.Factory, schedule: tuple[int, ...], budget: Budget,
               compile_s: float | None = None) -> Section:
    """Phase 3: each shape strategy's compiles over the schedule; their stalls if budget holds."""
    done, skipped = [], []
    for name in STRATEGIES:
        if not budget.allows("strategy"):
            skipped.append(_skip("strategy", name, budget))
            continue
        done.append(shapes.count_compiles(factory, name, schedule))
    # The remedy measured against the recompiling run: the stalls each makes a caller wait for
    # with Inductor, each in an empty cache so that neither reuses the other's kernels.
    best = findings.best_strategy(tuple(done))
    default = next((st for st in done if st.name == "default"), None)
    needs = stalls_need_s(default, best, compile_s) if best and default else None
    if best is not None and not budget.allows("stalls", needs):
        skipped.append(_skip("stalls", "stalls", budget, needs))
    elif best is not None:
        stalls = {}
        for name in ("default", best.name):
            with backends.cold_cache():
                stalls[name] = shapes.count_compiles(factory, name, schedule,
                                                    backend="inductor").stall_s
        done = [replace(s, stall_s=stalls[s.name]) if s.name in stalls else s
                for s in done]
    return Section(Phase.RECOMPILES, Status.DONE, 0.0, found=tuple(done),
                   skipped=tuple(skipped))


def _compile(model: torch.nn.Module, x: examples.Example, mode: str, ref: list[torch.Tensor]
             ) -> tuple[ModeRun, Callable[[], object] | None]:
    """One mode's first call, timed whole (its compile), and its output against eager's."""
    torch._dynamo.reset()
    try:
        with backends.cold_cache():
            compiled = torch.compile(model, mode=mode)
            run = examples.bind(compiled, x)
            out, compile_s = measure.time_first_call(run, examples.device(x))
            # A new process on the same machine: Dynamo traces again, Inductor's caches hit.
            torch._dynamo.reset()
            compiled = torch.compile(model, mode=mode)
            run = examples.bind(compiled, x)
            out, warm_s = measure.time_first_call(run, examples.device(x))
        err = examples.relative_error(out, ref)
        del out  # a CUDA-graph output is overwritten by the next replay; hold none
        run()  # a fault while warming (a CUDA-graph capture) is this mode's too
    except Exception as exc:  # one mode's fault is its row's; the others go on
        status, message = rows.fault(exc)
        return ModeRun(mode, status, message), None
    ok = err <= TOLERANCE["fp32"]
    return (ModeRun(mode, "ok" if ok else "mismatch",
                    "" if ok else f"rel_err {err:.3g} above {TOLERANCE['fp32']}", compile_s, err,
                    warm_s=warm_s),
            run)


def modes(cfg: DiagnoseConfig, model: torch.nn.Module, x: examples.Example, budget: Budget,
          tuned: int = 0) -> Section:
    """Phase 2: each mode compiled with a cold cache, checked, then all timed against eager."""
    device = torch.device(cfg.device)
    ref = examples.reference(examples.call(model, x))
    fns: dict[str, Callable[[], object]] = {"eager": examples.bind(model, x)}
    runs, skipped = {}, []
    for mode in DEVICE_MODES[config.device_type(cfg.device)]:
        needs = compile_needs_s(mode, runs, tuned)
        if not budget.allows("compile", needs):
            skipped.append(_skip("compile", mode, budget, needs))
            continue
        runs[mode], fn = _compile(model, x, mode, ref)
        if fn is not None:
            fns[mode] = fn
    if len(fns) > 1 and not budget.allows("timing"):
        skipped.append(_skip("timing", "timing", budget))
    elif len(fns) > 1:
        timed = measure.measure_variants(fns, device, rounds=cfg.rounds, sample_ms=cfg.sample_ms)
        eager = timed["eager"]
        for mode in [name for name in fns if name != "eager"]:  # in the device's order
            m = timed[mode]
            calls = payoff.break_even_calls(runs[mode].compile_s, eager.median, m.median)
            runs[mode] = replace(runs[mode], latency=m,
                                             speedup=measure.speedup(eager, m),
                                             break_even_calls=calls)
        runs = {"eager": ModeRun("eager", "ok", rel_err=0.0, latency=eager), **runs}
    torch._dynamo.reset()
    return Section(Phase.MODES, Status.DONE, 0.0, found=tuple(runs.values()),
                   skipped=tuple(skipped))


def _phase(phase: Phase, run: Callable[[], Section], budget: Budget) -> Section:
    """Run one phase, timed; a fault is its section's, and the diagnosis goes on."""
    start = time.monotonic()
    if budget.left() <= 0:
        return Section(phase, Status.SKIPPED, 0.0, "no budget left")
    try:
        section = run()
    except Exception as exc:  # the user's model failed in this phase: say so, run the next
        return Section(phase, Status.FAULT, time.monotonic() - start, rows.fault(exc)[1])
    finally:
        torch._dynamo.reset()
    return replace(section, seconds=time.monotonic() - start)


def diagnose(cfg: DiagnoseConfig, factory: models.Factory, *, budget: Budget | None = None,
             on_section: Callable[[Section], None] = lambda _: None) -> tuple[Section, ...]:
    """Every phase in turn on the model ``factory`` builds at the schedule's first batch size;
    ``on_section`` sees each finished section (to show it, or to stop the run there)."""
    cfg = cfg.resolve()
    budget = budget or Budget(cfg.budget_s)
    device = torch.device(cfg.device)
    model, x = models.build(factory, "factory", cfg.schedule[0])  # a SpecError is the user's
    model, x = model.to(device).eval(), examples.place(x, device)
    # The modes before the recompiles: the verdict needs their timing, while the stalls can take
    # minutes of a large model's budget (ResNet-50 on two CPU cores: over three) for one line.
    phases = {Phase.BREAKS: lambda: breaks(model, x, budget),
              Phase.MODES: lambda: modes(cfg, model, x, budget, findings.matmul_ops(done)),
              Phase.RECOMPILES: lambda: recompiles(_on(factory, device), cfg.schedule, budget,
                                                   findings.default_compile_s(done))}
    done: list[Section] = []
    with torch.no_grad():
        for phase, run in phases.items():
            done.append(_phase(phase, run, budget))
            on_section(done[-1])
    return tuple(done)


def _on(factory: models.Factory, device: torch.device) -> models.Factory:
    def made(bs: int) -> tuple[torch.nn.Module, examples.Example]:
        model, x = factory(bs)
        return model.to(device), examples.place(x, device)
    return made


def _found_dict(section: Section) -> Any:
    if section.found is None:
        return None
    if section.phase is Phase.BREAKS:
        return section.found.as_dict()
    out = []
    for item in section.found:
        d = dict(item.__dict__)
        if isinstance(item, ModeRun):
            d["latency"] = item.latency.as_dict() if item.latency else None
            d["speedup"] = (None if item.speedup is None
                            else {"value": item.speedup.value, "iqr": item.speedup.iqr})
        out.append({k: list(v) if isinstance(v, tuple) else v for k, v in d.items()})
    return out


def document(cfg: DiagnoseConfig, spec: str, sections: tuple[Section, ...], *,
             commit: str | None = None) -> dict[str, Any]:
    """The results document of one diagnosis: a row per finished phase, and the verdict."""
    cfg = cfg.resolve()
    rec = verdict_of(cfg, sections)
    doc = results.new_document(
        KIND, results.provenance(torch.device(cfg.device), cfg.settings(), commit=commit),
        spec=spec, verdict=findings.as_dict(rec))
    doc["rows"] = [{"phase": s.phase.value, "outcome": s.status.value, "message": s.message,
                    "seconds": s.seconds, "skipped": list(s.skipped), "found": _found_dict(s)}
                   for s in sections]
    doc["complete"] = len(sections) == len(Phase)
    return doc
