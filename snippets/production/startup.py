"""Start-up paths, each timed in fresh processes: from process start to the first correct answer,
to steady state, and the steady per-call latency."""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from snippets import production
from snippets.core import backends, config, process, results, runs
from snippets.core import models as models_
from snippets.production import kinds
from snippets.production import paths

KIND = kinds.STARTUP.name
# Path id: what the child runs (its --path), the cache folder it uses, the path it needs first.
PLAN: dict[str, tuple[str, str, str | None]] = {
    "eager": ("eager", "eager", None),
    "compile-empty": ("compile", "local", None),
    "compile-warm": ("compile", "local", "compile-empty"),  # the same folder, now filled
    "artifacts": ("artifacts", "artifacts", "compile-empty"),  # an empty folder, filled from bytes
    "regional": ("regional", "regional", None),
    "aot-build": ("aot-build", "aot-build", None),
    "aot-load": ("aot-load", "aot-load", "aot-build"),
    # The same folder again, holding what the first load left there (Inductor's check of the
    # CPU's vector instructions, which loading a package runs): a restart on the same machine.
    "aot-load-warm": ("aot-load", "aot-load", "aot-load"),
    # An empty folder again, with that check answered from the CPU's own flags (ENV below).
    "aot-load-trusted": ("aot-load", "aot-trusted", "aot-build"),
    # A function compiled ahead of time in Python (torch.compile(...).aot_compile), saved to a
    # file; loaded on an empty folder (a new machine), then on the folder its build filled.
    "precompile-build": ("precompile-build", "precompile-build", None),
    "precompile-load": ("precompile-load", "precompile-load", "precompile-build"),
    "precompile-load-warm": ("precompile-load", "precompile-build", "precompile-build"),
}
PATHS = tuple(PLAN)
# What a path sets in its process's environment beside the cache folder. Inductor's check of
# the CPU compiles a test program per instruction set and loads each in a new Python process;
# with TORCHINDUCTOR_VEC_ISA_OK=1 it takes the instruction sets /proc/cpuinfo lists as usable
# (torch/_inductor/cpu_vec_isa.py, VecISA.__bool__). Loading a CUDA package needs the answer
# only to warn when the building machine differed, so a service that loads one can set it.
ENV: dict[str, dict[str, str]] = {"aot-load-trusted": {"TORCHINDUCTOR_VEC_ISA_OK": "1"}}

DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"batch_size": 1, "dtype": "bf16", "repetitions": 3, "calls": 20, "rounds": 20,
             "sample_ms": 20.0, "timeout_s": 900.0},
    # A 2-core machine: every compile takes tens of seconds (ResNet-50's a minute or more), a
    # ResNet-50 call a good fraction of one, so one repetition, few calls, one call per sample;
    # record more repetitions with --repetitions (or --append several runs).
    "cpu": {"batch_size": 1, "dtype": "fp32", "repetitions": 1, "calls": 5, "rounds": 3,
            "sample_ms": 1.0, "timeout_s": 900.0},
}


@dataclass(frozen=True, kw_only=True)
class StartupConfig:
    """One start-up run; None means "the default for the device" (``DEFAULTS``).

    Attributes:
        models: resnet50, transformer or pkg.module:factory, comma-separated
        paths: from {choices}, or all (default: all)
        repetitions: fresh processes per path
        calls: calls timed one by one from the first
        rounds: steady-state rounds after the calls
    """

    models: tuple[str, ...] = config.option(("resnet50", "transformer"), parse=models_.spec)
    paths: tuple[str, ...] = config.option(PATHS, choices=PATHS, what="path", every=True)
    device: str = "auto"
    batch_size: int | None = None
    dtype: str | None = None
    repetitions: int | None = config.option(None, positive=True)
    calls: int | None = config.option(None, positive=True)
    rounds: int | None = config.option(None, positive=True)
    sample_ms: float | None = None
    timeout_s: float | None = None  # per child process

    def __post_init__(self) -> None:
        config.check(self)

    def resolve(self) -> StartupConfig:
        return config.resolve(self, DEFAULTS)

    def settings(self) -> dict[str, Any]:
        b = backends.DEFAULT[config.device_type(self.device)]
        return {"models": list(self.models), "paths": list(self.paths),
                "batch_size": self.batch_size, "dtype": self.dtype,
                "repetitions": self.repetitions, "calls": self.calls, "rounds": self.rounds,
                "sample_ms": self.sample_ms, "timeout_s": self.timeout_s, "mode": "default",
                "backends": b.as_dict(), "tf32": b.tf32, "grad": False,
                "steady_factor": production.STEADY_FACTOR,
                # whether each regional block had its own recompile budget (torch 2.14 on)
                "regional_isolate_recompiles": bool(paths.ISOLATED)}


def _env(cache: Path, path: str) -> dict[str, str]:
    env = process.child_env(TORCHINDUCTOR_CACHE_DIR=str(cache))
    for name in {n for e in ENV.values() for n in e}:  # a caller's own setting: only where asked
        env.pop(name, None)
    env.update(ENV.get(path, {}))
    # Without TRITON_CACHE_DIR, Triton's cache lives inside Inductor's folder
    # (torch/_inductor/runtime/cache_dir_utils.py, triton_cache_dir), so an empty folder is
    # empty for both; a user's own setting would share one Triton cache across every path.
    env.pop("TRITON_CACHE_DIR", None)
    return env


def _child(cfg: StartupConfig, model: str, path: str, tmp: Path) -> dict[str, Any]:
    """One path's record from a fresh process."""
    what, cache, _ = PLAN[path]
    argv = [sys.executable, "-m", "snippets.production.child", "--path", what, "--model", model,
            "--batch-size", str(cfg.batch_size), "--device", cfg.device, "--dtype", cfg.dtype,
            "--calls", str(cfg.calls), "--rounds", str(cfg.rounds),
            "--sample-ms", str(cfg.sample_ms)]
    if path == "compile-empty" and "artifacts" in cfg.paths:
        argv += ["--save-artifacts", str(tmp / "artifacts.bin")]
    if what == "artifacts":
        argv += ["--artifacts", str(tmp / "artifacts.bin")]
    if what.startswith("aot"):
        argv += ["--package", str(tmp / "model.pt2")]
    if what.startswith("precompile"):
        argv += ["--package", str(tmp / "call.precompiled")]
    started = time.time()
    try:
        rec = process.run_child([*argv, "--started-at", repr(started)],
                                env=_env(tmp / cache, path), timeout_s=cfg.timeout_s)
    except process.Refused as exc:  # the child refused the user's factory: the run's
        raise models_.SpecError(str(exc)) from None  # mistake, not this path's
    return {**rec, "wall_s": time.time() - started}


def _row(model: str, path: str, rep: int, date: str, **fields: Any) -> dict[str, Any]:
    row = {"model": model, "path": path, "rep": rep, "date": date, "status": "ok", "message": "",
           "import_s": None, "ready_s": None, "first_s": None, "steady_s": None, "build_s": None,
           "latency_ms": None, "rel_err": None, "wall_s": None}
    row.update(fields)
    return row


def run(cfg: StartupConfig, date: str,
        progress: Callable[[str], None] = lambda _: None):
    """Yield a row per (repetition, model, path), paths in order within a repetition."""
    for rep in range(cfg.repetitions):
        for model in cfg.models:
            done: dict[str, str] = {}
            with tempfile.TemporaryDirectory(prefix="snippets-startup-") as tmp:
                for path in cfg.paths:
                    progress(f"{model}, repetition {rep + 1}/{cfg.repetitions}: {path}")
                    need = PLAN[path][2]
                    why = paths.missing(PLAN[path][0])
                    if why:
                        rec = {"status": "unsupported", "message": why}
                    elif need and done.get(need) not in ("ok", "mismatch"):
                        rec = {"status": "error", "message": f"{need} did not run"}
                    else:
                        rec = _child(cfg, model, path, Path(tmp))
                    done[path] = rec["status"]
                    yield _row(model, path, rep, date, batch_size=cfg.batch_size, **rec)


def document(cfg: StartupConfig, progress: Callable[[str], None] = lambda _: None,
             on_row: Callable[[dict[str, Any]], None] = lambda _: None, *,
             commit: str | None = None) -> dict[str, Any]:
    """The results document of a start-up run; ``on_row`` sees it after every row."""
    cfg = cfg.resolve()
    device = torch.device(cfg.device)
    doc = results.new_document(KIND, results.provenance(device, cfg.settings(), commit=commit))
    return runs.fill(doc, run(cfg, doc["provenance"]["date"], progress), on_row)


def row_key(row: dict[str, Any]) -> tuple:
    """Rows of different runs never replace each other: each is one more repetition."""
    return (row["date"], row["model"], row["path"], row["rep"])
