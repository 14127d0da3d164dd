"""CUDA-graph hazards, as code that goes wrong and its fix (a CUDA device only)."""

from __future__ import annotations

import enum
import functools
import gc
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch import nn

from snippets import production
from snippets.core import backends, process, results, torch_logs
from snippets.production import kinds

KIND = kinds.HAZARDS.name


class Hazard(str, enum.Enum):
    """What a row of the file tried: the key its findings are read by (the values are the
    file's own)."""

    OVERWRITTEN = "output read after the next replay"
    SKIPPED = "graph skipped"
    MEMORY = "memory held between calls"


class Outcome(str, enum.Enum):
    """What happened to one variant of a hazard."""

    CORRECT = "correct"
    WRONG = "wrong values"
    ERROR = "error"
    SKIPPED = "skipped"
    NOT_SKIPPED = "not skipped"
    MEASURED = "measured"


ROOT = Path(__file__).resolve().parents[2]
# The guide's CUDA settings, TF32 among them, as every other CUDA run uses; applied in this
# process and in each child. Under torch's own "highest", Inductor warns about the fp32 model's
# matrix products, which is an error where warnings are (the test suite).
SWITCHES = backends.DEFAULT["cuda"]


def _model(device: torch.device) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(256, 256), nn.GELU(), nn.Linear(256, 256)).to(device).eval()


# --8<-- [start:overwritten]
def as_written(compiled, x1, x2):
    a = compiled(x1)
    b = compiled(x2)  # the replay writes b where a lives
    return a, b


def with_clone(compiled, x1, x2):
    a = compiled(x1).clone()  # a copy the graph does not own
    b = compiled(x2)
    return a, b


def with_step_marks(compiled, x1, x2):
    import torch

    # What torch's error message advises: a new step before each invocation.
    torch.compiler.cudagraph_mark_step_begin()
    a = compiled(x1)
    torch.compiler.cudagraph_mark_step_begin()
    b = compiled(x2)
    return a, b
# --8<-- [end:overwritten]


STEP_MARKS = "cudagraph_mark_step_begin()"  # the variant that marks each step
VARIANTS = {"as written": as_written, ".clone()": with_clone, STEP_MARKS: with_step_marks}


@SWITCHES.apply()
def overwritten(device: torch.device) -> list[dict[str, Any]]:
    """Read the first output after the second call, for each variant; compare with eager."""
    rows = []
    with torch.no_grad():
        model = _model(device)
        x1, x2 = (torch.randn(8, 256, device=device) for _ in range(2))
        want = model(x1).clone()
        for name, fn in VARIANTS.items():
            torch._dynamo.reset()
            compiled = torch.compile(model, mode="reduce-overhead")
            outcome, message = Outcome.CORRECT, ""
            try:
                for _ in range(3):  # the first calls warm up and record; then it replays
                    a, _b = fn(compiled, x1, x2)
                    got = a.clone()
                torch.cuda.synchronize(device)
                if not torch.allclose(got, want, rtol=1e-2, atol=1e-2):
                    outcome, message = Outcome.WRONG, "overwritten by the next replay"
            except Exception as exc:
                outcome, message = Outcome.ERROR, torch_logs.clean_path(production.fault(exc))
            rows.append({"hazard": Hazard.OVERWRITTEN.value, "variant": name,
                         "outcome": outcome.value, "message": message})
    torch._dynamo.reset()
    return rows


# --8<-- [start:skips]
def mutates_input(x):
    x.add_(1)  # an input written in place
    return x * 2


def uses_cpu_tensor(x, scale):
    return x * scale.to(x.device)  # scale arrives as a CPU tensor


def any_length(x):  # compiled with dynamic=True, called at several lengths
    return (x @ x.transpose(-1, -2)).softmax(dim=-1)
# --8<-- [end:skips]


@SWITCHES.apply()
def skip_demo(case: str) -> None:
    """One skip case under reduce-overhead, in a child with ``SKIP_LOGS`` on; its last stderr
    line says whether the last output matched eager's (a replay must answer its own inputs)."""
    dev = torch.device("cuda")
    x = torch.randn(16, 64, device=dev)
    if case == "input mutation":
        fn, dynamic = mutates_input, False
        calls = [(x + k,) for k in range(3)]
    elif case == "CPU tensor":
        fn, dynamic = uses_cpu_tensor, False
        # A vector, not a 0-d scalar: Inductor may read a 0-d CPU tensor as a plain number.
        # A new value each call: a replay that kept the first one would answer wrongly.
        calls = [(x, torch.full((64,), float(k))) for k in (2, 3, 4)]
    else:
        fn, dynamic = any_length, True
        calls = [(torch.randn(n, 64, device=dev),) for n in (16, 24, 40)]
    compiled = torch.compile(fn, mode="reduce-overhead", dynamic=dynamic)
    for args in calls:
        got = compiled(*(a.clone() for a in args)).clone()
    want = fn(*(a.clone() for a in calls[-1]))
    torch.cuda.synchronize()
    same = torch.allclose(got, want, rtol=1e-3, atol=1e-3)
    count = skip_count()
    print(f"{COUNT_LINE}{'none' if count is None else count}", file=sys.stderr)
    print("outputs " + ("match eager" if same else "differ from eager"), file=sys.stderr)


SKIPS = ("input mutation", "CPU tensor", "dynamic shape")
# The logs a skip's reason goes to: "cudagraphs" in torch 2.14
# (log_cudagraph_skip_and_bump_counter in torch/_inductor/cudagraph_utils.py), "perf_hints" in
# the releases before (the 2.11 GPU run found it there). Both are asked for.
SKIP_LOGS = "perf_hints,cudagraphs"
COUNT_LINE = "cudagraph_skips "  # the child's line with the counter's value, or "none"


def skip_count() -> int | None:
    """``counters["inductor"]["cudagraph_skips"]``, or None where torch does not count skips."""
    from torch._dynamo.utils import counters
    from torch._inductor import cudagraph_utils
    if not hasattr(cudagraph_utils, "log_cudagraph_skip_and_bump_counter"):
        return None
    return int(counters["inductor"]["cudagraph_skips"])


def skip_outcome(lines: list[str]) -> tuple[Outcome, str, str]:
    """(outcome, logged reason, outputs' verdict) of a skip case, from the child's lines."""
    verdict = next((ln for ln in lines if ln.startswith("outputs ")), "")
    counted = next((ln[len(COUNT_LINE):] for ln in lines if ln.startswith(COUNT_LINE)), "none")
    reasons = [ln for ln in lines if not ln.startswith(("outputs ", COUNT_LINE))]
    reason = next((ln for ln in reasons if "skipping cudagraphs" in ln.lower()),
                  reasons[0] if reasons else "")
    if not verdict:
        return Outcome.ERROR, reason, verdict
    if "differ" in verdict:
        return Outcome.WRONG, reason, verdict
    skipped = (int(counted) > 0 if counted.isdigit()
               else "skipping cudagraphs" in reason.lower())
    return (Outcome.SKIPPED if skipped else Outcome.NOT_SKIPPED), reason, verdict


def skipped(case: str) -> dict[str, Any]:
    log = torch_logs.capture(SKIP_LOGS, torch_logs.call(skip_demo, case),
                             keep=r"(?i)skipping cudagraphs|cudagraph|error|^outputs ")
    outcome, reason, verdict = skip_outcome(log.splitlines())
    message = reason or ("no skip logged" if verdict else
                         "the case did not finish")
    return {"hazard": Hazard.SKIPPED.value, "variant": case, "outcome": outcome.value,
            "message": f"{message}; {verdict}" if verdict else message}


@SWITCHES.apply()
def held_in_this_process(mode: str) -> dict[str, float]:
    """MB a compiled transformer keeps reserved between calls, in this fresh process: the free
    cache is emptied before and after, so what remains cannot be given back (for
    reduce-overhead, the CUDA-graph pool)."""
    dev = torch.device("cuda")
    torch.manual_seed(0)
    with torch.no_grad():
        model = nn.TransformerEncoder(nn.TransformerEncoderLayer(
            512, 8, 2048, batch_first=True), 6, enable_nested_tensor=False)
        model = model.to(dev, torch.bfloat16).eval()
        x = torch.randn(32, 128, 512, device=dev, dtype=torch.bfloat16)
        torch.cuda.synchronize(dev)
        torch.cuda.empty_cache()
        before = torch.cuda.memory_reserved(dev), torch.cuda.memory_allocated(dev)
        compiled = torch.compile(model, mode=mode)
        for _ in range(3):
            out = compiled(x)
        del out
        torch.cuda.synchronize(dev)
        gc.collect()
        torch.cuda.empty_cache()
        after = torch.cuda.memory_reserved(dev), torch.cuda.memory_allocated(dev)
    return {"held_mb": (after[0] - before[0]) / 2**20,
            "allocated_mb": (after[1] - before[1]) / 2**20}


def _held_mb(mode: str) -> dict[str, Any]:
    # A fresh process per mode: in one process, what an earlier compile left cached (kernels,
    # workspaces, a graph pool) would be counted against the next mode or hidden from it.
    proc = subprocess.run([sys.executable, "-m", "snippets.production.hazards", mode], cwd=ROOT,
                          env=process.child_env(), capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        raise RuntimeError(last[:300])
    held = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"hazard": Hazard.MEMORY.value, "variant": mode, "outcome": Outcome.MEASURED.value,
            "message": "transformer, batch 32, bf16",
            **held}


def document(device: str = "cuda", *, commit: str | None = None,
             on_row: Callable[[dict[str, Any]], None] = lambda _: None,
             progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    dev = torch.device(device)
    if dev.type != "cuda":
        raise ValueError("hazards need a CUDA device")
    settings = {"modes": ["reduce-overhead"], "logs": SKIP_LOGS, "dtype": "fp32, bf16",
                # how a skip was told: torch's counter where it has one, else the log
                "skip_detection": "log" if skip_count() is None else "counter",
                "backends": SWITCHES.as_dict(), "tf32": SWITCHES.tf32}
    doc = results.new_document(KIND, results.provenance(dev, settings, commit=commit))
    steps: list[tuple[str, Callable[[], list[dict[str, Any]]]]] = [
        ("outputs overwritten", lambda: overwritten(dev)),
        *((f"skip: {c}", functools.partial(lambda c: [skipped(c)], c)) for c in SKIPS),
        ("pool memory", lambda: [_held_mb(m) for m in ("default", "reduce-overhead")]),
    ]
    for name, step in steps:
        progress(f"hazards: {name}")
        try:
            rows = step()
        except Exception as exc:  # one case's fault is its row's; the run goes on
            rows = [{"hazard": name, "variant": "", "outcome": Outcome.ERROR.value,
                     "message": production.fault(exc)}]
        doc["rows"] += [{**r, "date": doc["provenance"]["date"]} for r in rows]
        on_row(doc)
    doc["complete"] = True
    return doc


if __name__ == "__main__":  # a child of ``_held_mb``: one mode's figures, as JSON
    print(json.dumps(held_in_this_process(sys.argv[1])))
