"""Training: a realistic step, eager against compiled, timed, and checked to learn the same."""

from __future__ import annotations

import functools
import math
import os
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import torch
import torch._inductor.config

from snippets.core import (backends, cli, config, examples, flags, machine, measure, models,
                           profile, results, rows, runs)
from snippets.train import classifiers, group, kinds
# The public names the scale runs build on: the step, its optimizer and the first steps timed apart.
from snippets.train.group import FIRST_STEPS  # noqa: F401
from snippets.train.step import VARIANTS, optimizer_for, train_step  # noqa: F401

KIND = kinds.TRAIN.name
DTYPES = {"bf16": torch.bfloat16, "fp32": None}  # bf16: autocast over fp32 weights
# The largest loss gap (``examples.loss_gap``: the largest difference from eager's loss over the
# first steps, as a fraction of eager's first loss) that still counts as learning the same.
# fp32: compiled kernels sum in another order than eager's, a relative 1e-7 per operation, which
# a few optimizer steps leave orders of magnitude below 1e-3; any real difference in what is
# computed (a wrong gradient, a missed update) moves the loss by far more. bf16: autocast rounds
# every matmul input to 8 bits of mantissa (a relative 4e-3), eager's kernels and the fused ones
# round in different places, and AdamW carries each difference on through every later step (it
# scales small gradients up to full-sized updates), so the curves drift apart as steps go on;
# 5 % of the first loss allows that drift over 100 steps, and a wrong gradient still exceeds it.
TOLERANCE = {"bf16": 5e-2, "fp32": 1e-3}
LR = 1e-3  # AdamW's default learning rate
SEED = 0
# The variants that compile in seconds to a minute; max-autotune benchmarks kernels for minutes.
CUDA_VARIANTS = VARIANTS[:6]
CPU_VARIANTS = VARIANTS[:4]  # no CUDA graphs on a CPU, and autotuning C++ there is slow

# The one table of per-device defaults; the command line's help is written from it.
DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"models": ("resnet50", "transformer"), "batch_sizes": (32, 128),
             "variants": CUDA_VARIANTS, "dtype": "bf16", "steps": 100, "rounds": 30,
             "warm_rounds": 3, "sample_ms": 50.0, "profile_steps": 5,
             "backends": backends.DEFAULT["cuda"]},
    # Small enough for a two-core laptop in about a minute, compiles included.
    "cpu": {"models": ("tiny-cnn", "tiny-transformer"), "batch_sizes": (8,),
            "variants": CPU_VARIANTS, "dtype": "fp32", "steps": 10, "rounds": 10,
            "warm_rounds": 1, "sample_ms": 50.0, "profile_steps": 2,
            "backends": backends.DEFAULT["cpu"]},
}


def step_settings(dtype: str | None, lr: float, seed: int, steps: int | None,
                  b: backends.BackendSettings) -> dict[str, Any]:
    """What a results file records of the training step (``scale`` records the same)."""
    return {
        # what the stamp shows: the compute dtype, and that the weights stay fp32
        "dtype": "bf16 autocast" if dtype == "bf16" else dtype,
        "autocast": dtype if DTYPES.get(dtype or "") else None, "weights": "fp32",
        "optimizer": f"AdamW(lr={lr:g})", "loss": "cross_entropy", "seed": seed, "steps": steps,
        "first_steps": group.FIRST_STEPS, "tolerance": TOLERANCE.get(dtype or ""),
        "tf32": b.tf32, "cudnn_benchmark": b.cudnn_benchmark, "backends": b.as_dict(),
        "fx_graph_cache": bool(torch._inductor.config.fx_graph_cache)}


@dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """Time a training step, eager against torch.compile, and check that each variant learns as
    eager does.

    Everything one run needs; None means "the default for the device" (``DEFAULTS``).

    Attributes:
        variants: comma-separated from {choices}, or all; eager is always run: the reference
        dtype: bf16 is autocast, the weights and optimizer state stay fp32
        steps: steps from the same start whose losses are set against eager's
        profile_steps: steps of each variant profiled after the timing, 0 for none
    """

    models: tuple[str, ...] | None = models.names(None, classifiers.BUILTIN)
    batch_sizes: tuple[int, ...] | None = config.option(None, positive=True)
    variants: tuple[str, ...] | None = config.option(None, choices=VARIANTS, what="variant",
                                                      every=True)
    dtype: str | None = config.option(None, choices=tuple(DTYPES))
    device: str = "auto"
    steps: int | None = config.option(None, positive=True)
    rounds: int | None = config.option(None, positive=True)
    warm_rounds: int | None = config.option(None, positive=True, zero=True)
    sample_ms: float | None = None  # how long one sample lasts
    warmup: int = 2  # steps of each variant before timing: a recompile, CUDA-graph recording
    profile_steps: int | None = config.option(None, positive=True, zero=True)
    lr: float = LR
    seed: int = SEED
    backends: backends.BackendSettings | None = None  # TF32, cuDNN autotuner: set for the run
    factories: tuple[tuple[str, models.Factory], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        config.check(self)

    def resolve(self) -> TrainConfig:
        """Fill every None with the device's default, so the run and its record are explicit."""
        cfg = config.resolve(self, DEFAULTS)
        if "eager" not in cfg.variants:
            cfg = replace(cfg, variants=("eager", *cfg.variants))
        order = [v for v in VARIANTS if v in cfg.variants]  # eager first: the others need it
        return replace(cfg, variants=tuple(order))

    def settings(self) -> dict[str, Any]:
        """What the results file records of this run's settings."""
        return {
            "models": [*(self.models or ()), *(n for n, _ in self.factories)],
            "batch_sizes": list(self.batch_sizes or ()), "variants": list(self.variants or ()),
            **step_settings(self.dtype, self.lr, self.seed, self.steps,
                            self.backends or backends.BackendSettings()),
            "rounds": self.rounds, "warm_rounds": self.warm_rounds,
            "sample_ms": self.sample_ms, "warmup": self.warmup,
            "profile_steps": self.profile_steps, "grad": True, "train": True,
            "inductor_cache_dir": os.environ.get("TORCHINDUCTOR_CACHE_DIR"),
        }


def measure_group(cfg: TrainConfig, name: str, factory: models.Factory, bs: int,
                  peak: float | None, progress: Callable[[str], None]) -> Iterator[dict[str, Any]]:
    """All rows of one (model, batch size): each variant's first steps, then all timed."""
    device = torch.device(cfg.device)
    g = group.prepare(name, factory, bs, device, DTYPES[cfg.dtype], cfg.seed)
    at = f"{name} bs={bs}"
    progress(f"{at}: FLOPs")
    flops = group.count_flops(g.model(), g.x, g.y, g.amp_dtype)
    for variant in cfg.variants:
        progress(f"{at} {variant}: {cfg.steps} steps")
        g.rows[variant] = group.first_steps(g, variant, cfg.steps, cfg.lr)
    tol, reference = TOLERANCE[cfg.dtype], g.rows["eager"]["losses"]
    for variant, row in g.rows.items():
        if variant in g.steps:
            gap = examples.loss_gap(row["losses"], reference)
            row["loss_gap"] = gap if math.isfinite(gap) else None
            if gap > tol:
                row["status"] = "mismatch"
                row["message"] = (f"loss gap {gap:.3g} above {tol:g}" if row["loss_gap"]
                                  else "loss not finite")
    progress(f"{at}: timing {', '.join(g.steps)}")
    mon, gate = machine.Monitor(device), measure.HostGate(enabled=False)
    try:
        timed = measure.measure_variants(
            g.steps, device, rounds=cfg.rounds, sample_ms=cfg.sample_ms, warmup=cfg.warmup,
            warm_rounds=cfg.warm_rounds, after_round=mon.sample, gate=gate)
    except Exception as exc:  # one variant failed while timed: every row of the group says so
        status, message = rows.fault(exc)
        for variant, row in g.rows.items():
            timed_out = variant in g.steps  # a row that faulted earlier keeps its own fault
            yield {**row, "status": status, "message": message} if timed_out else row
        return
    evidence = {**mon.summary(), "host_canary_us": statistics.median(gate.canary_us)}
    finished = list(group.timed_rows(g, timed, evidence, flops, peak))
    if cfg.profile_steps:  # after the timing, which the profiler would slow
        progress(f"{at}: profiling {cfg.profile_steps} steps")
        for row in finished:
            if row["variant"] in g.steps:
                row["profile"] = profile.profile_or_error(
                    g.steps[row["variant"]], device, cfg.profile_steps,
                    lambda exc: rows.fault(exc)[1])
    yield from finished


def warm_up(device: torch.device) -> None:
    """Compile something once, so the process's one-time costs land on no variant."""
    torch._dynamo.reset()
    layer = torch.nn.Linear(3, 3).to(device)
    torch.compile(lambda x: layer(x).relu().sum())(torch.randn(2, 3, device=device)).backward()
    torch._dynamo.reset()


def run(cfg: TrainConfig, peak: float | None = None,
        progress: Callable[[str], None] = lambda _: None) -> Iterator[dict[str, Any]]:
    """Every row of a resolved config; ``peak``: the measured bf16 matmul TFLOP/s."""
    device = torch.device(cfg.device)
    factories = [(n, classifiers.BUILTIN[n]) for n in cfg.models] + list(cfg.factories)
    with cfg.backends.apply():
        if any(v != "eager" for v in cfg.variants):
            progress("warming up the compiler")
            warm_up(device)
        for name, factory in factories:
            for bs in cfg.batch_sizes:
                try:
                    yield from measure_group(cfg, name, factory, bs, peak, progress)
                except models.SpecError:
                    raise
                except Exception as exc:  # eager itself failed (an OOM at a large batch, say)
                    status, message = rows.fault(exc)
                    for variant in cfg.variants:
                        yield group.new_row(name, bs, variant, status=status, message=message)
                finally:
                    torch._dynamo.reset()
                    if device.type == "cuda":
                        torch.cuda.empty_cache()


def document(cfg: TrainConfig, progress: Callable[[str], None] = lambda _: None,
             on_row: Callable[[dict[str, Any]], None] = lambda _: None, *,
             commit: str | None = None) -> dict[str, Any]:
    """A whole results document; ``on_row`` sees it after each row (to save it)."""
    cfg = cfg.resolve()
    return runs.document(KIND, torch.device(cfg.device), cfg.settings(),
                         lambda peak: run(cfg, peak, progress), progress, on_row, commit=commit)


def parser(prog: str, cls: type, defaults: dict[str, dict[str, Any]]) -> cli.Parser:
    """A recorded training run's command line (``python -m snippets.train``, ``.scale``)."""
    p = cli.Parser(prog=prog, description=flags.about(cls))
    flags.declare(p, cls, defaults)
    cli.add_model(p, logits=True)
    cli.add_output(p)
    p.add_argument("--append", action="store_true", help=cli.APPEND_SAME_SETTINGS)
    cli.add_compare(p)
    return p


def produce_on(device: str, **fields: Any) -> Callable[..., dict[str, Any]]:
    """The page's run on one device type: this device's defaults unless ``fields`` say else."""
    return functools.partial(document, TrainConfig(device=device, **fields))


# ---- one results file from several commands ----------------------------------------------------

# What must agree for rows of two runs to stand in one table: the device, torch, and every
# setting that changes what a step time or a loss means.
JOINED_SETTINGS = ("dtype", "optimizer", "seed", "steps", "tolerance", "rounds", "warm_rounds",
                   "sample_ms", "warmup", "backends")
# Raises ResultsError, naming the difference, where a run cannot add its rows (``--append``).
check_joinable = functools.partial(results.check_joinable, settings=JOINED_SETTINGS)


def join(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``old`` with ``new``'s rows added (``--append``, ``results.join``), each group with its
    eager row."""
    return results.join(old, new, lambda r: (r["model"], r["batch_size"], r["variant"]),
                        measured=("peak_bf16_tflops",),
                        ran=("models", "batch_sizes", "variants", "inductor_cache"))
