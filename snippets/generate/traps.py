"""``python -m snippets.generate.traps``: three ways a compiled decode loop goes wrong, each
measured against its fix."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch._inductor.config
import torch.nn.functional as F

from snippets.core import backends, config, measure, recording, results, rows
from snippets.core.counters import graphs_compiled
from snippets.generate import DTYPES, base_and_prompt, check_cache, command, fields, growing, kinds
from snippets.generate import tables
from snippets.generate import model as M
from snippets.generate.findings import FIXES
from snippets.generate.loop import per_step

PROG = "python -m snippets.generate.traps"
KIND = kinds.TRAPS.name
TRAPS = ("growing-cache", "item-sync", "prompt-lengths")

DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"size": "small", "dtype": "bf16", "prompt": 128, "cache": 512, "steps": 24,
             "lengths": (37, 50, 64, 90, 113, 130, 200, 250), "buckets": (64, 128, 256),
             "rounds": 20, "sample_ms": 50.0},
    "cpu": {"size": "tiny", "dtype": "fp32", "prompt": 16, "cache": 128, "steps": 12,
            "lengths": (5, 9, 12, 16, 23, 30, 41, 60), "buckets": (16, 32, 64),
            "rounds": 15, "sample_ms": 20.0},
}


@dataclass(frozen=True, kw_only=True)
class TrapsConfig:
    """Three traps of a compiled decode loop, each measured against its fix.

    Attributes:
        size: decoder size: {choices}
        traps: comma-separated from {choices}, or all (default: all)
        backend: eager: count compiles in seconds, without compiling kernels
        steps: decode steps per loop (the growing cache's compiles are counted over them)
        prompt: prompt length of the decode traps; their steps start after it
        cache: cache length in positions, at least the prompt plus --steps and the largest bucket
        lengths: comma-separated prompt lengths fed to the compiled prefill
        buckets: comma-separated lengths a prompt is padded up to
    """

    device: str = "auto"
    size: str | None = config.option(None, choices=tuple(M.SIZES), what="size")
    traps: tuple[str, ...] = config.option(TRAPS, choices=TRAPS, what="trap", every=True)
    backend: str = config.option("inductor", choices=("inductor", "eager"))
    rounds: int | None = config.option(None, positive=True)
    steps: int | None = config.option(None, positive=True)
    prompt: int | None = config.option(None, positive=True)
    cache: int | None = config.option(None, positive=True)
    lengths: tuple[int, ...] | None = config.option(None, positive=True)
    buckets: tuple[int, ...] | None = config.option(None, positive=True)
    dtype: str | None = config.option(None, choices=tuple(DTYPES))
    sample_ms: float | None = None

    def __post_init__(self) -> None:
        config.check(self)
        check_cache(self.cache, self.prompt, self.steps)
        if None in (self.cache, self.lengths, self.buckets):
            return
        if max(self.lengths) > max(self.buckets) or max(self.buckets) > self.cache:
            raise config.ConfigError("buckets", "needs a bucket <= --cache")

    def resolve(self) -> TrapsConfig:
        return config.resolve(self, DEFAULTS)

    def settings(self) -> dict[str, Any]:
        return {**fields(self, shape=False), "batch_size": 1, "fx_graph_cache": False,
                "backends": backends.DEFAULT[config.device_type(self.device)].as_dict()}


def new_row(cfg: TrapsConfig, trap: str, variant: str) -> dict[str, Any]:
    return {"model": cfg.size, "trap": trap, "variant": variant, "status": "ok", "message": "",
            "compiles": None, "recompiles": None, "compile_s": None, "compiled_at": [],
            "step_ms": None, "speedup": None, "tokens_match": None}


def counted(row: dict[str, Any], fn: Callable[[], Any], at: object,
            device: torch.device) -> Any:
    """``fn()``, timed whole; where it compiled, ``row`` counts it and its seconds."""
    before = graphs_compiled()
    with measure.Stopwatch(device) as watch:
        out = fn()
    if graphs_compiled() > before:
        row["compiles"] = (row["compiles"] or 0) + graphs_compiled() - before
        row["recompiles"] = row["compiles"] - 1
        row["compile_s"] = (row["compile_s"] or 0.0) + watch.seconds
        row["compiled_at"].append(at)
    return out


def timed_alone(fns, dev, cfg, found, warmup):
    """``measure_variants`` of ``fns``, and in each row of ``found`` how many compiles the
    timing itself set off (0 where every call ran what was compiled before it)."""
    before = graphs_compiled()
    timed = measure.measure_variants(fns, dev, rounds=cfg.rounds, sample_ms=cfg.sample_ms,
                                     warmup=warmup)
    for row in found:
        row["compiles_while_timed"] = graphs_compiled() - before
    return timed


def growing_cache(cfg, base, prompt, eager_tokens, dev) -> list[dict[str, Any]]:
    """The growing cache's compiles over ``steps`` tokens, then a step at the prompt's end
    timed against the static cache's."""
    trap, fix = new_row(cfg, "growing-cache", "torch.cat"), new_row(cfg, "growing-cache",
                                                                    "static cache")
    g, s = growing.growing(base), copy.deepcopy(base)
    step = torch.compile(M.decode_step, backend=cfg.backend, fullgraph=True)
    static = torch.compile(M.decode_step, backend=cfg.backend, fullgraph=True, dynamic=False)

    def decode(m, row, fn):
        """The prompt in eager, then compiled steps, each counted; the cache after the prompt."""
        token, out = M.prefill(m, prompt), []
        after_prompt = [(la.attention.cache.k, la.attention.cache.v) for la in m.layers]
        for i in range(cfg.steps - 1):
            pos = torch.tensor([cfg.prompt + i], device=dev)
            token = counted(row, lambda t=token, p=pos: fn(m, t, p), i, dev).clone()
            out.append(token)
        row["compiles"] = row["compiles"] or 0
        row["tokens_match"] = bool(torch.equal(torch.cat(out, 1), eager_tokens[:, 1:]))
        return after_prompt

    prompt_cache = decode(g, trap, step)
    decode(s, fix, static)

    def restore():
        for layer, (k, v) in zip(g.layers, prompt_cache, strict=True):
            layer.attention.cache.k, layer.attention.cache.v = k, v

    # The prompt's token with a step's own strides: a view of eager's tokens has a stride of
    # ``steps`` on its batch dimension, and Dynamo guards on strides of size-1 dimensions too,
    # so a step given the view compiles again (seen in TORCH_LOGS=recompiles).
    first = eager_tokens[:, :1].clone(memory_format=torch.contiguous_format)
    pos = torch.tensor([cfg.prompt], device=dev)
    # Each call of the growing step starts from the prompt's cache again (a few attribute
    # writes per layer), so both are timed at the same position.
    fns = {"torch.cat": lambda: (restore(), step(g, first, pos)),
           "static cache": lambda: static(s, first, pos)}
    timed = timed_alone(fns, dev, cfg, (trap, fix), warmup=2)
    for row in (trap, fix):
        rows.finish(row, timed[row["variant"]], calls=timed.calls[row["variant"]],
                    baseline=timed["torch.cat"], field="step_ms", rate=False)
    return [trap, fix]


def item_sync(cfg, base, prompt, eager_tokens, dev) -> list[dict[str, Any]]:
    """``steps`` tokens sampled in Python with ``.item()`` each, against sampled in the step."""
    a, b = copy.deepcopy(base), copy.deepcopy(base)
    forward = torch.compile(a, backend=cfg.backend)
    step = torch.compile(M.decode_step, backend=cfg.backend, fullgraph=True, dynamic=False)
    positions = [torch.tensor([cfg.prompt + i], device=dev) for i in range(cfg.steps - 1)]

    def sampled_in_python(token):
        out = []
        for pos in positions:
            logits = forward(token, pos)
            nxt = logits[:, -1].argmax(-1).item()  # the host waits here
            token = torch.tensor([[nxt]], device=pos.device)
            out.append(nxt)
        return out

    def sampled_in_step(token):
        out = []
        for pos in positions:
            token = step(b, token, pos)  # stays on the device
            out.append(token)
        return out

    first_a, first_b = M.prefill(a, prompt), M.prefill(b, prompt)
    in_python, in_step = FIXES["item-sync"]
    trap, fix = new_row(cfg, "item-sync", in_python), new_row(cfg, "item-sync", in_step)
    got_a = counted(trap, lambda: sampled_in_python(first_a), 0, dev)
    got_b = counted(fix, lambda: torch.cat(sampled_in_step(first_b), 1), 0, dev)
    trap["tokens_match"] = got_a == eager_tokens[0, 1:].tolist()
    fix["tokens_match"] = bool(torch.equal(got_b, eager_tokens[:, 1:]))
    fns = {in_python: lambda: sampled_in_python(first_a),
           in_step: lambda: sampled_in_step(first_b)}
    timed = timed_alone(fns, dev, cfg, (trap, fix), warmup=1)
    base_m = per_step(timed[in_python], len(positions))
    for row in (trap, fix):
        rows.finish(row, per_step(timed[row["variant"]], len(positions)),
                    calls=timed.calls[row["variant"]], baseline=base_m, field="step_ms",
                    rate=False)
    return [trap, fix]


def bucket(length: int, buckets: tuple[int, ...]) -> int:
    return next(b for b in sorted(buckets) if b >= length)


def prefill_padded(model, prompt, last):
    """Prefill of a prompt padded at its end; its first token read at
    ``last`` (a tensor, so no length becomes a constant of the graph)."""
    pos = torch.arange(prompt.size(1), device=prompt.device)
    return model(prompt, pos).index_select(1, last).argmax(-1)


def pad(prompt, buckets):
    """``prompt`` padded with token 0 to its bucket, and the index of its
    last real token."""
    n = prompt.size(1)
    last = torch.tensor([n - 1], device=prompt.device)
    return F.pad(prompt, (0, bucket(n, buckets) - n)), last


def prompt_lengths(cfg, base, dev) -> list[dict[str, Any]]:
    """A prefill compiled three ways, fed prompts of every length; one row each."""
    gen = torch.Generator().manual_seed(1)
    prompts = [torch.randint(0, base.shape.vocab, (1, n), generator=gen).to(dev)
               for n in cfg.lengths]
    m = copy.deepcopy(base)
    expected = [M.prefill(m, p) for p in prompts]
    ways = {"dynamic=False": ({"dynamic": False}, M.prefill, False),
            "automatic dynamic": ({}, M.prefill, False),
            "pad to buckets": ({"dynamic": False}, prefill_padded, True)}
    out = []
    for variant, (options, fn, padded) in ways.items():
        # Dynamo keeps what it learnt per code object (the entries of ``prefill``, and which of
        # its sizes changed: torch/_dynamo/pgo.py, automatic dynamic), so each way starts from
        # nothing, as in a fresh process.
        torch._dynamo.reset()
        row = new_row(cfg, "prompt-lengths", variant)
        compiled = torch.compile(fn, backend=cfg.backend, fullgraph=True, **options)
        same = True
        for p, want in zip(prompts, expected, strict=True):
            args = (m, *pad(p, cfg.buckets)) if padded else (m, p)
            got = counted(row, lambda args=args, c=compiled: c(*args), p.size(1), dev)
            same &= bool(torch.equal(got, want))
        row["compiles"], row["tokens_match"] = row["compiles"] or 0, same
        out.append(row)
    return out


def run(cfg: TrapsConfig, *, commit: str | None = None,
        progress: Callable[[str], None] = lambda _: None,
        on_row: Callable[[dict[str, Any]], None] = lambda _: None) -> dict[str, Any]:
    """The results document of the traps asked for; ``on_row`` sees it after every trap."""
    cfg = cfg.resolve()
    dev = torch.device(cfg.device)
    doc = results.new_document(KIND, results.provenance(dev, cfg.settings(), commit=commit))
    # Off, every compile counted here is that trap's own, not a graph an earlier one cached.
    try:
        with torch._inductor.config.patch(fx_graph_cache=False), \
                backends.DEFAULT[dev.type].apply(), torch.no_grad():
            base, prompt = base_and_prompt(cfg, 1)
            eager_tokens = M.generate(base, prompt, cfg.steps)
            for trap in cfg.traps:
                progress(f"{cfg.size}: {trap}")
                torch._dynamo.reset()  # each trap's counts start from an empty Dynamo cache
                try:
                    if trap == "prompt-lengths":
                        found = prompt_lengths(cfg, base, dev)
                    else:
                        fn = growing_cache if trap == "growing-cache" else item_sync
                        found = fn(cfg, base, prompt, eager_tokens, dev)
                except Exception as exc:  # one trap's fault is its row; the others go on
                    found = [{**new_row(cfg, trap, "all"), **dict(zip(
                        ("status", "message"), rows.fault(exc), strict=True))}]
                for row in found:
                    if row["tokens_match"] is False and cfg.dtype == "fp32":
                        row["status"] = rows.Status.MISMATCH.value
                        row["message"] = "tokens differ from eager's"
                doc["rows"] += found
                on_row(doc)
    finally:
        torch._dynamo.reset()
    doc["complete"] = True
    return doc


TOOL = command.Tool(PROG, KIND, TrapsConfig, DEFAULTS, run,
                    recording.Printer(markdown=tables.traps_table), output_required=True)
main, parser = TOOL.main, TOOL.parser


if __name__ == "__main__":
    raise SystemExit(main())
