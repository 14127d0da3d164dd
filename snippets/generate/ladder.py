"""``python -m snippets.generate.ladder``: the decode ladder, one change per rung."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import torch
import torch._dynamo.config
import torch._inductor.config

from snippets.core import backends, config, cudagraph, measure, recording, results
from snippets.core import roofline, rows
from snippets.core import profile as profiler
from snippets.core.counters import cudagraph_skips
from snippets.generate import DTYPES, base_and_prompt, check_cache, command, int8, kinds, tables
from snippets.generate import runs, weight_bytes
from snippets.generate.int8 import Unsupported
from snippets.generate import model as M

PROG = "python -m snippets.generate.ladder"
KIND = kinds.LADDER.name
RUNGS = ("eager", "compile", "fullgraph", "cudagraphs", "gqa", "coordinate-descent", "int8",
         "eager-graphed")
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
    the copy bandwidth.

    Attributes:
        size: decoder size: {choices}
        batch: sequences decoded together
        rungs: comma-separated from {choices}, or all; eager always runs (default: all)
        prompt: prompt length; the step is timed at the position after it
        cache: cache length in positions, at least the prompt plus --steps
        steps: greedy tokens each rung generates, compared with eager's
        profile: profile the fastest compiled rung: kernels per token, idle share, top kernels
    """

    device: str = "auto"
    size: str | None = config.option(None, choices=tuple(M.SIZES), what="size")
    batch: int = config.option(1, positive=True)
    rungs: tuple[str, ...] = config.option(RUNGS, choices=RUNGS, what="rung", every=True)
    rounds: int | None = config.option(None, positive=True)
    prompt: int | None = config.option(None, positive=True)
    cache: int | None = config.option(None, positive=True)
    steps: int | None = config.option(None, positive=True)
    profile: bool = False
    dtype: str | None = config.option(None, choices=tuple(DTYPES))
    sample_ms: float | None = None
    profile_calls: int = 20  # decode steps profiled: enough for every kernel to recur

    def __post_init__(self) -> None:
        config.check(self)
        check_cache(self.cache, self.prompt, self.steps)

    def resolve(self) -> LadderConfig:
        return config.resolve(self, DEFAULTS)

    def settings(self) -> dict[str, Any]:
        return {**{k: v for k, v in asdict(self).items() if k != "device"},
                "rungs": list(self.rungs), "position": self.prompt,
                "recompile_limit": runs.RECOMPILE_LIMIT, "fx_graph_cache": False,
                "inductor_cache": backends.cold_cache_setting("rung"),
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

    def check(self, device: torch.device) -> None:
        """CUDA graphs, Inductor's or by hand, need a CUDA device: a row says so elsewhere."""
        if (self.mode == "reduce-overhead" or self.by_hand) and device.type != "cuda":
            raise Unsupported("CUDA graphs: CUDA only")


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



def new_row(cfg: LadderConfig, rung: Rung) -> dict[str, Any]:
    return {"model": cfg.size, "batch_size": cfg.batch, "rung": rung.name, "status": "ok",
            "message": "", "compile_s": None, "step_ms": None, "tokens_per_s": None,
            "bytes_per_step": None, "gbps": None, "of_copy_bw": None, "speedup": None,
            "speedup_prev": None, "tokens": [], "first_diff": None, "logit_gap": None,
            "recipe": rung.recipe()}


def build(rung: Rung, base: M.Decoder, prompt: torch.Tensor, pos: torch.Tensor, steps: int,
          device: torch.device, row: dict[str, Any]) -> Callable[[], torch.Tensor]:
    """One rung on its own copy of the weights and cache: compiled (its first step timed), its
    greedy tokens generated; ``row`` filled with what that found."""
    rung.check(device)
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
        skips = cudagraph_skips()
        _, seconds = measure.time_first_call(lambda: step(m, token, pos), device)
        if rung.mode == "reduce-overhead":
            # Inductor runs a graph without CUDA graphs where it cannot record one (a CPU
            # tensor, an input mutated where it may not be) and counts it
            # (torch/_inductor/cudagraph_utils.py, log_cudagraph_skip_and_bump_counter): the
            # row says whether its rung ran as one.
            row["cudagraph_skips"] = cudagraph_skips() - skips
        row["compile_s"] = seconds if rung.mode is not None else None  # eager compiles nothing
    row["tokens"] = M.generate(m, prompt, steps, step=step).cpu().tolist()
    row["bytes_per_step"] = weight_bytes.step_bytes(m, prompt.size(0), int(pos))
    return lambda: step(m, token, pos)


def run(cfg: LadderConfig, *, commit: str | None = None,
        progress: Callable[[str], None] = lambda _: None,
        on_row: Callable[[dict[str, Any]], None] = lambda _: None) -> dict[str, Any]:
    """The results document of one ladder; ``on_row`` sees it after every row."""
    cfg = cfg.resolve()
    dev, at = torch.device(cfg.device), f"{cfg.size} bs={cfg.batch}"
    progress("ceilings")
    ceil = roofline.ceilings(dev)
    doc = results.new_document(KIND, results.provenance(dev, cfg.settings(), commit=commit),
                               ceilings=ceil)
    chosen = [r for r in ladder(dev.type) if r.name in cfg.rungs or r.mode is None]
    built: dict[str, Callable[[], torch.Tensor]] = {}
    with runs.run_settings(dev):
        base, prompt = base_and_prompt(cfg, cfg.batch)
        pos = torch.tensor([cfg.prompt], device=dev)
        eager_tokens = M.generate(base, prompt, cfg.steps)
        torch._dynamo.reset()  # nothing compiled before the ladder serves one of its rungs
        for rung in chosen:
            progress(f"{at}: {rung.name}")
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
            runs.tokens_checked(row, eager_tokens.tolist(), cfg.dtype == "fp32" and not rung.int8)
            doc["rows"].append(row)
            on_row(doc)
        progress(f"{at}: timing")
        timed = runs.time_together(dict(built), dev, cfg, doc, lambda r: r["rung"], warmup=2)
        prev = None
        for row in doc["rows"] if timed else ():
            name = row["rung"]
            if name not in built:
                continue
            m = timed[name]
            rows.finish(row, m, calls=timed.calls[name], baseline=timed.measurements.get("eager"),
                        field="step_ms", rate=False)
            runs.read_rate(row, m, cfg.batch, ceil["copy_gbps"])
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
            progress(f"{at}: profiling {best['rung']}")
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
