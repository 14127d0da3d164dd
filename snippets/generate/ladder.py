"""``python -m snippets.generate.ladder``: the decode ladder, one change per rung."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

import torch
import torch._dynamo.config
import torch._inductor.config
from torch._dynamo.utils import counters

from snippets.core import backends, config, cudagraph, measure, recording, results
from snippets.core import roofline, rows
from snippets.core import profile as profiler
from snippets.generate import command, int8, kinds, tables, weight_bytes
from snippets.generate.int8 import Unsupported
from snippets.generate import model as M

PROG = "python -m snippets.generate.ladder"
KIND = kinds.LADDER.name
RUNGS = ("eager", "compile", "fullgraph", "cudagraphs", "gqa", "coordinate-descent", "int8",
         "eager-graphed")
DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
# Every rung compiles ``decode_step``'s one code object again (another model copy, another
# option), and Dynamo keeps each compile as an entry on that code object, falling back to eager
# once a frame has ``recompile_limit`` (8) of them (torch/_dynamo/cache_size.py,
# exceeds_recompile_limit). One ladder makes five; two in one process (a test run, a site build)
# would pass 8 and time eager under a compiled rung's name.
RECOMPILE_LIMIT = 64
UNSUPPORTED = rows.Status.UNSUPPORTED.value

# On a GPU, the page's position (after a 128-token prompt, in a 512-position cache) in bf16; on
# a CPU, the tiny decoder in fp32, where greedy tokens must match eager's exactly.
DEFAULTS: dict[str, dict[str, Any]] = {
    "cuda": {"size": "1b", "dtype": "bf16", "prompt": 128, "cache": 512, "steps": 16,
             "rounds": 20, "sample_ms": 50.0},
    "cpu": {"size": "tiny", "dtype": "fp32", "prompt": 16, "cache": 64, "steps": 16,
            "rounds": 15, "sample_ms": 20.0},
}


@dataclass(frozen=True, kw_only=True)
class LadderConfig:
    """The decode ladder: one change per rung, every rung timed in the same rounds against
    the copy bandwidth."""

    device: str = "auto"
    size: str | None = config.option(None, choices=tuple(M.SIZES), what="size")
    """decoder size: {choices}"""
    batch: int = config.option(1, positive=True)
    """sequences decoded together"""
    rungs: tuple[str, ...] = config.option(RUNGS, choices=RUNGS, what="rung", every=True)
    """comma-separated from {choices}, or all; eager always runs (default: all)"""
    rounds: int | None = config.option(None, positive=True)
    prompt: int | None = config.option(None, positive=True)
    """prompt length; the step is timed at the position after it"""
    cache: int | None = config.option(None, positive=True)
    """cache length in positions, at least the prompt plus --steps"""
    steps: int | None = config.option(None, positive=True)
    """greedy tokens each rung generates, compared with eager's"""
    profile: bool = False
    """profile the fastest compiled rung: kernels per token, idle share, top kernels"""
    dtype: str | None = config.option(None, choices=tuple(DTYPES))
    sample_ms: float | None = None
    profile_calls: int = 20  # decode steps profiled: enough for every kernel to recur

    def __post_init__(self) -> None:
        config.check(self)
        if None not in (self.prompt, self.cache, self.steps) and (
                self.cache < self.prompt + self.steps):
            raise config.ConfigError("cache", f"cache of {self.cache} positions is shorter than "
                                     f"the prompt ({self.prompt}) plus --steps ({self.steps})")

    def resolve(self) -> LadderConfig:
        return config.resolve(self, DEFAULTS)

    def settings(self) -> dict[str, Any]:
        return {**{k: v for k, v in asdict(self).items() if k != "device"},
                "rungs": list(self.rungs), "position": self.prompt,
                "recompile_limit": RECOMPILE_LIMIT, "fx_graph_cache": False,
                "inductor_cache": "empty per rung (core.backends.cold_cache)",
                "backends": backends.DEFAULT[config.device_type(self.device)].as_dict(),
                "dynamic": "False for the whole step (fullgraph rungs), default for compile"}


@dataclass(frozen=True)
class Rung:
    name: str
    mode: str | None = None  # None: eager
    whole_step: bool = False  # the whole decode step compiled, argmax included
    gqa: bool = False
    descent: bool = False
    int8: bool = False
    by_hand: bool = False  # eager's step captured in a CUDA graph by hand: a side rung, no compile

    def recipe(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "name"}


def ladder(device_type: str) -> list[Rung]:
    """Each rung keeps what the one below did and adds one thing; on a CPU, where there are no
    CUDA graphs, the rungs above them add theirs to the fullgraph rung."""
    replay = "reduce-overhead" if device_type == "cuda" else "default"
    step = dict(mode=replay, whole_step=True)
    return [Rung("eager"), Rung("compile", "default"),
            Rung("fullgraph", "default", whole_step=True),
            Rung("cudagraphs", "reduce-overhead", whole_step=True),  # a CPU row says why not
            Rung("gqa", **step, gqa=True), Rung("coordinate-descent", **step, gqa=True,
                                                 descent=True),
            Rung("int8", **step, gqa=True, descent=True, int8=True),
            Rung("eager-graphed", by_hand=True)]


# Coordinate descent is a compile option, not a global patch: Dynamo reuses a compiled entry whose
# backend compares equal, and Inductor's compares by its options (torch/__init__.py,
# _TorchCompileInductorWrapper.__eq__), so a patch would leave the rung on the rung below's kernels.
# --8<-- [start:rungs]
def step_of(rung, model, step=M.decode_step):
    """A rung's decode step: ``step(model, token, pos)`` to the next token."""
    if rung.mode is None:
        return step
    if not rung.whole_step:  # the forward compiled; argmax in eager
        forward = torch.compile(model)
        return lambda m, token, pos: forward(token, pos)[:, -1:].argmax(-1)
    options = dict(torch._inductor.list_mode_options(rung.mode))
    if rung.descent:  # gpt-fast sets it: Inductor tunes its own kernels' tiles
        options["coordinate_descent_tuning"] = True
    return torch.compile(step, fullgraph=True, dynamic=False,
                         options=options)
# --8<-- [end:rungs]
def graph_step(model, token, pos, step=M.decode_step):
    """Eager's decode step captured in one CUDA graph for ``token`` and ``pos``'s shapes: each
    call copies its token and position into the graph's buffers and replays it."""
    graphed = cudagraph.Graphed(lambda t, p: step(model, t, p), (token, pos),
                                keep_outputs=False)  # ``M.generate`` clones each token
    return lambda m, token, pos: graphed((token, pos))



@dataclass
class Built:
    model: M.Decoder
    step: Callable[..., torch.Tensor]
    token: torch.Tensor
    pos: torch.Tensor

    def __call__(self) -> torch.Tensor:
        return self.step(self.model, self.token, self.pos)


def new_row(cfg: LadderConfig, rung: Rung) -> dict[str, Any]:
    return {"model": cfg.size, "batch_size": cfg.batch, "rung": rung.name, "status": "ok",
            "message": "", "compile_s": None, "step_ms": None, "tokens_per_s": None,
            "bytes_per_step": None, "gbps": None, "of_copy_bw": None, "speedup": None,
            "speedup_prev": None, "tokens": [], "first_diff": None, "logit_gap": None,
            "recipe": rung.recipe()}


def build(rung: Rung, base: M.Decoder, prompt: torch.Tensor, pos: torch.Tensor, steps: int,
          device: torch.device, row: dict[str, Any]) -> Built:
    """One rung on its own copy of the weights and cache: compiled (its first step timed), its
    greedy tokens generated; ``row`` filled with what that found."""
    if (rung.mode == "reduce-overhead" or rung.by_hand) and device.type != "cuda":
        raise Unsupported("CUDA graphs need a CUDA device")
    m = M.sibling(base)  # its own cache, the weights shared: a 7 B ladder holds them once
    m.set_gqa(rung.gqa)
    if rung.int8:
        # torchao's (every linear layer, the head too); generate.loop times the package's beside it
        int8.torchao_int8(m)
    token = M.prefill(m, prompt)  # the prompt in eager, the same for every rung
    if rung.by_hand:
        # The capture is this rung's first call: a few eager steps and one recorded; no compile.
        step, row["capture_s"] = measure.time_first_call(
            lambda: graph_step(m, token, pos), device)
    else:
        step = step_of(rung, m)
        skips = counters["inductor"]["cudagraph_skips"]
        _, seconds = measure.time_first_call(lambda: step(m, token, pos), device)
        if rung.mode == "reduce-overhead":
            # Inductor runs a graph without CUDA graphs where it cannot record one (a CPU
            # tensor, an input mutated where it may not be) and counts it
            # (torch/_inductor/cudagraph_utils.py, log_cudagraph_skip_and_bump_counter): the
            # row says whether its rung ran as one.
            row["cudagraph_skips"] = counters["inductor"]["cudagraph_skips"] - skips
        row["compile_s"] = seconds if rung.mode is not None else None  # eager compiles nothing
    row["tokens"] = M.generate(m, prompt, steps, step=step).cpu().tolist()
    row["bytes_per_step"] = weight_bytes.step_bytes(m, prompt.size(0), int(pos))
    return Built(m, step, token, pos)


@contextlib.contextmanager
def run_settings(device: torch.device) -> Iterator[None]:
    """The process-wide switches a ladder runs under, restored after it."""
    # Off, each rung's compile_s is its own compile, not a hit on a graph an earlier rung (or an
    # earlier run) left in Inductor's cache.
    with torch._dynamo.config.patch(recompile_limit=RECOMPILE_LIMIT), \
            torch._inductor.config.patch(fx_graph_cache=False), \
            backends.DEFAULT[device.type].apply(), torch.no_grad():
        yield


def run(cfg: LadderConfig, *, commit: str | None = None,
        progress: Callable[[str], None] = lambda _: None,
        on_row: Callable[[dict[str, Any]], None] = lambda _: None) -> dict[str, Any]:
    """The results document of one ladder; ``on_row`` sees it after every row."""
    cfg = cfg.resolve()
    dev, dtype = torch.device(cfg.device), DTYPES[cfg.dtype]
    progress("measuring the device's matmul rate and copy bandwidth")
    ceil = roofline.ceilings(dev)
    doc = results.new_document(KIND, results.provenance(dev, cfg.settings(), commit=commit),
                               ceilings=ceil)
    chosen = [r for r in ladder(dev.type) if r.name in cfg.rungs or r.mode is None]
    built: dict[str, Built] = {}
    with run_settings(dev):
        base = M.build(cfg.size, dev, dtype)
        base.setup_cache(cfg.batch, cfg.cache)
        gen = torch.Generator().manual_seed(0)
        prompt = torch.randint(0, base.shape.vocab, (cfg.batch, cfg.prompt), generator=gen)
        prompt = prompt.to(dev)
        pos = torch.tensor([cfg.prompt], device=dev)
        eager_tokens = M.generate(base, prompt, cfg.steps)
        torch._dynamo.reset()  # nothing compiled before the ladder serves one of its rungs
        for rung in chosen:
            progress(f"{cfg.size} bs={cfg.batch}: {rung.name}")
            row = new_row(cfg, rung)
            try:
                # An empty Inductor cache per rung: its compile_s is its own, not a load of kernels
                # an earlier rung compiled. Dynamo keeps the earlier rungs: they are timed below.
                with backends.cold_cache(reset=False):
                    built[rung.name] = build(rung, base, prompt, pos, cfg.steps, dev, row)
                row["message"] = "not timed yet"  # until the rounds below finish
            except Unsupported as exc:
                row["status"], row["message"] = UNSUPPORTED, str(exc)
            except Exception as exc:  # one rung's fault is its row; the ladder goes on
                row["status"], row["message"] = rows.fault(exc)
                if dev.type == "cuda":
                    torch.cuda.empty_cache()
            if row["tokens"]:
                row["first_diff"] = M.first_diff(torch.tensor(row["tokens"]), eager_tokens)
                if row["first_diff"] is not None and dtype == torch.float32 and not rung.int8:
                    row["status"] = rows.Status.MISMATCH.value
            doc["rows"].append(row)
            on_row(doc)
        progress(f"{cfg.size} bs={cfg.batch}: timing {len(built)} rungs together")
        before = counters["stats"]["unique_graphs"]
        try:
            timed = measure.measure_variants(dict(built), dev, rounds=cfg.rounds,
                                             sample_ms=cfg.sample_ms, warmup=2)
            # 0 where every timed call ran what its rung compiled before: the evidence that
            # no rung's time holds a compile (or, past the limit, eager code).
            doc["compiles_while_timed"] = counters["stats"]["unique_graphs"] - before
        except Exception as exc:  # a replay that fails leaves the built rows, untimed
            for row in doc["rows"]:
                if row["rung"] in built:
                    row["status"], row["message"] = rows.fault(exc)
            built.clear()
        prev = None
        for row in doc["rows"]:
            name = row["rung"]
            if name not in built:
                continue
            m = timed[name]
            row["message"] = ("" if row["status"] != rows.Status.MISMATCH.value else
                              f"greedy tokens differ from eager's from step {row['first_diff']}")
            rows.finish(row, m, calls=timed.calls[name], baseline=timed.measurements.get("eager"),
                        field="step_ms", rate=False)
            row["tokens_per_s"] = cfg.batch * 1e3 / m.median
            row["gbps"] = row["bytes_per_step"] / (m.median * 1e-3) / 1e9
            row["of_copy_bw"] = row["gbps"] / ceil["copy_gbps"]
            # The side rung stands on eager, not on the rung listed before it, and no rung on it.
            below = "eager" if row["recipe"]["by_hand"] and "eager" in built else prev
            row["speedup_prev"] = measure.speedup(timed[below], m).value if below else None
            row["prev_rung"] = below  # the rung below as timed: one that could not run is skipped
            prev = prev if row["recipe"]["by_hand"] else name
            if row["first_diff"] is not None and name != "eager":
                # eager's own model (its cache set up again): ``base`` is timed nowhere
                row["logit_gap"] = M.logit_gap(base, prompt, eager_tokens, row["first_diff"])
        on_row(doc)
        # The fastest compiled rung, the one the finding reports (a loaded CPU's eager can win)
        best = min((r for r in doc["rows"] if rows.timed(r, "step_ms")),
                   key=lambda r: (r["rung"] == "eager", r["step_ms"]["median"]), default=None)
        if cfg.profile and best is not None:
            progress(f"{cfg.size} bs={cfg.batch}: profiling {best['rung']}")
            best["profile"] = profiler.profile_or_error(
                built[best["rung"]], dev, cfg.profile_calls, lambda exc: rows.fault(exc)[1])
            doc["profiled"] = best["rung"]
    doc["complete"] = True
    return doc


TOOL = command.Tool(PROG, KIND, LadderConfig, DEFAULTS, run,
                    recording.Printer(markdown=tables.ladder_table), output_required=True)
main, parser = TOOL.main, TOOL.parser


if __name__ == "__main__":
    raise SystemExit(main())
