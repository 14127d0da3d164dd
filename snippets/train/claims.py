"""The tutorial's advice on training, held to a run's numbers.

The tutorial says three things about training: compile the model rather than the whole training
step unless the optimizer step is a hot spot; add max-autotune only once the shapes are stable;
and compiling the loss and backward is automatic, since AOTAutograd traces both. The first two
are set against a run's rows here, the third against what ``aot.traced`` saw. Every verdict is
computed, never typed.
"""

from __future__ import annotations

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
    """Speedup of ``other`` over ``base`` with its spread, where both were timed and learn like
    eager. Rows of one command share their rounds, so the spread is of the paired ratios. Rows
    of two commands (``--append``) are not paired, and the host ran at a different speed in
    each. Two replayed CUDA graphs are set against each other by their step times directly: a
    replay that is the GPU's work barely moves with the host's speed (the page's two runs show
    it; ``unranked`` says where a replay is not). Any other step is read against the eager
    step of its own command, whose ratio cancels the host's speed where eager is bound by the
    host too. In both, the relative spreads add."""
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
    """The hosts' gap (``tables.hosts_apart``) where it is too wide for ``ratio`` to rank two
    rows of different commands, else None. A host-bound step and eager's need not move alike (where
    eager's step is the GPU's work, they do not), so the ratio of the two commands' speedups
    keeps the hosts' gap. Two replayed CUDA graphs are compared by their steps, and rank where
    both replays are steady: a replay that is the GPU's work barely varies from round to round,
    while one whose rounds spread as a noisy row's do waits on the host too (the transformer's
    replayed step at batch 32 on the H200: noisy, and idle through much of it by the profiler)."""
    apart = tables.hosts_apart(base, other)
    if apart is None or apart <= HOSTS_APART:
        return None
    steady = all(r["variant"] in CUDA_GRAPHS and r["status"] == "ok" for r in (base, other))
    return None if steady else apart


def faster(r: measure.Ratio | None) -> bool:
    """Measurably faster: even half its spread below the median ratio is above 1."""
    return r is not None and r.value - r.iqr / 2 > 1


NO_VERDICT = "no verdict: a row is missing, failed or learns differently from eager"


def _show(r: measure.Ratio | None) -> str:
    if r is None:
        return "–"
    # A spread that rounds to nothing at two decimals is still a spread, not none.
    half = f"{r.iqr / 2:.2f}" if r.iqr / 2 >= 0.005 else "<0.01"
    return f"{r.value:.2f}x ± {half}"


def hot_share(rows: dict, model: str, bs: int) -> float | None:
    """The share of eager's step that compiling the optimizer saves: ``model``'s step less
    ``model+optimizer``'s, over eager's."""
    eager, base, opt = (tables.step_median(rows.get((model, bs, v)))
                        for v in ("eager", "model", "model+optimizer"))
    return None if not (eager and base and opt) else (base - opt) / eager


def optimizer_verdict(opt: measure.Ratio | None, whole: measure.Ratio | None,
                      share: float | None) -> str:
    """``opt``: the optimizer compiled too, over the model alone; ``whole``: the whole step over
    the model alone; ``share``: what compiling the optimizer saves of eager's step
    (``hot_share``). The hot spot is decided from ``opt`` and ``share`` alone, never from the
    whole step, so the verdict cannot hold merely because the whole step won."""
    if opt is None or whole is None or share is None:
        return NO_VERDICT
    if not faster(whole):
        return "holds: the whole step is no faster than the model alone"
    hot = faster(opt) and share >= HOT_SPOT
    saves = f"compiling it saves {share:.0%} of eager's step, the mark is {HOT_SPOT:.0%}"
    if hot:
        return f"holds by its exception: the whole step is faster, and the optimizer is a hot " \
               f"spot ({saves})"
    return f"does not hold: the whole step is faster, though the optimizer is no hot spot " \
           f"({saves})"


def optimizer_claim(doc: dict[str, Any]) -> str:
    """Per model and batch size: what compiling the optimizer and the whole step add to a
    compiled model, and the verdict on "compile the model, not the whole step"."""
    rows, body = tables.by_key(doc), []
    for model, bs in tables.groups(doc):
        base = rows.get((model, bs, "model"))
        others = [rows.get((model, bs, v)) for v in ("model+optimizer", "step")]
        opt, whole = (ratio(base, o) for o in others)
        gaps = [g for o in others if base and o and (g := unranked(base, o)) is not None]
        verdict = (optimizer_verdict(opt, whole, hot_share(rows, model, bs)) if not gaps else
                   f"no verdict: `model` was timed in another command, on a host {max(gaps):.0%} "
                   "apart by the canaries, too far for the ratios to rank these steps")
        body.append([f"{model} · {bs}", _show(opt), _show(whole), verdict])
    head = ("Model · batch", "Optimizer compiled too, over `model`", "Whole step, over `model`",
            "Verdict")
    return render.markdown_table(head, body, align="lrrl")


def autotune_cell(base: dict[str, Any] | None, tuned: dict[str, Any] | None) -> str:
    if not base or not tuned or base.get("compile_s") is None or tuned.get("compile_s") is None:
        return "not measured"
    if tuned["status"] not in tables.LEARNS:
        return f"{tuned['status']}: {tuned['message']}" if tuned["message"] else tuned["status"]
    cost = tuned["compile_s"] / base["compile_s"] if base["compile_s"] else float("inf")
    word = "does not hold" if cost <= CHEAP_COMPILE else "holds"
    r = ratio(base, tuned)
    if r is None:
        return f"{word}: first steps {cost:.1f} times `{base['variant']}`'s; {NO_VERDICT} on speed"
    if (apart := unranked(base, tuned)) is not None:
        return (f"{word}: first steps {cost:.1f} times `{base['variant']}`'s; steps {_show(r)} "
                f"its speed, timed in two commands on hosts {apart:.0%} apart by their canaries, "
                "too far for the ratio to rank them")
    steps = tables.break_even_steps(tuned, base, r.value) if faster(r) else None
    pays = ("never pays" if r.value <= 1 else "not measurably faster, so never shown to pay"
            if steps is None else f"pays after {steps:,.0f} steps")
    return (f"{word}: first steps {cost:.1f} times `{base['variant']}`'s, steps {_show(r)} its "
            f"speed; {pays} at one shape")


def autotune_claim(doc: dict[str, Any]) -> str:
    """Per model and batch size and autotuning mode: its first steps against the same compile
    without autotuning (``UNTUNED``), its steps against that compile's, and after how many
    steps at one shape it has paid for the difference (every new shape pays its compile
    again)."""
    rows = tables.by_key(doc)
    modes = [m for m in AUTOTUNED if any(r["variant"] == m for r in doc["rows"])] or [AUTOTUNED[0]]
    body = [[f"{model} · {bs}", *(autotune_cell(rows.get((model, bs, UNTUNED[m])),
                                                rows.get((model, bs, m))) for m in modes)]
            for model, bs in tables.groups(doc)]
    head = ("Model · batch", *(f"`{m}` against `{UNTUNED[m]}`" for m in modes))
    return render.markdown_table(head, body, left=len(head))


def verdicts(doc: dict[str, Any]) -> str:
    return ("**Compile the model rather than the whole step, unless the optimizer step is a hot "
            "spot.**\n\n" + optimizer_claim(doc) + "\n\n**Add max-autotune only once the shapes "
            "are stable.**\n\n" + autotune_claim(doc))


def aot_verdict(value: list[dict[str, Any]]) -> str:
    """The third claim against what AOTAutograd was seen to trace (``aot.traced``)."""
    seen = {v["variant"]: v for v in value}
    model, step = seen.get("model", {}), seen.get("step", {})
    kinds = {g["kind"] for g in model.get("graphs", [])}
    backward = "backward" in kinds
    loss_with_model = any(g["loss"] for g in model.get("graphs", []))
    loss_with_step = list(dict.fromkeys(g["kind"] for g in step.get("graphs", []) if g["loss"]))
    out = ["- Compiling the model compiles its backward too: AOTAutograd "
           + ("made a backward graph" if backward else "made no backward graph") + "."]
    out.append("- The loss is traced only where it is inside the compiled code: "
               + ("in the model's graphs" if loss_with_model else "not with the model alone")
               + ("; with the whole step it is in the " + " and ".join(loss_with_step)
                  + " graphs" if loss_with_step else "") + ".")
    reasons = [r for r in step.get("reasons", []) if "backward" in r.lower()]
    if reasons:
        out.append(f"- `loss.backward()` itself is not traced: Dynamo breaks the graph there "
                   f"(\"{reasons[0]}\") and runs AOTAutograd's backward graph from eager mode.")
    holds = backward and not loss_with_model
    out.append("- Verdict: " + ("holds for the backward, and for the loss only when the loss is "
                                "compiled with the model (the whole step)." if holds else
                                "as stated, holds." if backward else "does not hold."))
    return "\n".join(out)


def aot_report(value: list[dict[str, Any]]) -> str:
    """The graphs AOTAutograd made, and the verdict they give."""
    return tables.traced(value) + "\n\n" + aot_verdict(value)
