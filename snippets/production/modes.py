"""Every compile mode, with an empty and then a warm Inductor cache: the benchmark, run twice."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch

from snippets import production
from snippets.bench import MODES, BenchConfig
from snippets.bench.kinds import BENCH
from snippets.core import cli, config, process, results, runs
from snippets.core import models as models_
from snippets.production import kinds

KIND = kinds.MODES.name
ROOT = Path(__file__).resolve().parents[2]
COMPILED = MODES[1:]  # every mode but eager
# The warm run is there for its compile times; its latencies are not shown, so it times briefly.
WARM_ROUNDS = 3

DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"batch_sizes": (1, 32), "modes": COMPILED, "timeout_s": 1800.0},
    # On a CPU the modes differ little (no CUDA graphs, and max-autotune takes many minutes):
    # the default mode alone, to check the run end to end.
    "cpu": {"batch_sizes": (1,), "modes": ("default",), "timeout_s": 1800.0},
}


@dataclass(frozen=True, kw_only=True)
class ModesConfig:
    """The compile modes timed from an empty cache, per model and batch.

    Attributes:
        models: resnet50, transformer or pkg.module:factory, comma-separated
        modes: compile modes, comma-separated, from {choices}
    """
    models: tuple[str, ...] = config.option(("resnet50", "transformer"), parse=models_.spec)
    batch_sizes: tuple[int, ...] | None = config.option(None, positive=True)
    modes: tuple[str, ...] | None = config.option(None, choices=MODES[1:], what="mode",
                                                  flag="--compile-modes")
    device: str = "auto"
    rounds: int | None = None  # the empty-cache run's timing rounds; None: the benchmark's
    timeout_s: float | None = None  # per benchmark process

    def __post_init__(self) -> None:
        config.check(self)

    def resolve(self) -> ModesConfig:
        return config.resolve(self, DEFAULTS)

    def bench_config(self, model: str, batch_size: int, mode: str) -> BenchConfig:
        """The benchmark run behind one (model, batch size, mode), its per-device defaults
        filled: eager, the reference, and that mode. A user's model goes as its factory."""
        which: dict[str, Any] = {"models": (model,)}
        if model not in models_.BUILTIN:
            which = {"models": (), "factories": ((model, models_.load_factory(model)),)}
        return BenchConfig(**which, batch_sizes=(batch_size,), modes=("eager", mode),
                           device=self.device, rounds=self.rounds).resolve()

    def settings(self) -> dict[str, Any]:
        bench = self.bench_config(self.models[0], self.batch_sizes[0], self.modes[0]).settings()
        return {**bench, "models": list(self.models), "batch_sizes": list(self.batch_sizes),
                "modes": list(self.modes), "timeout_s": self.timeout_s,
                "processes": "empty, then warm cache",  # a pair per model, batch size and mode
                "warm_rounds_of_warm_run": WARM_ROUNDS}


def bench_argv(cfg: BenchConfig, output: Path) -> list[str]:
    """The benchmark's command line for a resolved BenchConfig, flag for flag: the built-in
    models by name, a user's by its spec (``--model``, which alone replaces the built-in ones)."""
    which = ["--models", ",".join(cfg.models)] if cfg.models else []
    which += [flag for name, _ in cfg.factories for flag in ("--model", name)]
    return [sys.executable, "-m", "snippets.bench", *which,
            "--batch-sizes", ",".join(map(str, cfg.batch_sizes)), "--modes",
            ",".join(cfg.modes), "--dtype", cfg.dtype, "--device", cfg.device,
            "--rounds", str(cfg.rounds), "--warm-rounds", str(cfg.warm_rounds),
            "--format", "json", "--output", str(output)]


def _bench(cfg: BenchConfig, cache: Path, output: Path, timeout: float) -> dict[str, Any]:
    env = process.child_env(TORCHINDUCTOR_CACHE_DIR=str(cache))
    # Triton's cache then lives in Inductor's folder (see startup._env), empty with it.
    env.pop("TRITON_CACHE_DIR", None)
    proc = subprocess.run(bench_argv(cfg, output), env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)
    if proc.returncode != 0 and not output.exists():
        last = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        if proc.returncode == cli.USAGE_EXIT:  # the benchmark refused the user's factory:
            raise models_.SpecError(last.partition(": error: ")[2] or last)  # the run's mistake
        raise RuntimeError(last[:300])
    return results.load(output, BENCH.name)  # an interrupted benchmark still left its rows


def _rows(model: str, bs: int, empty: dict[str, Any], warm: dict[str, Any] | None,
          date: str) -> list[dict[str, Any]]:
    later = {r["mode"]: r for r in (warm or {}).get("rows", [])}
    beside = next((r for r in empty["rows"] if r["mode"] == "eager"), {})
    out = []
    for row in empty["rows"]:
        again = later.get(row["mode"], {})
        out.append({"model": model, "batch_size": bs, "mode": row["mode"], "date": date,
                    "status": row["status"], "message": row["message"],
                    "compile_empty_s": row["compile_s"],
                    "compile_warm_s": again.get("compile_s"),
                    "latency_ms": row["latency_ms"], "speedup": row["speedup"],
                    # the eager median its speedup is over, on the row that the table shows
                    "eager_median_ms": (beside.get("latency_ms") or {}).get("median"),
                    "empty": row, "warm": again or None})
    return out


def _measure(cfg: ModesConfig, model: str, bs: int, mode: str, date: str,
             progress: Callable[[str], None]) -> list[dict[str, Any]]:
    """Eager's row and the mode's, from a pair of processes sharing one new cache folder."""
    bc = cfg.bench_config(model, bs, mode)
    with tempfile.TemporaryDirectory(prefix="snippets-modes-") as tmp:
        folder = Path(tmp)
        try:
            progress(f"{model} bs={bs} {mode}: empty cache")
            empty = _bench(bc, folder / "cache", folder / "empty.json", cfg.timeout_s)
            progress(f"{model} bs={bs} {mode}: warm cache")
            warm = _bench(replace(bc, rounds=WARM_ROUNDS, warm_rounds=0),
                          folder / "cache", folder / "warm.json", cfg.timeout_s)
        except (RuntimeError, OSError, subprocess.TimeoutExpired, results.ResultsError) as exc:
            return [{"model": model, "batch_size": bs, "mode": m, "date": date,
                     "status": "error", "message": production.fault(exc),
                     "compile_empty_s": None, "compile_warm_s": None,
                     "latency_ms": None, "speedup": None} for m in ("eager", mode)]
    return _rows(model, bs, empty, warm, date)


def run(cfg: ModesConfig, date: str, progress: Callable[[str], None] = lambda _: None):
    """Yield the rows of each (model, batch size): eager once, from the first mode's processes
    (each mode's speedup is over the eager it was timed beside), then every mode."""
    for model in cfg.models:
        for bs in cfg.batch_sizes:
            for i, mode in enumerate(cfg.modes):
                for row in _measure(cfg, model, bs, mode, date, progress):
                    if row["mode"] != "eager" or i == 0:
                        yield row


def document(cfg: ModesConfig, progress: Callable[[str], None] = lambda _: None,
             on_row: Callable[[dict[str, Any]], None] = lambda _: None, *,
             commit: str | None = None) -> dict[str, Any]:
    cfg = cfg.resolve()
    doc = results.new_document(
        KIND, results.provenance(torch.device(cfg.device), cfg.settings(), commit=commit))
    return runs.fill(doc, run(cfg, doc["provenance"]["date"], progress), on_row)


def row_key(row: dict[str, Any]) -> tuple:
    """A row measured again replaces the earlier one of its model, batch size and mode."""
    return (row["model"], row["batch_size"], row["mode"])
