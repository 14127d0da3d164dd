"""The model zoo: the benchmark's run over ``catalog``'s real architectures, family by family,
each (model, batch size) a group whose fault is its own rows."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from snippets import bench
from snippets.bench.rows import new_row
from snippets.core import config, models, results, rows
from snippets.zoo import catalog, kinds

KIND = kinds.ZOO.name
NAMES = tuple(e.name for e in catalog.ZOO)
# The whole catalog on CUDA in bf16 at batch 1 and 32; on a CPU the CPU set, fp32, batch 1, each
# round a second or more per model on two cores.
DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"models": NAMES, "batch_sizes": (1, 32), "modes": bench.FAST_MODES,
             "dtype": "bf16", "rounds": 30, "warm_rounds": 3, "sample_ms": 20.0},
    "cpu": {"models": tuple(e.name for e in catalog.ZOO if e.cpu), "batch_sizes": (1,),
            "modes": ("eager", "default"), "dtype": "fp32", "rounds": 5, "warm_rounds": 1,
            "sample_ms": 100.0},
}


@dataclass(frozen=True, kw_only=True)
class ZooConfig:
    """Eager against torch.compile on real architectures.

    One zoo run; None means "the default for the device" (``DEFAULTS``).

    Attributes:
        models: comma-separated zoo models, or all (default: every model on CUDA, the CPU set on a
            CPU)
        families: keep only the models of these families
        modes: comma-separated from {choices}, or all; eager is always run: speedups are against it
        dtype: the weights' and floating-point inputs' dtype (token ids stay integers)
    """

    models: tuple[str, ...] | None = config.option(None, choices=NAMES, what="model", every=True)
    families: tuple[str, ...] | None = config.option(None, choices=catalog.FAMILIES,
                                                     what="family")
    batch_sizes: tuple[int, ...] | None = config.option(None, positive=True)
    modes: tuple[str, ...] | None = config.option(None, choices=bench.VARIANTS, what="mode",
                                                  every=True)
    dtype: str | None = config.option(None, choices=tuple(bench.DTYPES))
    device: str = "auto"
    rounds: int | None = config.option(None, positive=True)
    warm_rounds: int | None = config.option(None, positive=True, zero=True)
    sample_ms: float | None = None  # how long one sample lasts

    def __post_init__(self) -> None:
        config.check(self)

    def resolve(self) -> ZooConfig:
        return config.resolve(self, DEFAULTS)

    def entries(self) -> tuple[catalog.Entry, ...]:
        """The catalog's entries this run measures, in the catalog's order."""
        cfg = self.resolve()
        return tuple(e for e in catalog.ZOO if e.name in cfg.models
                     and (cfg.families is None or e.family in cfg.families))

    def bench(self) -> bench.BenchConfig:
        """The benchmark's config that measures these entries."""
        cfg = self.resolve()
        return bench.BenchConfig(
            models=(), factories=tuple((e.name, e.build) for e in cfg.entries()),
            batch_sizes=cfg.batch_sizes, modes=cfg.modes, dtype=cfg.dtype, device=cfg.device,
            rounds=cfg.rounds, warm_rounds=cfg.warm_rounds, sample_ms=cfg.sample_ms,
            # a zoo row's compile time is the one a new machine pays: each mode with an empty cache
            cold_compile=True)


def group(about: dict[str, dict[str, str]], cfg: bench.BenchConfig, name: str,
          factory: models.Factory, bs: int, peak: float | None,
          progress: Callable[[str], None]) -> Iterator[dict[str, Any]]:
    """The benchmark's group, each row with its model's family, library and input; a model that
    does not build (a config this library version lacks) is its own rows, not the run's end."""
    entry = about[name]
    try:
        for row in bench.measure_group(cfg, name, factory, bs, peak, progress):
            yield {**row, **entry}
    except models.SpecError as exc:
        status, message = rows.fault(exc)
        for mode in cfg.modes:
            yield new_row(name, bs, mode, status=status, message=message, **entry)


def document(cfg: ZooConfig, progress: Callable[[str], None] = lambda _: None,
             on_row: Callable[[dict[str, Any]], None] = lambda _: None, *,
             commit: str | None = None) -> dict[str, Any]:
    """The zoo's results document: the benchmark's rows for each entry."""
    about = {e.name: {"family": e.family, "library": e.library, "input": e.input}
             for e in cfg.entries()}
    return bench.document(cfg.bench(), progress, on_row, commit=commit, kind=KIND,
                          group=functools.partial(group, about))


# ---- one results file from several commands (the whole zoo takes longer than one command) ----

# What must agree for rows of two runs to stand in one table.
JOINED_SETTINGS = ("dtype", "rounds", "warm_rounds", "sample_ms", "warmup", "backends",
                   "cold_compile")


def check_joinable(old: dict[str, Any], prov: dict[str, Any]) -> None:
    """Raise ResultsError if a run of provenance ``prov`` cannot ``--append`` to ``old``."""
    results.check_joinable(old, prov, JOINED_SETTINGS)


def join(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``old`` with ``new``'s rows added by the one rule of ``--append`` (``results.join``)."""
    doc = results.join(old, new, lambda r: (r["model"], r["batch_size"], r["mode"]),
                       measured=("peak_bf16_tflops",),
                       ran=("models", "batch_sizes", "modes", "inductor_cache"))
    # A command stopped at its time limit leaves its part unfinished, but its rows are whole:
    # once later commands have measured every model, batch and mode the file asks for, the
    # file is complete.
    s = doc["provenance"]["settings"]
    asked = {(m, b, mode) for m in s["models"] for b in s["batch_sizes"] for mode in s["modes"]}
    have = {(r["model"], r["batch_size"], r["mode"]) for r in doc["rows"]}
    return {**doc, "complete": doc["complete"] or asked <= have}
