"""The debugging toolbox: what to switch on when torch.compile surprises you, each shown on one
small model from this package and produced by running it."""

from __future__ import annotations

import atexit
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import torch
import torch._inductor.config

from snippets.core import torch_logs


# --8<-- [start:model]
def small_model():
    """Two linear layers around a ReLU: compiles in seconds on any CPU."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).eval()
# --8<-- [end:model]


# --8<-- [start:demos]
def demo_shapes() -> None:
    """Dynamo only, two batch sizes: the second call fails a guard."""
    import torch

    from snippets.debug import small_model

    compiled = torch.compile(small_model(), backend="eager")
    with torch.no_grad():
        for batch in (4, 8):
            compiled(torch.randn(batch, 16))


def demo_compile() -> None:
    """One compile with Inductor, as a first try at torch.compile does it."""
    import torch

    from snippets.debug import small_model

    compiled = torch.compile(small_model())
    with torch.no_grad():
        compiled(torch.randn(4, 16))
# --8<-- [end:demos]


DEMOS = {"shapes": torch_logs.call(demo_shapes), "compile": torch_logs.call(demo_compile)}
# What each log shows of its demo: the lines that answer its question, not its whole dump.
LOGS = {
    # The guards on the input tensor (its size, dtype, device), and the one that replaced them
    # once the batch went dynamic.
    "guards": ("shapes", r"TENSOR_MATCH: check_tensor\(L\['args'\]|LAMBDA_GUARD: .*L\['args'\]"),
    # Where Dynamo decided a size is dynamic, and the symbol it gave it.
    "dynamic": ("shapes", r"marking .* as dynamic|create_symbol|create_env"),
    # The generated code: the C++ kernel Inductor fused, and the Python that calls it (from the
    # kernel on; the imports and helpers before it are the same in every module).
    "output_code": ("compile", r"^(?!No CUDA runtime)"),
}
STARTS = {"output_code": r"= async_compile\."}


def command(logs: str) -> str:
    return torch_logs.command(logs, DEMOS[LOGS[logs][0]])


@functools.lru_cache(maxsize=4)
def _run_demo(demo: str) -> tuple[str, str | None]:
    """One fresh Python per demo, with every log of that demo on at once (and, for the compile
    demo, TORCH_TRACE into a folder): each page section then filters what it shows. Starting
    Python and torch costs seconds, so the site build pays it twice, not five times. Returns
    the log and the trace folder (kept until the process ends) or None."""
    names = ",".join(name for name, (d, _) in LOGS.items() if d == demo)
    env, trace = {}, None
    if demo == "compile":
        trace = tempfile.mkdtemp(prefix="torch-trace-")
        atexit.register(shutil.rmtree, trace, ignore_errors=True)
        env = {"TORCH_TRACE": trace, **NO_CACHES}
    return torch_logs.capture(names, DEMOS[demo], keep=None, max_lines=100_000, env=env), trace


def log(logs: str) -> str:
    """What ``TORCH_LOGS=<logs>`` prints for its demo, cleaned for a page."""
    demo, keep = LOGS[logs]
    lines = [ln for ln in _run_demo(demo)[0].splitlines() if re.search(keep, ln)]
    if logs in STARTS:
        lines = lines[next((i for i, ln in enumerate(lines) if re.search(STARTS[logs], ln)), 0):]
    return "\n".join(lines[:60] + ([f"... ({len(lines) - 60} more lines)"] if len(lines) > 60
                                   else []))


# ---- TORCH_TRACE and tlparse --------------------------------------------------------------------

# With Inductor's caches off, the compile demo compiles in full wherever it runs: a warm cache
# would turn the trace (and the output code log) into a story of cache hits that differs from
# one machine to the next.
NO_CACHES = {"TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"}
# tlparse reads one log file, and the folder holds one per process that compiled: the newest is
# the run just made. (tlparse's --latest wants a folder of folders, not this one.)
TRACE_COMMAND = (f'TORCH_TRACE=/tmp/trace TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 \\\n'
                 f'  python -c "{DEMOS["compile"]}"\n'
                 'tlparse "$(ls -t /tmp/trace/*.log | head -n 1)" -o tl_out --no-browser')


def trace_report() -> dict[str, Any]:
    """Run the compile demo under ``TORCH_TRACE``, count the trace's records by kind, and list
    the files ``tlparse`` makes of it (None where tlparse is not installed)."""
    trace = Path(_run_demo("compile")[1])
    logs = sorted(trace.glob("*.log"), key=lambda p: p.stat().st_mtime, reverse=True)  # newest
    kinds: Counter[str] = Counter()
    for line in logs[0].read_text().splitlines() if logs else []:
        record = _record(line)
        kinds.update(k for k in record if k not in _CONTEXT)
    files = None
    tlparse = tlparse_command()
    if tlparse and logs:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "tl_out"
            # As TRACE_COMMAND runs it: the newest log of the folder.
            subprocess.run([tlparse, str(logs[0]), "-o", str(out), "--no-browser"],
                           capture_output=True, timeout=120, check=True)
            files = sorted(_generic(p.relative_to(out).as_posix()) for p in out.rglob("*")
                           if p.is_file() and "payloads" not in p.parts)
    return {"records": dict(kinds.most_common()), "tlparse_files": files}


def tlparse_command() -> str | None:
    """tlparse on the PATH, or beside this Python (a virtual environment not activated)."""
    beside = Path(sys.executable).parent / "tlparse"
    return shutil.which("tlparse") or (str(beside) if beside.is_file() else None)


# Fields every trace record carries to say where it came from; the others name its kind.
_CONTEXT = {"frame_id", "frame_compile_id", "attempt", "has_payload", "stack", "rank",
            "compiled_autograd_id"}


def _record(line: str) -> dict[str, Any]:
    """The JSON object of one trace line (after the glog prefix), or {} for a payload line
    (those start with a tab and hold a record's content: a graph, code, a JSON blob)."""
    start = line.find("{")
    if start < 0 or line.startswith("\t"):
        return {}
    try:
        record = json.loads(line[start:])
    except json.JSONDecodeError:
        return {}
    return record if isinstance(record, dict) else {}


# ---- torch.profiler ----------------------------------------------------------------------------

# --8<-- [start:profile]
def profile_compiled():
    import torch._inductor.config  # binds torch, with Inductor's settings

    from snippets.debug import small_model

    # On a CPU, Inductor's C++ kernels are invisible to the profiler unless
    # it is asked to name them (a GPU profile lists Triton kernels anyway).
    with torch._inductor.config.patch({"cpp.enable_kernel_profile": True}):
        compiled = torch.compile(small_model())
        x = torch.randn(4, 16)
        with torch.no_grad():
            compiled(x)  # compile outside the profile: only steady calls in it
            cpu = [torch.profiler.ProfilerActivity.CPU]
            with torch.profiler.profile(activities=cpu) as prof:
                for _ in range(3):
                    compiled(x)
    return prof
# --8<-- [end:profile]


def profile_events() -> list[dict[str, Any]]:
    """The events of three steady calls, by name with their count: which regions and kernels
    ran. Times are left out: this page shows what to look for, not a measurement."""
    # Kineto's start/stop lines on stderr, in a build's log (core.profile says why this works)
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")
    prof = profile_compiled()
    torch._dynamo.reset()
    names = Counter(e.name for e in prof.events())
    return [{"name": _generic(n), "count": c} for n, c in names.most_common()]


def _generic(name: str) -> str:
    """A kernel's name without its hash, so the page does not change with every build."""
    return re.sub(r"\b[0-9a-z]{32,}\b|(?<=CompiledFxGraph )None\b", "<hash>", name)


# ---- the graph-break registry --------------------------------------------------------------------

def registry_path() -> Path:
    return Path(torch._dynamo.__file__).parent / "graph_break_registry.json"


def registry() -> dict[str, dict[str, Any]]:
    """Dynamo's registry of graph breaks, by id (``GB0000``...), as the installed torch has it;
    empty for a torch that ships no registry file."""
    path = registry_path()
    if not path.is_file():
        return {}
    return {gb: entries[0] for gb, entries in json.loads(path.read_text()).items() if entries}


def registry_for(reason: str) -> tuple[str, dict[str, Any]] | None:
    """The registry entry whose type (``Gb_type``) is this break's kind, as ``explain`` gives it."""
    for gb, entry in registry().items():
        if entry.get("Gb_type") and reason.startswith(entry["Gb_type"]):
            return gb, entry
    return None


def registry_rows() -> list[dict[str, Any]]:
    """Each broken example of the graph-breaks page, the registry entry of every break it hits,
    and what the registry says of it (its templates, placeholders and all)."""
    from snippets.explain import breaks, explain_quietly

    rows = []
    for cause in breaks.CAUSES:
        variant = cause.broken
        exp = explain_quietly(variant.module().eval(), *variant.args(breaks.example_input()))
        for kind, reason in dict.fromkeys((r.kind, r.reason) for r in exp.break_reasons):
            gb, entry = registry_for(kind) or ("–", {})
            rows.append({"example": f"{cause.title}: {variant.name}", "reason": reason,
                         "id": gb, "explanation": entry.get("Explanation", reason),
                         "hints": entry.get("Hints", [])})
    return rows
