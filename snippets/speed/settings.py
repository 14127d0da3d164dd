"""Backend settings measured, not assumed: cuDNN's autotuner and TF32, on and off, per mode.

Every point of the grid (``grid``) runs the same weights on the same input, timed in interleaved
rounds, each sample under its own settings; each compiled point is a function of its own, so it
compiles and captures its CUDA graph under its own settings. Rows are the benchmark's, with the
point's ``backends`` and its ``speedup`` over the grid's first point (everything off).
``verdicts`` reads a document per mode and switch, ``chosen`` turns that into each mode's settings
and ``evidence`` into what a later run records in its provenance.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import math
import types
from collections.abc import Callable, Iterator
from typing import Any

import torch

from snippets.bench.rows import new_row
from snippets.core import backends, examples, measure, models
from snippets.core.rows import fault, or_none
from snippets.core.rows import finish as finish_row
from snippets.speed import kinds

KIND = kinds.SETTINGS.name
SWITCHES = ("cudnn_benchmark", "tf32")  # the switches the grid turns, in its order
_ids = itertools.count()


# --8<-- [start:grid]
def grid(dtype):
    """The settings to measure: the cuDNN autotuner off and on; TF32 off
    and on only where the dtype is fp32 (bf16 and fp16 never use TF32)."""
    from snippets.core import backends

    tf32 = (False, True) if dtype == "fp32" else (True,)
    return [backends.BackendSettings(
                matmul_precision="high" if t else "highest",
                cudnn_tf32=t, cudnn_benchmark=b)
            for t in tf32 for b in (False, True)]
# --8<-- [end:grid]


def label(b: backends.BackendSettings, dtype: str) -> str:
    """``cudnn.benchmark on, TF32 off``; TF32 is named only where the dtype is fp32."""
    tf32 = f", TF32 {'on' if b.tf32 else 'off'}" if dtype == "fp32" else ""
    return f"cudnn.benchmark {'on' if b.cudnn_benchmark else 'off'}{tf32}"


def own_function(model: torch.nn.Module) -> Callable[..., Any]:
    """A function of its own that calls ``model``. Dynamo keeps compiled code on the code object
    it traced, so points compiled from one module would share one entry (and one CUDA graph,
    captured under whichever point called first); a code object per point keeps them apart."""
    def call(*args, **kwargs):
        return model(*args, **kwargs)

    code = call.__code__.replace(co_name=f"call_{next(_ids)}")
    return types.FunctionType(code, call.__globals__, code.co_name, None, call.__closure__)


def sweep(name: str, factory: models.Factory, bs: int, *, device: torch.device,
          dtype: str, torch_dtype: torch.dtype, modes: tuple[str, ...], rounds: int,
          warm_rounds: int, sample_ms: float, warmup: int, tolerance: float,
          progress: Callable[[str], None] = lambda _: None) -> Iterator[dict[str, Any]]:
    """Every grid point of every mode of one (model, batch size); one timed group per mode."""
    model, x = models.build(factory, name, bs)
    model, x = model.to(device, torch_dtype).eval(), examples.place(x, device, torch_dtype)
    points = {label(b, dtype): b for b in grid(dtype)}
    with next(iter(points.values())).apply():  # eager with everything off: the reference
        ref = examples.reference(examples.call(model, x))
    flops = or_none(lambda: models.count_flops(model, x))
    for mode in modes:
        torch._dynamo.reset()  # each mode compiles from nothing; its points share the process
        rows = {point: new_row(name, bs, mode, flops=flops, backends=b.as_dict(), point=point)
                for point, b in points.items()}
        time_points(rows, lambda _, mode=mode: _build(model, x, ref, mode, device),
                    lambda p: points[p].apply(), device, rounds=rounds, warm_rounds=warm_rounds,
                    sample_ms=sample_ms, warmup=warmup, tolerance=tolerance,
                    progress=lambda what, mode=mode: progress(f"{mode}: {what}"))
        yield from rows.values()


def time_points(rows: dict[str, dict[str, Any]],
                build: Callable[[str], tuple[Callable[[], object], float | None, float]],
                around: Callable[[str], contextlib.AbstractContextManager], device: torch.device,
                *, rounds: int, warm_rounds: int, sample_ms: float, warmup: int,
                tolerance: float, progress: Callable[[str], None]
                ) -> dict[str, Callable[[], object]]:
    """Each point of ``rows`` built and warmed under ``around(point)``, then those built timed
    together against the first; a point that fails is its row. The built points' callables."""
    fns = {}
    for point, row in rows.items():
        progress(point)
        try:
            with around(point):
                fn, compile_s, err = build(point)
                for _ in range(warmup):
                    fn()
        except Exception as exc:  # one point's fault is its row; the run goes on
            row["status"], row["message"] = fault(exc)
            continue
        row.update(compile_s=compile_s, **checked(err, tolerance))
        fns[point] = fn
    if fns:
        progress(f"timing {len(fns)} points")
        timed = measure.measure_variants(fns, device, rounds=rounds, sample_ms=sample_ms,
                                         warmup=0, warm_rounds=warm_rounds, around=around)
        base = next(iter(rows))
        for point in fns:
            # % of peak is left out: the points are read against the base point, not a peak.
            finish_row(rows[point], timed[point], calls=timed.calls[point],
                       flops=rows[point]["flops"], baseline=timed[base] if base in fns else None)
    return fns


def checked(err: float, tolerance: float) -> dict[str, Any]:
    """A built point's error and status: ``mismatch`` above ``tolerance``."""
    ok = err <= tolerance
    return {"rel_err": err, "status": "ok" if ok else "mismatch",
            "message": "" if ok else f"rel_err {err:.3g} above {tolerance}"}


def _build(model: torch.nn.Module, x: examples.Example, ref: list[torch.Tensor], mode: str,
           device: torch.device) -> tuple[Callable[[], object], float | None, float]:
    """A point's callable on its own copy of the weights, its compile time and its error
    against eager with every switch off (so TF32's rounding shows in its rows)."""
    m = copy.deepcopy(model)
    if mode == "eager":
        eager = examples.bind(m, x)
        return eager, None, examples.relative_error(eager(), ref)
    compiled = examples.bind(torch.compile(own_function(m), mode=mode), x)
    out, compile_s = measure.time_first_call(compiled, device)
    err = examples.relative_error(out, ref)
    del out  # a CUDA-graph output is overwritten by the next replay
    return compiled, compile_s, err


# ---- reading a document ------------------------------------------------------------------------

def _on(row: dict[str, Any], switch: str) -> bool:
    return bool(row["backends"][switch])


def effects(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Per (model, batch, mode, switch, the other switches' state): the switch's speedup, on
    over off, with half the IQR of the rounds' paired ratios as its spread."""
    good = [r for r in doc["rows"] if r["status"] in ("ok", "noisy") and r.get("latency_ms")]
    out = []
    for switch in SWITCHES:
        others = [s for s in SWITCHES if s != switch]
        for off in (r for r in good if not _on(r, switch)):
            on = next((r for r in good if _on(r, switch) and all(
                r[k] == off[k] for k in ("model", "batch_size", "mode")) and all(
                _on(r, o) == _on(off, o) for o in others)), None)
            if on is None:
                continue
            ratio = measure.speedup(measure.Measurement.from_dict(off["latency_ms"]),
                                    measure.Measurement.from_dict(on["latency_ms"]))
            out.append({"model": off["model"], "batch_size": off["batch_size"],
                        "mode": off["mode"], "switch": switch, "speedup": ratio.value,
                        "spread": ratio.iqr / 2, "verdict": _verdict(ratio.value, ratio.iqr / 2),
                        "with": {o: _on(off, o) for o in others}})
    return out


def _verdict(speedup: float, spread: float) -> str:
    if speedup - spread > 1:
        return "helps"
    if speedup + spread < 1:
        return "hurts"
    return "within noise"


def verdicts(doc: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Per (mode, switch), over every model and batch size: ``helps`` (it helped somewhere and
    hurt nowhere), ``hurts`` (the reverse), ``mixed`` or ``within noise``, with the geometric
    mean of its speedups and how many groups it helped and hurt."""
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for e in effects(doc):
        grouped.setdefault((e["mode"], e["switch"]), []).append(e)
    out = {}
    for key, found in grouped.items():
        helps = sum(e["verdict"] == "helps" for e in found)
        hurts = sum(e["verdict"] == "hurts" for e in found)
        verdict = ("mixed" if helps and hurts else "helps" if helps else "hurts" if hurts
                   else "within noise")
        gmean = math.exp(sum(math.log(e["speedup"]) for e in found) / len(found))
        out[key] = {"verdict": verdict, "helps": helps, "hurts": hurts, "groups": len(found),
                    "gmean": gmean}
    return out


def chosen(doc: dict[str, Any]) -> dict[str, backends.BackendSettings]:
    """The settings each mode of the document should run with, by its evidence: a switch is on
    where it helps, or where its verdict is mixed and it gains on the geometric mean; off where
    it hurts or stays within noise (off is torch's own default, and costs nothing to keep).
    TF32 that the grid did not turn (a bf16 run) stays as the grid held it."""
    by_mode: dict[str, dict[str, bool]] = {}
    for r in doc["rows"]:
        by_mode.setdefault(r["mode"], {s: _on(r, s) for s in SWITCHES})
    for (mode, switch), v in verdicts(doc).items():
        by_mode[mode][switch] = v["verdict"] == "helps" or (v["verdict"] == "mixed"
                                                            and v["gmean"] > 1)
    return {mode: backends.BackendSettings(
                matmul_precision="high" if s["tf32"] else "highest", cudnn_tf32=s["tf32"],
                cudnn_benchmark=s["cudnn_benchmark"])
            for mode, s in by_mode.items()}


def evidence(doc: dict[str, Any]) -> dict[str, Any]:
    """What a run applying ``chosen(doc)`` records in its provenance: the settings per mode and
    the run they were chosen from."""
    p = doc["provenance"]
    return {"from": {"kind": doc.get("kind"), "date": p.get("date"), "commit": p.get("commit"),
                     "device": p.get("device"), "torch": p.get("torch")},
            "modes": {mode: b.as_dict() for mode, b in chosen(doc).items()},
            "verdicts": {f"{mode} · {switch}": v["verdict"]
                         for (mode, switch), v in verdicts(doc).items()}}
