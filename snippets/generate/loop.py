"""``python -m snippets.generate.loop``: N tokens generated end to end, as a user's loop does,
beside the one step the ladder times, for bf16 and int8 weights, all in the same rounds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from snippets.core import machine, measure, recording, results, roofline, rows
from snippets.core import profile as profiler
from snippets.core.counters import cudagraph_skips, graphs_compiled
from snippets.generate import base_and_prompt, command, int4, int8, kinds, ladder, own_code, runs
from snippets.generate import tables, weight_bytes
from snippets.generate.decode_loop import generate, generate_naive, loop_bytes
from snippets.generate.loop_config import DEFAULTS, WAYS, LoopConfig
from snippets.generate import model as M
from snippets.generate.model import prefill

PROG = "python -m snippets.generate.loop"
KIND = kinds.LOOP.name


@dataclass
class Made:
    """One weights, ready to time: its model, its compiled step and prompt's forward, and the
    step's inputs at the position after the prompt."""

    model: M.Decoder
    step: Callable[..., torch.Tensor]
    first: Callable[..., torch.Tensor]
    token: torch.Tensor
    pos: torch.Tensor
    prefill_compile_s: float | None  # the compiled prompt's first call; None where eager


def weigh(name: str, base: M.Decoder) -> M.Decoder:
    """``base``'s weights as ``name`` holds them, on a sibling with its own cache."""
    m = M.sibling(base)
    if name in ("int8", "int8-head"):
        int8.quantize(m, keep=("output",) if name == "int8" else ())
    elif name in ("torchao", "torchao-unwrapped"):
        int8.torchao_int8(m, unwrap=name == "torchao-unwrapped")
    elif name == "int4":
        # groups of 128 as measured on the large sizes; the tiny decoder's 64 inputs take 32
        int4.quantize(m, group=min(128, m.shape.dim // 2))
    return m


def make(name: str, base: M.Decoder, rung: ladder.Rung, cfg: LoopConfig, prompt: torch.Tensor,
         device: torch.device) -> Made:
    """The weights ``name`` compiled as ``rung``, from copies of the steps' code of their own
    (``own_code``): each weights' compiled entries apart, so no call checks another's guards."""
    rung.check(device)
    m = weigh(name, base)
    m.set_gqa(rung.gqa)
    tag = name.replace("-", "_")
    step = ladder.step_of(rung, m, own_code(M.decode_step, tag))
    first = (torch.compile(own_code(prefill, tag), fullgraph=True, dynamic=False)
             if cfg.compile_prefill else prefill)
    token, seconds = measure.time_first_call(lambda: first(m, prompt), device)
    return Made(m, step, first, token, torch.tensor([cfg.prompt], device=device),
                seconds if cfg.compile_prefill else None)


def new_row(cfg: LoopConfig, weights: str, way: str) -> dict[str, Any]:
    return {"model": cfg.size, "batch_size": cfg.batch, "weights": weights, "way": way,
            "status": "ok", "message": "", "compile_s": None, "compiles": None,
            "latency_ms": None, "tokens_per_s": None, "bytes_per_step": None, "gbps": None,
            "of_copy_bw": None, "speedup": None, "tokens": [], "first_diff": None}


def first_call(way: str, made: Made, cfg: LoopConfig, prompt: torch.Tensor,
               device: torch.device, row: dict[str, Any]) -> Callable[[], Any]:
    """``way``'s first call, timed, with the graphs it compiled counted (the first way's
    compiles the step: its time is the compile); the call to time."""
    m, n = made.model, cfg.tokens
    call = {"step": lambda: made.step(m, made.token, made.pos),
            "loop": lambda: generate(m, prompt, n, made.step, made.first),
            "naive": lambda: generate_naive(m, prompt, n, made.step, made.first)}[way]
    before, skips = graphs_compiled(), cudagraph_skips()
    out, seconds = measure.time_first_call(call, device)
    row["compiles"] = graphs_compiled() - before
    row["compile_s"] = seconds if row["compiles"] else None
    # Inductor runs a graph without CUDA graphs where it cannot record one, and counts it
    # (torch/_inductor/cudagraph_utils.py): 0 says the step ran as one CUDA graph
    row["cudagraph_skips"] = cudagraph_skips() - skips
    if way == "step":
        row["bytes_per_step"] = weight_bytes.step_bytes(m, cfg.batch, cfg.prompt)
    else:
        row["prefill_compile_s"] = made.prefill_compile_s
        row["tokens"] = out.cpu().tolist()
        row["bytes_per_step"] = loop_bytes(m, cfg.batch, cfg.prompt, n) / n
    return call


def per_step(m: measure.Measurement, steps: int) -> measure.Measurement:
    """A loop's samples per step: a whole loop's time over the forwards it ran."""
    return measure.Measurement(tuple(s / steps for s in m.samples))


def read_rows(doc: dict[str, Any], timed: measure.Timed, cfg: LoopConfig,
              ceil: dict[str, Any]) -> None:
    """Every timed row's time per step, rate, share of the copy bandwidth and ratios: over the
    dense weights' row of its way, and (a loop) over its own step, all from the same rounds."""
    def per(weights: str, way: str) -> measure.Measurement | None:
        key = f"{weights}/{way}"
        if key not in timed.measurements:
            return None
        m = timed[key]
        return m if way == "step" else per_step(m, cfg.tokens)

    for row in doc["rows"]:
        w, way = row["weights"], row["way"]
        m = per(w, way)
        if m is None:
            continue
        dense = per("dense", way) if w != "dense" else None
        rows.finish(row, m, calls=timed.calls[f"{w}/{way}"], baseline=dense, rate=False)
        runs.read_rate(row, m, cfg.batch, ceil["copy_gbps"])
        step = per(w, "step")
        if way != "step" and step is not None:
            row["vs_step"] = measure.speedup(step, m).value  # below 1: the loop's cost
        if way == "loop" and f"{w}/prefill" in timed.measurements:
            row["prefill_ms"] = timed[f"{w}/prefill"].as_dict()
            row["prefill_share"] = timed[f"{w}/prefill"].median / (m.median * cfg.tokens)
        loop = per(w, "loop")
        if way == "naive" and loop is not None:
            row["vs_loop"] = measure.speedup(loop, m).value  # below 1: the trap's cost


def run(cfg: LoopConfig, *, commit: str | None = None,
        progress: Callable[[str], None] = lambda _: None,
        on_row: Callable[[dict[str, Any]], None] = lambda _: None) -> dict[str, Any]:
    """The results document of one run; ``on_row`` sees it after every row."""
    cfg = cfg.resolve()
    dev, at = torch.device(cfg.device), f"{cfg.size} bs={cfg.batch}"
    rung = next(r for r in ladder.ladder(dev.type) if r.name == cfg.rung)
    progress("ceilings")
    ceil = roofline.ceilings(dev)
    settings = {**cfg.settings(), "recipe": rung.recipe()}
    doc = results.new_document(KIND, results.provenance(dev, settings, commit=commit),
                               ceilings=ceil)
    made: dict[str, Made] = {}
    calls: dict[str, Callable[[], Any]] = {}
    with runs.run_settings(dev):
        base, prompt = base_and_prompt(cfg, cfg.batch)
        eager = M.generate(base, prompt, cfg.tokens).cpu().tolist()
        torch._dynamo.reset()  # nothing compiled before serves one of the weights
        seen = set(machine.tuned_configs())
        for name in cfg.weights:
            progress(f"{at}: {name}")
            try:
                made[name] = make(name, base, rung, cfg, prompt, dev)
            except Exception as exc:  # noqa: BLE001 (one weights' fault is its row)
                row = new_row(cfg, name, "all")
                row["status"], row["message"] = (
                    (rows.Status.UNSUPPORTED.value, str(exc))
                    if isinstance(exc, int8.Unsupported) else rows.fault(exc))
                doc["rows"].append(row)
                on_row(doc)
                if dev.type == "cuda":
                    torch.cuda.empty_cache()
                continue
            if "loop" in cfg.ways:  # the prompt's share of the loop, from the same rounds
                calls[f"{name}/prefill"] = lambda x=made[name]: x.first(x.model, prompt)
            failed = None  # a way that failed: the ways after it would compile it again
            for way in (w for w in WAYS if w in cfg.ways):  # the loop's tokens before naive's
                progress(f"{at}: {name} {way}")
                row = new_row(cfg, name, way)
                row["weight_bytes"] = weight_bytes.held_bytes(made[name].model)
                try:
                    if failed:
                        row["status"], row["message"] = failed
                    else:
                        calls[f"{name}/{way}"] = first_call(way, made[name], cfg, prompt, dev,
                                                            row)
                        row["message"] = "not timed yet"  # until the rounds below finish
                except Exception as exc:  # noqa: BLE001 (one way's fault is its row)
                    row["status"], row["message"] = rows.fault(exc)
                    failed = (row["status"], f"{way} failed")
                    if dev.type == "cuda":
                        torch.cuda.empty_cache()
                # The naive loop runs the same compiled step on the same inputs as the gpt-fast
                # loop: its tokens must be the loop's. In fp32 the dense weights' must be eager's.
                loop = next((r["tokens"] for r in doc["rows"] if (r["weights"], r["way"]) == (
                    name, "loop")), None)
                if way == "naive" and loop:
                    runs.tokens_checked(row, loop, exact=True)
                else:
                    runs.tokens_checked(row, eager, exact=cfg.dtype == "fp32" and name == "dense")
                doc["rows"].append(row)
                on_row(doc)
            # The block sizes autotuning chose at these weights' first calls: coordinate descent
            # times them on the spot, so two fresh processes may choose differently.
            tuned = machine.tuned_configs()
            doc.setdefault("tuned", {})[name] = {k: v for k, v in tuned.items() if k not in seen}
            seen.update(tuned)
        progress(f"{at}: timing")
        timed = runs.time_together(calls, dev, cfg, doc, lambda r: f"{r['weights']}/{r['way']}",
                                   warmup=1)
        if timed is not None:
            read_rows(doc, timed, cfg, ceil)
        on_row(doc)
        for name, x in made.items():
            step = next((r for r in doc["rows"] if (r["weights"], r["way"]) == (name, "step")
                         and rows.timed(r)), None)
            if step is None:
                continue
            call = calls[f"{name}/step"]
            step["host_us"] = rows.or_none(lambda c=call: profiler.host_us(c, dev,
                                                                           cfg.host_calls))
            if cfg.profile:
                progress(f"{at}: profiling {name}")
                step["profile"] = profiler.profile_or_error(
                    call, dev, cfg.profile_calls, lambda exc: rows.fault(exc)[1])
            on_row(doc)
    doc["complete"] = True
    return doc


TOOL = command.Tool(PROG, KIND, LoopConfig, DEFAULTS, run,
                    recording.Printer(markdown=tables.loop_table), output_required=True)
main, parser = TOOL.main, TOOL.parser


if __name__ == "__main__":
    raise SystemExit(main())
