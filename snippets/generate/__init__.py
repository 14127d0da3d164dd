"""Generation: a decoder's prefill and decode, eager against torch.compile's modes, read against
the device's measured ceilings."""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import torch

from snippets.core import backends, config, machine, measure, results, rows
from snippets.generate import bounds, kinds, model, weight_bytes
from snippets.core import roofline

KIND = kinds.GENERATE.name
PHASES = ("decode", "prefill")
# eager, then torch.compile's modes; every compiled one with fullgraph=True (a break in a decode
# step would hand the rest back to Python every token) and dynamic=False (each batch size its own
# static graph, as gpt-fast compiles it; otherwise the second batch size would mark the batch
# dimension dynamic and time other kernels).
# max-autotune-gemm is reduce-overhead with the products' kernels autotuned and nothing else:
# max-autotune also widens the block sizes tried for fused element-wise and reduction kernels and
# turns on coordinate-descent tuning, and this variant tells the products' share of it apart.
VARIANTS = ("eager", "default", "reduce-overhead", "max-autotune-gemm", "max-autotune")
# What each variant passes to torch.compile (a mode and options cannot both be given).
COMPILE_ARGS: dict[str, dict[str, Any]] = {
    "default": {},
    "reduce-overhead": {"mode": "reduce-overhead"},
    "max-autotune-gemm": {"options": {"triton.cudagraphs": True, "max_autotune_gemm": True}},
    "max-autotune": {"mode": "max-autotune"},
}
DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}

DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"size": "1b", "batch_sizes": (1, 8, 32), "dtype": "bf16", "prompt": 128,
             "cache": 512, "steps": 32, "rounds": 10, "sample_ms": 50.0,
             "variants": ("eager", "default", "reduce-overhead"),
             "backends": backends.DEFAULT["cuda"]},
    # fp32 on the CPU: most cores have no fast bf16, and fp32 makes the tokens comparable exactly.
    "cpu": {"size": "tiny", "batch_sizes": (1,), "dtype": "fp32", "prompt": 16, "cache": 64,
            "steps": 16, "rounds": 5, "sample_ms": 50.0, "variants": ("eager", "default"),
            "backends": backends.DEFAULT["cpu"]},
}


@dataclass(frozen=True, kw_only=True)
class GenerateConfig:
    """A decoder's prefill and decode, eager against torch.compile's modes, against the
    device's measured bandwidth and matmul rate.

    Attributes:
        size: decoder size: {choices}
        phases: comma-separated from {choices}
        variants: comma-separated from {choices}, or all
        dtype: weights, activations and cache
        prompt: prompt length in tokens
        cache: KV-cache length in positions: at least the prompt plus --steps
        steps: greedy tokens each compiled variant generates to compare with eager's
    """

    device: str = "auto"
    size: str | None = config.option(None, choices=tuple(model.SIZES), what="size")
    batch_sizes: tuple[int, ...] | None = config.option(None, positive=True)
    phases: tuple[str, ...] = config.option(PHASES, choices=PHASES, what="phase")
    variants: tuple[str, ...] | None = config.option(None, choices=VARIANTS, what="variant",
                                                     every=True)
    dtype: str | None = config.option(None, choices=tuple(DTYPES))
    prompt: int | None = config.option(None, positive=True)
    cache: int | None = config.option(None, positive=True)
    steps: int | None = config.option(None, positive=True)
    rounds: int | None = None
    sample_ms: float | None = None
    backends: backends.BackendSettings | None = None

    def __post_init__(self) -> None:
        config.check(self)

    def resolve(self) -> GenerateConfig:
        """Defaults filled for the device; a cache too short for the prompt and the compared
        steps raises ConfigError."""
        cfg = config.resolve(self, DEFAULTS)
        check_cache(cfg.cache, cfg.prompt, cfg.steps)
        return cfg

    def settings(self) -> dict[str, Any]:
        s = model.SIZES[self.size]
        return {"size": self.size, "shape": vars(s), "params": s.params, "dtype": self.dtype,
                "prompt": self.prompt, "cache": self.cache, "steps": self.steps,
                "decode_position": self.prompt, "rounds": self.rounds,
                "sample_ms": self.sample_ms, "fullgraph": True, "dynamic": False,
                "backends": self.backends.as_dict(), "tf32": self.backends.tf32,
                # Whether the compile times are cold: what Inductor's cache held at the start.
                "inductor_cache": machine.inductor_cache()}


def check_cache(cache: int | None, prompt: int | None, steps: int | None, flag: str = "cache",
                what: str = "steps") -> None:
    """A cache must hold the prompt and the tokens after it; unset values pass (not resolved)."""
    if None not in (cache, prompt, steps) and cache < prompt + steps:
        raise config.ConfigError(flag, f"below prompt+{what}={prompt + steps}")


def fields(cfg: Any, shape: bool = True) -> dict[str, Any]:
    """A config's fields for its provenance, the device apart (provenance records it), with
    the decoder's shape and parameter count where ``shape``."""
    out = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(cfg).items()
           if k != "device"}
    if shape:
        s = model.SIZES[cfg.size]
        out.update(shape=vars(s), params=s.params)
    return out


def base_and_prompt(cfg: Any, batch: int) -> tuple[model.Decoder, torch.Tensor]:
    """``cfg``'s decoder with a cache for ``batch`` sequences, and a prompt drawn from seed 0."""
    dev = torch.device(cfg.device)
    base = model.build(cfg.size, dev, DTYPES[cfg.dtype])
    base.setup_cache(batch, cfg.cache)
    gen = torch.Generator().manual_seed(0)
    return base, torch.randint(0, base.shape.vocab, (batch, cfg.prompt), generator=gen).to(dev)


def own_code(fn: Callable, name: str) -> Callable:
    """A copy of ``fn`` with a code object of its own. Dynamo keeps compiled code, and counts
    recompiles against its limit, per code object: every variant at every batch size compiling
    the one ``decode_step`` shared a budget of 8, and with ``fullgraph=True`` the ninth compile
    raised (``--variants all`` at batch 32). A copy per (variant, batch) gives each its own budget.
    (torch 2.14's ``isolate_recompiles=True`` does this too; torch 2.11 has no such option.)"""
    code = fn.__code__.replace(co_name=f"{fn.__name__}_{name}")
    copy = types.FunctionType(code, fn.__globals__, code.co_name, fn.__defaults__,
                              fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


def compiled(fn: Callable, variant: str, batch: int | None = None) -> Callable:
    """``fn`` as ``variant`` runs it; compiled, from its own copy of ``fn``'s code."""
    if variant == "eager":
        return fn
    name = variant.replace("-", "_") + ("" if batch is None else f"_bs{batch}")
    return torch.compile(own_code(fn, name), fullgraph=True, dynamic=False,
                         **COMPILE_ARGS[variant])


def agreement(m: model.Decoder, prompt: torch.Tensor, ref: torch.Tensor,
              got: torch.Tensor) -> dict[str, Any]:
    """Where ``got``'s greedy tokens first differ from eager's ``ref`` (any sequence), and the
    logit gap eager had there: rounding can only flip a near tie."""
    differs = (got != ref).any(dim=0).nonzero()
    if not len(differs):
        return {"first_diff": None, "logit_gap": None}
    at = int(differs[0])
    return {"first_diff": at, "logit_gap": model.logit_gap(m, prompt, ref, at)}


def phase_call(m: model.Decoder, phase: str, fn: Callable, prompt: torch.Tensor
               ) -> Callable[[], torch.Tensor]:
    """One timed call of ``phase``: the whole prompt, or one token at the position after it (the
    same slot each call, so every call does the same work)."""
    if phase == "prefill":
        return lambda: fn(m, prompt)
    token = prompt[:, -1:].contiguous()
    pos = torch.tensor([prompt.size(1)], device=prompt.device)
    return lambda: fn(m, token, pos)


def ceiling_share(cfg: GenerateConfig, phase: str, batch: int, ms: float,
                  ceilings: dict[str, Any], itemsize: int) -> dict[str, Any]:
    """The row's bound and its share of the ceiling it is read against."""
    s = model.SIZES[cfg.size]
    if phase == "decode":
        moved = bounds.decode_bytes(s, batch, cfg.prompt, itemsize)
        return {"bytes": moved, "gbps": moved / (ms * 1e-3) / 1e9,
                "pct_of_bandwidth": 100 * moved / (ms * 1e-3) / 1e9 / ceilings["copy_gbps"]}
    work = bounds.flops(s, batch, cfg.prompt, cfg.prompt)
    return {"flops": work, "tflops": work / (ms * 1e-3) / 1e12,
            "pct_of_peak": 100 * work / (ms * 1e-3) / 1e12 / ceilings["matmul_tflops"]}


def one_batch(cfg: GenerateConfig, m: model.Decoder, batch: int,
              ceilings: dict[str, Any], on_row: Callable[[dict[str, Any]], None],
              progress: Callable[[str], None]) -> None:
    dev, s = torch.device(cfg.device), model.SIZES[cfg.size]
    itemsize = DTYPES[cfg.dtype].itemsize
    m.setup_cache(batch, cfg.cache)
    prompt = torch.randint(0, s.vocab, (batch, cfg.prompt),
                           generator=torch.Generator().manual_seed(batch)).to(dev)
    with torch.no_grad():
        ref = model.generate(m, prompt, cfg.steps)
    held = weight_bytes.parameter_bytes(m) + s.cache_bytes(batch, cfg.cache, itemsize)
    for phase in cfg.phases:
        step = model.prefill if phase == "prefill" else model.decode_step
        calls, made = {}, {}
        for variant in cfg.variants:
            progress(f"bs={batch} {phase}: {variant}")
            row: dict[str, Any] = {"phase": phase, "batch_size": batch, "variant": variant,
                                   "status": "ok", "message": "", "compile_s": None,
                                   "latency_ms": None, "kv_cache_mb": s.cache_bytes(
                                       batch, cfg.cache, itemsize) / 2**20}
            try:
                fn = compiled(step, variant, batch)
                call = phase_call(m, phase, fn, prompt)
                with torch.no_grad():
                    _, row["compile_s"] = measure.time_first_call(call, dev)
                if variant != "eager":
                    with torch.no_grad():
                        ends = {"first": fn} if phase == "prefill" else {"step": fn}
                        got = model.generate(m, prompt, cfg.steps, **ends)
                        row.update(agreement(m, prompt, ref, got))
                calls[variant] = call
            except Exception as exc:  # noqa: BLE001 (one variant's fault is its row's)
                row["status"], row["message"] = rows.fault(exc)
            made[variant] = row
        progress(f"bs={batch} {phase}: timing")
        with torch.no_grad():
            timed = measure.measure_variants(calls, dev, rounds=cfg.rounds,
                                             sample_ms=cfg.sample_ms)
            for variant, call in calls.items():
                made[variant]["peak_mem_mb"] = rows.or_none(
                    lambda call=call: measure.peak_memory_mb(call, dev, held))
        base = timed.measurements.get("eager")
        for variant, row in made.items():
            if variant in calls:
                mm = timed[variant]
                rows.finish(row, mm, calls=timed.calls[variant], baseline=base, rate=False)
                per_call = batch * (cfg.prompt if phase == "prefill" else 1)
                row["tokens_per_s"] = per_call / (mm.median * 1e-3)
                row.update(ceiling_share(cfg, phase, batch, mm.median, ceilings, itemsize))
            on_row(row)


def produce(cfg: GenerateConfig, *, commit: str | None = None,
            on_row: Callable[[dict[str, Any]], None] = lambda doc: None,
            progress: Callable[[str], None] = lambda message: None) -> dict[str, Any]:
    """The results document of ``cfg`` (resolved): ``on_row(doc)`` after every finished row."""
    dev = torch.device(cfg.device)
    with cfg.backends.apply():
        progress("ceilings")
        ceilings = roofline.ceilings(dev)
        prov = results.provenance(dev, cfg.settings(), commit=commit)
        prov["ceilings"] = ceilings
        doc = results.new_document(KIND, prov)
        m = model.build(cfg.size, dev, DTYPES[cfg.dtype])
        prov["settings"]["weight_bytes"] = weight_bytes.parameter_bytes(m)

        def add(row: dict[str, Any]) -> None:
            doc["rows"].append(row)
            on_row(doc)

        for batch in cfg.batch_sizes:
            one_batch(cfg, m, batch, ceilings, add, progress)
    doc["complete"] = True
    return doc
