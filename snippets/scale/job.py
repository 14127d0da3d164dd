"""One configuration of a scale run as a distributed job: what its ranks are told, and on how many
nodes of how many processes they run. ``launch`` starts it, ``gather`` makes its row."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, kw_only=True)
class Job:
    """Everything one configuration's ranks are told: what to train and how, on how many nodes
    of how many processes each."""

    model: str
    strategy: str
    variant: str
    batch_size: int  # samples per rank
    device: str  # "cpu" or "cuda"
    nodes: int = 1
    nproc: int = 1  # processes per node, one per GPU on CUDA
    bucket_cap_mb: float | None = None  # DDP only
    dtype: str = "fp32"
    steps: int = 5
    warmup: int = 2
    rounds: int = 3
    profile_steps: int = 0  # steps profiled after the timed ones
    lr: float = 1e-3
    seed: int = 0
    timeout_s: float = 300.0
    inductor_cache: str = "fresh"  # or "shared": the one this process's environment names

    @property
    def world(self) -> int:
        return self.nodes * self.nproc

    def rank_args(self, out: Path) -> list[str]:
        args = ["--model", self.model, "--strategy", self.strategy, "--variant", self.variant,
                "--batch-size", str(self.batch_size), "--device", self.device,
                "--dtype", self.dtype, "--steps", str(self.steps), "--warmup", str(self.warmup),
                "--rounds", str(self.rounds), "--lr", repr(self.lr), "--seed", str(self.seed),
                "--out", str(out)]
        if self.profile_steps:
            args += ["--profile-steps", str(self.profile_steps)]
        if self.bucket_cap_mb is not None:
            args += ["--bucket-cap-mb", f"{self.bucket_cap_mb:g}"]
        return args
