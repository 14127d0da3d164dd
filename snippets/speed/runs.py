"""The speed command's three runs (``ladder``, ``settings``, ``freezing``): one frozen config,
the document each run writes, and how a later run joins an earlier file."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import torch

from snippets import bench
from snippets.core import backends, config, models, results
from snippets.core import roofline
from snippets.speed import freezing, ladder, settings


@dataclass(frozen=True)
class Runs:
    """Climb the speed ladder against the device's own ceilings, measure the backend settings per
    mode, or check the ways of asking for freezing.

    One field per run, its docstring the help of the run's switch (``SpeedConfig.run``).

    Attributes:
        ladder: eager, then one step at a time, each read against the matmul peak and copy bandwidth
            measured first; the fastest rung profiled
        settings: cudnn.benchmark off and on (and TF32, where the dtype is fp32) for each mode,
            timed together; a verdict per mode
        freezing: freezing asked for as a compile option alone, and with Inductor's switch on too,
            against none, timed together; on a GPU, what each CUDA-graph replay copies
    """

    ladder: bool = False
    settings: bool = False
    freezing: bool = False


RUNS = tuple(f.name for f in fields(Runs))
# A ladder is a benchmark run: its file (bench-ladder) is read like one.
LADDER_KIND = bench.kinds.BENCH.name

# The one table of per-device defaults; the command line's help is written from it. Rounds and
# sample length are the benchmark's; on a GPU 50 profiled calls span a few milliseconds at
# batch 1, enough for every kernel of a call to appear fifty times.
DEFAULTS: dict[str, dict[str, Any]] = {
    device: {**{k: bench.DEFAULTS[device][k] for k in (
        "batch_sizes", "dtype", "rounds", "warm_rounds", "sample_ms")}, **own}
    for device, own in (("cuda", {"modes": bench.FAST_MODES, "profile_calls": 50}),
                        ("cpu", {"modes": ("eager", "default"), "profile_calls": 3}))}


@dataclass(frozen=True, kw_only=True)
class SpeedConfig:
    """Everything one run needs; None means "the default for the device" (``DEFAULTS``).

    Attributes:
        dtype: the weights' and inputs' dtype
        modes: --settings: the modes whose settings are swept
        rungs: --ladder: the rungs to climb, from {choices}; eager is always climbed (default: all
            but coordinate-descent, max-autotune, graph-timed-autotune and eager-graphed, each asked
            for by name)
        profile_calls: --ladder: calls of the fastest rung profiled, 0 for none
        backends_from: --ladder: run each mode under the settings a --settings results file chose
            for it, and record that choice
    """

    run: str = config.option("ladder", choices=RUNS)  # set by the command's run switches
    models: tuple[str, ...] = models.names(("resnet50", "transformer"))
    batch_sizes: tuple[int, ...] | None = config.option(None, positive=True)
    dtype: str | None = config.option(None, choices=tuple(bench.DTYPES))
    device: str = "auto"
    rounds: int | None = config.option(None, positive=True)
    warm_rounds: int | None = config.option(None, positive=True, zero=True)
    sample_ms: float | None = None
    warmup: int = 3
    modes: tuple[str, ...] | None = config.option(None, choices=bench.MODES, what="mode")
    # None is every rung but those that tune kernels, asked for by name
    rungs: tuple[str, ...] | None = config.option(None, choices=ladder.KEYS, what="rung")
    profile_calls: int | None = config.option(None, positive=True, zero=True)
    # read by the command into mode_backends and backends_evidence (with_evidence)
    backends_from: Path | None = config.option(None, parse=Path)
    # ladder: each mode's backend settings, as chosen from a settings run (settings.chosen),
    # and what that run was (settings.evidence); empty: the benchmark's per-device settings
    mode_backends: tuple[tuple[str, backends.BackendSettings], ...] = ()
    backends_evidence: dict[str, Any] | None = field(default=None, compare=False)
    factories: tuple[tuple[str, models.Factory], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        config.check(self)
        if {"graph-timed-autotune", "max-autotune"} <= set(self.rungs or ()):
            # In one process the second rung could take the first's choices from autotuning's
            # cache instead of timing its candidates again.
            raise config.ConfigError("rungs", "climb graph-timed-autotune without max-autotune")

    def resolve(self) -> SpeedConfig:
        return config.resolve(self, DEFAULTS)

    def bench_config(self) -> bench.BenchConfig:
        """The benchmark's config for the harness this run shares with it."""
        modes = self.modes if self.run == "settings" else ("eager",)
        return bench.BenchConfig(
            models=self.models, factories=self.factories, batch_sizes=self.batch_sizes,
            modes=modes, dtype=self.dtype, device=self.device, rounds=self.rounds,
            warm_rounds=self.warm_rounds, sample_ms=self.sample_ms,
            warmup=self.warmup).resolve()

    def settings(self) -> dict[str, Any]:
        """What the results file adds to the benchmark's record of its settings."""
        out: dict[str, Any] = {"run": self.run, "ladder": self.run == "ladder"}
        if self.run == "settings":  # as swept: the benchmark's own config adds eager to its modes
            out["modes"] = list(self.modes or ())
        if self.run == "ladder":
            out.update(rungs=list(self.rungs) if self.rungs else None,
                       profile_calls=self.profile_calls,
                       mode_backends={m: b.as_dict() for m, b in self.mode_backends} or None,
                       backends_evidence=self.backends_evidence)
        return out


def _group(cfg: SpeedConfig) -> bench.Group:
    """The rows of one (model, batch size): the run's ladder, settings sweep or freezing check."""
    chosen = dict(cfg.mode_backends)
    bench_cfg = cfg.bench_config()

    def backends_for(mode: str | None) -> backends.BackendSettings:
        return chosen.get(mode or "eager", bench_cfg.backends)

    def group(b: bench.BenchConfig, name: str, factory: models.Factory, bs: int,
              peak: float | None, progress: Callable[[str], None]) -> Iterator[dict[str, Any]]:
        common = dict(device=torch.device(b.device), rounds=b.rounds, warm_rounds=b.warm_rounds,
                      sample_ms=b.sample_ms, warmup=b.warmup, tolerance=bench.TOLERANCE[b.dtype],
                      progress=lambda what: progress(f"{name} bs={bs}: {what}"))
        if cfg.run == "ladder":
            return ladder.climb(
                name, factory, bs, dtype=bench.DTYPES[b.dtype], peak_tflops=peak,
                autotune=bool(cfg.rungs and "max-autotune" in cfg.rungs), only=cfg.rungs,
                profile_calls=cfg.profile_calls, backends_for=backends_for if chosen else None,
                **common)
        if cfg.run == "freezing":
            return freezing.check(name, factory, bs, torch_dtype=bench.DTYPES[b.dtype], **common)
        return settings.sweep(name, factory, bs, dtype=b.dtype, torch_dtype=bench.DTYPES[b.dtype],
                              modes=cfg.modes, **common)

    return group


# What each run adds to the benchmark's document: a ladder is a benchmark file with ceilings.
DOCUMENT = {"ladder": {"ceilings": roofline.ceilings}, "freezing": {"kind": freezing.KIND},
            "settings": {"kind": settings.KIND}}


def document(cfg: SpeedConfig, progress: Callable[[str], None] = lambda _: None,
             on_row: Callable[[dict[str, Any]], None] = lambda _: None, *,
             commit: str | None = None) -> dict[str, Any]:
    """The results document of a run; an interrupted run keeps its finished rows."""
    cfg = cfg.resolve()
    return bench.document(cfg.bench_config(), progress, on_row, commit=commit, group=_group(cfg),
                          settings=cfg.settings(), **DOCUMENT[cfg.run])


def with_evidence(cfg: SpeedConfig, doc: dict[str, Any]) -> SpeedConfig:
    """``cfg`` running each mode under the settings a settings document chose for it."""
    results.validate(doc, kind=settings.KIND)
    return replace(cfg, mode_backends=tuple(settings.chosen(doc).items()),
                   backends_evidence=settings.evidence(doc))


# ---- several commands, one file ------------------------------------------------------------------

JOINED = ("dtype", "rounds", "warm_rounds", "sample_ms", "warmup", "run")


def row_key(row: dict[str, Any]) -> tuple:
    return row["model"], row["batch_size"], row["mode"], row.get("point")


def check_joinable(old: dict[str, Any], prov: dict[str, Any]) -> None:
    """Raise ResultsError, naming the difference, where a run of provenance ``prov`` cannot add
    its rows to the recorded ``old`` (``--append``)."""
    results.check_joinable(old, prov, JOINED)


def join(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``old`` with the rows ``new`` measured (``--append``, ``results.join``): a command given
    ``--rungs`` keeps its eager row and rung below as a block of its own; whole ladders replace
    theirs."""
    return results.join(old, new, row_key, measured=("ceilings", "peak_bf16_tflops"),
                        ran=("models", "batch_sizes", "rungs", "modes"))
