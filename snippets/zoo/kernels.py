"""Where a zoo model's compiled call loses, kernel by kernel: a speed ladder profiles a rung slower
than the one below and that one too, and here their longest kernels are set side by side."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from snippets.core import measure

# A kernel within this share of its time in the other profile took as long in both.
SAME = measure.NOISY_IQR_RATIO


@dataclass(frozen=True)
class Kernel:
    """One kernel name in either profile; None where that profile's longest kernels lack it."""

    name: str
    eager_us: float | None
    compiled_us: float | None
    eager_launches: float | None = None  # per call: a row sums all of them
    compiled_launches: float | None = None

    @property
    def same(self) -> bool:
        e, c = self.eager_us, self.compiled_us
        return e is not None and c is not None and abs(c - e) <= SAME * e


@dataclass(frozen=True)
class Loss:
    """A compiled rung slower than eager: both profiles' busy GPU time and longest kernels."""

    model: str
    batch: int
    ratio: float
    eager_busy_us: float
    compiled_busy_us: float
    kernels: tuple[Kernel, ...]

    @property
    def grew_ms(self) -> float:
        """How much longer the compiled call kept the GPU busy than eager's, in ms."""
        return (self.compiled_busy_us - self.eager_busy_us) / 1000

    @property
    def only_compiled(self) -> list[Kernel]:
        return [k for k in self.kernels if k.eager_us is None]

    @property
    def only_eager(self) -> list[Kernel]:
        return [k for k in self.kernels if k.compiled_us is None]

    @property
    def only_net_us(self) -> float:
        """µs per call of the kernels only compiled ran, less those only eager ran."""
        return (sum(k.compiled_us for k in self.only_compiled)
                - sum(k.eager_us for k in self.only_eager))

    @property
    def convolutions_same(self) -> bool:
        """Whether every convolution kernel among the longest took as long in both calls."""
        conv = [k for k in self.kernels if "conv" in k.name.lower()]
        return bool(conv) and all(k.same for k in conv)

    @property
    def math_attention(self) -> bool:
        """Whether compiled ran a kernel from ``_safe_softmax``: SDPA's math path, not fused."""
        return any("_safe_softmax" in k.name for k in self.only_compiled)


def _loss(r: dict[str, Any]) -> Loss | None:
    mine, theirs = r.get("profile"), r.get("below_profile")
    if (r.get("prev_rung") != "eager" or not mine or not theirs
            or "error" in mine or "error" in theirs):
        return None
    e = {k["name"]: k for k in theirs["top"]}
    c = {k["name"]: k for k in mine["top"]}

    def us(k: dict[str, Any] | None) -> float:
        return k["us_per_call"] if k else 0.0
    names = sorted(e.keys() | c.keys(), key=lambda n: -max(us(e.get(n)), us(c.get(n))))
    return Loss(r["model"].rsplit(":", 1)[-1], r["batch_size"], r["speedup_prev"],
                theirs["busy_us_per_call"], mine["busy_us_per_call"],
                tuple(Kernel(n, *(k and k["us_per_call"] for k in (e.get(n), c.get(n))),
                             *(k and k.get("count_per_call") for k in (e.get(n), c.get(n))))
                      for n in names))


@dataclass(frozen=True)
class Losses:
    losses: tuple[Loss, ...]

    @property
    def largest(self) -> Loss | None:
        """The loss at the largest batch: where the device's work weighs most."""
        return max(self.losses, key=lambda x: x.batch, default=None)


def of(doc: dict[str, Any]) -> Losses:
    """Every compiled rung of the file that ran slower than eager, with both profiles."""
    found = [_loss(r) for r in doc["rows"] if r["mode"] == "compile"
             and (r.get("speedup_prev") or 1.0) < 1 - measure.NOISY_IQR_RATIO]
    return Losses(tuple(x for x in found if x is not None))
