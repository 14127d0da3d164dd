"""Compile at scale: the training page's step on several GPUs, with DDP and FSDP2, eager and
compiled."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import torch

from snippets.core import backends, config, results
from snippets.core import models as core_models
from snippets.scale import gather, kinds, launch, scaling
from snippets.scale import models as scale_models
from snippets.scale.job import Job
from snippets.scale.wrap import DDP_BUCKET_MB, STRATEGIES, VARIANTS, compiled_autograd_missing
from snippets.train import DTYPES, LR, SEED, step_settings

KIND = kinds.SCALE.name

# The one table of per-device defaults; the command line's help is written from it.
DEFAULTS: dict[str, dict[str, Any]] = {
    # Two GPUs of one host; ResNet-50 and the encoder at 64 samples per GPU, in bf16 autocast as
    # the training page measures them. 30 steps give the loss curves and 30 more the step times.
    "cuda": {"models": ("resnet50", "transformer"), "strategies": STRATEGIES,
             "variants": ("eager", "compiled", "per-block"), "batch_size": 64, "nproc": 2,
             "bucket_caps": (DDP_BUCKET_MB,), "dtype": "bf16", "steps": 30, "rounds": 30,
             "profile_steps": 5,
             # well past a configuration's compile and steps: one still running then is stuck
             # (a rank waiting in a collective for a peer that died), and is stopped
             "timeout_s": 540.0},
    # Two CPU processes talking through gloo: the code path in seconds on a two-core machine.
    # 1 MB buckets: the smallest a compiled DDP model accepts (DDP's first bucket is 1 MiB),
    # and small enough to split the small encoder's 2 MB of weights.
    "cpu": {"models": ("tiny-cnn", "small-transformer"), "strategies": STRATEGIES,
            "variants": ("eager", "compiled"), "batch_size": 4, "nproc": 2,
            "bucket_caps": (1.0,), "dtype": "fp32", "steps": 5, "rounds": 3, "profile_steps": 1,
            "timeout_s": 300.0},
}


@dataclass(frozen=True, kw_only=True)
class ScaleConfig:
    """Train a step with DDP and FSDP2 over several processes, launched with torchrun, eager and
    compiled, against the same step in one process.

    Everything one run needs; None means "the default for the device" (``DEFAULTS``).

    Attributes:
        strategies: comma-separated from {choices}; single is one process over the whole batch, the
            reference
        variants: comma-separated from {choices}, or all
        batch_size: samples per rank; the one-process run trains them all
        nproc: processes per node, one per GPU on CUDA
        nodes: launchers on this host, each a node of --nproc processes meeting the others at a c10d
            rendezvous, as on a cluster
        bucket_caps: DDP's bucket_cap_mb, comma-separated, a configuration each
        dtype: bf16 is autocast, the weights stay fp32
        device: auto (CUDA if present), cpu, cuda
        steps: steps whose losses are compared (the first 3 timed whole)
        rounds: steady steps timed one by one
        profile_steps: steps each rank profiles after the timed ones, 0 for none
        timeout_s: seconds a configuration may take
        inductor_cache: fresh: every configuration compiles with an empty Inductor cache, as a new
            job does; shared: the one your environment names, warm after the first
    """

    # built-in names (scale.models) or pkg.module:factory specs, each resolved by its ranks
    models: tuple[str, ...] | None = core_models.names(None, scale_models.BUILTIN,
                                                              flag_only=True)
    strategies: tuple[str, ...] | None = config.option(None, choices=STRATEGIES,
                                                        what="strategy")
    variants: tuple[str, ...] | None = config.option(None, choices=VARIANTS, what="variant",
                                                      every=True)
    batch_size: int | None = config.option(None, positive=True)
    nproc: int | None = config.option(None, positive=True)
    nodes: int = config.option(1, positive=True)
    bucket_caps: tuple[float, ...] | None = config.option(None, positive=True, unit=" MB")
    dtype: str | None = config.option(None, choices=tuple(DTYPES))
    device: str = "auto"
    steps: int | None = config.option(None, positive=True)
    rounds: int | None = config.option(None, positive=True)
    warmup: int = 2  # untimed steps between them
    profile_steps: int | None = config.option(None, positive=True, zero=True)
    lr: float = LR
    seed: int = SEED
    timeout_s: float | None = config.option(None, positive=True, unit=" s", flag="--timeout")
    # fresh: on a CPU that alone is some 20 s of one-time work per process
    inductor_cache: str = config.option("fresh", choices=("fresh", "shared"))

    def __post_init__(self) -> None:
        config.check(self)

    def resolve(self) -> ScaleConfig:
        """Fill every None with the device's default; strategies and variants in their order
        (the one-process reference first)."""
        cfg = config.resolve(self, DEFAULTS)
        return replace(cfg, strategies=tuple(s for s in STRATEGIES if s in cfg.strategies),
                       variants=tuple(v for v in VARIANTS if v in cfg.variants))

    @property
    def world(self) -> int:
        return (self.nodes or 1) * (self.nproc or 1)

    def settings(self) -> dict[str, Any]:
        """What the results file records of this run's settings. The backend switches are the
        device's defaults (TF32 and cuDNN's autotuner on CUDA), which every rank applies."""
        b = backends.DEFAULT[config.device_type(self.device)]
        cuda = config.device_type(self.device) == "cuda"
        return {
            "models": list(self.models or ()), "strategies": list(self.strategies or ()),
            "variants": list(self.variants or ()), "batch_size": self.batch_size,
            "nproc": self.nproc, "nodes": self.nodes, "bucket_caps": list(self.bucket_caps or ()),
            "devices": f"{self.world} {'GPUs' if cuda else 'processes'}",
            "backend": "nccl" if cuda else "gloo", "launcher": "torchrun",
            "nccl_nvls_enable": "0", "omp_threads": "host cores / ranks on the host",
            "inductor_cache": ("a fresh folder per node and configuration"
                               if self.inductor_cache == "fresh" else "shared"),
            **step_settings(self.dtype, self.lr, self.seed, self.steps, b),
            "rounds": self.rounds, "warmup": self.warmup, "profile_steps": self.profile_steps,
            "timeout_s": self.timeout_s,
            "compiled_autograd": compiled_autograd_missing() or "available",
        }


def plan(cfg: ScaleConfig) -> list[Job]:
    """Every configuration of a resolved config, the one-process reference first."""
    common = {"device": config.device_type(cfg.device), "dtype": cfg.dtype, "steps": cfg.steps,
              "warmup": cfg.warmup, "rounds": cfg.rounds, "profile_steps": cfg.profile_steps,
              "lr": cfg.lr, "seed": cfg.seed,
              "timeout_s": cfg.timeout_s, "inductor_cache": cfg.inductor_cache}
    out = []
    for model in cfg.models:
        for strategy in cfg.strategies:
            # one process trains the whole batch; the others each a rank's share of it
            spread = {} if strategy == "single" else {"nodes": cfg.nodes, "nproc": cfg.nproc}
            for variant in cfg.variants:
                for cap in cfg.bucket_caps if strategy == "ddp" else (None,):
                    out.append(Job(model=model, strategy=strategy, variant=variant,
                                   batch_size=cfg.batch_size * (1 if spread else cfg.world),
                                   bucket_cap_mb=cap, **spread, **common))
    return out


def describe(item: Job) -> str:
    where = "" if item.strategy == "single" else f" {item.nodes}x{item.nproc}"
    bucket = f", {item.bucket_cap_mb:g} MB buckets" if item.bucket_cap_mb is not None else ""
    return f"{item.model} {item.variant} {item.strategy}{where}{bucket}"


def run(cfg: ScaleConfig, progress: Callable[[str], None] = lambda _: None
        ) -> Iterator[dict[str, Any]]:
    """Every configuration's row, one launched job after another."""
    missing = compiled_autograd_missing()
    for item in plan(cfg):
        progress(describe(item))
        if item.variant == "compiled-autograd" and missing:
            yield gather.new_row(item, run_status="unsupported", run_message=missing,
                                 status="unsupported", message=missing)
            continue
        yield launch.run(item)


def document(cfg: ScaleConfig, progress: Callable[[str], None] = lambda _: None,
             on_row: Callable[[dict[str, Any]], None] = lambda _: None, *,
             commit: str | None = None, old: dict[str, Any] | None = None) -> dict[str, Any]:
    """A whole results document, joined to ``old`` where given (--append). Not
    ``core.runs.document``: its matmul peak here would hold a GPU that the ranks need."""
    cfg = cfg.resolve()
    prov = results.provenance(torch.device(config.device_type(cfg.device)), cfg.settings(),
                              commit=commit)
    doc = results.new_document(KIND, prov)
    for row in run(cfg, progress):
        doc["rows"].append(row)
        on_row(join(old, doc) if old else with_derived(doc))
    doc["complete"] = True
    return join(old, doc) if old else with_derived(doc)


def with_derived(doc: dict[str, Any]) -> dict[str, Any]:
    tol = doc["provenance"]["settings"].get("tolerance")
    return {**doc, "rows": scaling.derive(doc["rows"], tol)}


# ---- one results file from several commands ----------------------------------------------------

# What must agree for rows of two runs to stand in one table: the device, torch, and every
# setting that changes what a step time or a loss means. The strategies, variants, bucket sizes
# and node counts may differ: that is what commands split a run by.
JOINED_SETTINGS = ("dtype", "optimizer", "seed", "steps", "rounds", "warmup", "batch_size",
                   "tolerance", "backends", "backend", "inductor_cache")
check_joinable = functools.partial(results.check_joinable, settings=JOINED_SETTINGS)


def join(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``old`` with ``new``'s rows added (``--append``, ``results.join``), by model."""
    doc = results.join(old, new, gather.key, group=lambda r: (r["model"],),
                       ran=("models", "strategies", "variants", "bucket_caps", "nodes", "nproc",
                            "devices"))
    return with_derived(doc)



# ---- the launch line on a cluster --------------------------------------------------------------

def cluster_line(nodes: int = 4, nproc: int = 8, model: str = "transformer",
                 strategy: str = "fsdp2", variant: str = "per-block") -> str:
    """The launcher line every node of a cluster runs for one configuration (CUDA defaults)."""
    cfg = ScaleConfig(device="cuda", models=(model,), strategies=(strategy,),
                      variants=(variant,), nproc=nproc, nodes=nodes).resolve()
    job = plan(cfg)[0]
    argv = launch.torchrun(nodes, nproc, job.rank_args(launch.RANKS), "$NODE_RANK",
                           "$HEAD_NODE:29500", "$JOB_ID")
    return "```bash\n" + launch.shown(argv) + "\n```\n"
