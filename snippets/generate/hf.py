"""``python -m snippets.generate.hf``: what a transformers user gets, beside this package's decoder
of the same shape, timed the same way in the same rounds."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from snippets.core import config, measure, recording, results, rows
from snippets.generate import DTYPES, command, fields, kinds, model, tables
from snippets.generate.hf_findings import COMPILED, DYNAMIC, STATIC

PROG = "python -m snippets.generate.hf"
KIND = kinds.HF.name
VARIANTS = (DYNAMIC, STATIC, COMPILED, "decoder eager", "decoder reduce-overhead")

DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"size": "1b", "dtype": "bf16", "prompt": 128, "short": 16, "long": 80,
             "rounds": 5},
    "cpu": {"size": "tiny", "dtype": "fp32", "prompt": 16, "short": 4, "long": 20,
            "rounds": 3},
}


@dataclass(frozen=True, kw_only=True)
class HFConfig:
    """transformers' Llama generate, dynamic and static cache, eager and compiled, beside
    this package's decoder of the same shape.

    Attributes:
        size: decoder size: {choices}
        batch: sequences generated at once
        dtype: weights, activations and cache
        prompt: prompt length in tokens
        short: new tokens of the short generation
        long: new tokens of the long one: the difference is what a token costs
    """

    device: str = "auto"
    size: str | None = config.option(None, choices=tuple(model.SIZES), what="size")
    batch: int = config.option(1, positive=True)
    dtype: str | None = config.option(None, choices=tuple(DTYPES))
    prompt: int | None = config.option(None, positive=True)
    short: int | None = config.option(None, positive=True)
    long: int | None = config.option(None, positive=True)
    rounds: int | None = None

    def __post_init__(self) -> None:
        config.check(self)

    def resolve(self) -> HFConfig:
        cfg = config.resolve(self, DEFAULTS)
        if cfg.long <= cfg.short:
            raise config.ConfigError("long", f"must exceed --short={cfg.short}")
        return cfg

    def settings(self) -> dict[str, Any]:
        return {**fields(self), "greedy": True}


def llama(cfg: HFConfig) -> Any:
    """transformers' Llama of the size's shape, random weights, on the device, in the dtype."""
    from transformers import LlamaConfig, LlamaForCausalLM

    s = model.SIZES[cfg.size]
    hf = LlamaConfig(vocab_size=s.vocab, hidden_size=s.dim, intermediate_size=s.ffn,
                     num_hidden_layers=s.layers, num_attention_heads=s.heads,
                     num_key_value_heads=s.kv_heads, tie_word_embeddings=False,
                     max_position_embeddings=cfg.prompt + cfg.long,
                     bos_token_id=None, eos_token_id=None, pad_token_id=0)
    torch.manual_seed(0)
    with torch.device(cfg.device):
        m = LlamaForCausalLM(hf)
    return m.to(DTYPES[cfg.dtype]).eval()


# --8<-- [start:static]
def generate_static(model, input_ids, new_tokens, **kwargs):
    """transformers' own recipe: ask generate for a static cache. On a GPU
    it then compiles the forward itself, with mode="reduce-overhead"."""
    out = model.generate(input_ids, max_new_tokens=new_tokens,
                         min_new_tokens=new_tokens, do_sample=False,
                         cache_implementation="static", **kwargs)
    return out[:, input_ids.size(1):]  # the new tokens only
# --8<-- [end:static]


def ways(cfg: HFConfig, prompt: torch.Tensor) -> dict[str, Callable[[int], torch.Tensor]]:
    """Every variant's generation of ``n`` new tokens; CUDA graphs and transformers' own compile
    apply on CUDA only."""
    hf = llama(cfg)
    dec = model.build(cfg.size, cfg.device, DTYPES[cfg.dtype])
    dec.setup_cache(cfg.batch, cfg.prompt + cfg.long)
    # generate compiles the forward unless told not to, only with a static cache on an
    # accelerator: transformers' generation/utils.py, _valid_auto_compile_criteria.
    out = {DYNAMIC: lambda n: hf.generate(
               prompt, max_new_tokens=n, min_new_tokens=n, do_sample=False,
               disable_compile=True)[:, prompt.size(1):],
           STATIC: lambda n: generate_static(hf, prompt, n, disable_compile=True),
           "decoder eager": lambda n: model.generate(dec, prompt, n)}
    if torch.device(cfg.device).type == "cuda":
        out[COMPILED] = lambda n: generate_static(hf, prompt, n, disable_compile=False)
        step = model.compile_step()
        out["decoder reduce-overhead"] = lambda n: model.generate(dec, prompt, n, step=step)
    return out


def per_token(gen: Callable[[int], torch.Tensor], cfg: HFConfig, dev: torch.device) -> float:
    """Milliseconds per new token: the long generation's time less the short one's, over the
    tokens between them."""
    with measure.Stopwatch(dev) as short:
        gen(cfg.short)
    with measure.Stopwatch(dev) as long:
        gen(cfg.long)
    return (long.seconds - short.seconds) * 1e3 / (cfg.long - cfg.short)


def produce(cfg: HFConfig, *, commit: str | None = None,
            on_row: Callable[[dict[str, Any]], None] = lambda doc: None,
            progress: Callable[[str], None] = lambda message: None) -> dict[str, Any]:
    dev = torch.device(cfg.device)
    import transformers

    settings = {**cfg.settings(), "transformers": transformers.__version__}
    doc = results.new_document(KIND, results.provenance(dev, settings, commit=commit))
    s = model.SIZES[cfg.size]
    prompt = torch.randint(1, s.vocab, (cfg.batch, cfg.prompt),
                           generator=torch.Generator().manual_seed(0)).to(dev)
    made: dict[str, dict[str, Any]] = {}
    ready: dict[str, Callable[[int], torch.Tensor]] = {}
    with torch.no_grad():
        for name, gen in ways(cfg, prompt).items():
            progress(f"{name}: first generation")
            row = {"variant": name, "status": "ok", "message": "", "first_s": None,
                   "latency_ms": None}
            try:
                with measure.Stopwatch(dev) as first:
                    row["tokens"] = gen(cfg.long)[0].tolist()
                row["first_s"] = first.seconds
                ready[name] = gen
            except Exception as exc:  # noqa: BLE001 (one variant's fault is its row's)
                row["status"], row["message"] = rows.fault(exc)
            made[name] = row
        for name in VARIANTS:
            if name not in made:
                made[name] = {"variant": name, "status": "unsupported", "first_s": None,
                              "latency_ms": None, "message": "CUDA only"}
        samples: dict[str, list[float]] = {n: [] for n in ready}
        names = list(ready)
        for r in range(cfg.rounds):
            progress(f"round {r + 1} of {cfg.rounds}")
            for name in names[r % len(names):] + names[:r % len(names)]:
                samples[name].append(per_token(ready[name], cfg, dev))
    base = {"hf": "hf dynamic cache", "decoder": "decoder eager"}
    for name in VARIANTS:
        row = made[name]
        if name in samples:
            ref = base[name.split()[0]]
            m = measure.Measurement(tuple(samples[name]))
            rows.finish(row, m, calls=1, rate=False, baseline=measure.Measurement(
                tuple(samples[ref])) if ref in samples else None)
            row["tokens_per_s"] = cfg.batch / (m.median * 1e-3)
            if name != ref and made[ref].get("tokens") and row.get("tokens"):
                row["same_tokens"] = row["tokens"] == made[ref]["tokens"]
        doc["rows"].append(row)
        on_row(doc)
    doc["complete"] = True
    return doc


@functools.cache
def has_transformers() -> bool:
    try:
        import transformers  # noqa: F401
    except ImportError:
        return False
    return True


TOOL = command.Tool(
    PROG, KIND, HFConfig, DEFAULTS, produce, recording.Printer(markdown=tables.hf_table),
    needs=lambda: None if has_transformers() else 'transformers missing: pip install ".[llm]"')
main, parser = TOOL.main, TOOL.parser


if __name__ == "__main__":
    sys.exit(main())
