"""``python -m snippets.production.regions``: what ``torch.compiler.nested_compile_region`` saves
at start-up, each compile in a fresh process with an empty Inductor cache."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from snippets.core import cli, config, flags, process, recording, results
from snippets.production import apis, kinds, tables

PROG = "python -m snippets.production.regions"
KIND = kinds.REGIONS.name
VARIANTS = ("unmarked", "nested_compile_region")


def first_call(variant: str, blocks: int, device: torch.device) -> dict[str, Any]:
    """In this process: the stack compiled, its first call timed whole, its answer checked."""
    block = apis.Block if variant == "nested_compile_region" else apis.Plain
    torch.manual_seed(0)
    model = torch.nn.Sequential(*(block() for _ in range(blocks))).to(device).eval()
    x = torch.randn(8, 64, device=device)
    with torch.no_grad():
        expected = model(x)
        t0 = time.perf_counter()
        out = torch.compile(model)(x)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        seconds = time.perf_counter() - t0
    same = torch.allclose(out, expected, rtol=1e-4, atol=1e-4)
    return {"compile_s": seconds, "status": "ok" if same else "mismatch", "message": ""}


def in_fresh_process(variant: str, blocks: int, device: str) -> dict[str, Any]:
    """``first_call`` in a new Python with an empty Inductor cache folder of its own."""
    with tempfile.TemporaryDirectory(prefix="regions-") as cache:
        env = process.child_env(TORCHINDUCTOR_CACHE_DIR=cache)
        env.pop("TRITON_CACHE_DIR", None)  # Triton's cache then lives in that folder, empty too
        proc = subprocess.run(
            [sys.executable, "-m", "snippets.production.regions", "--child", variant,
             "--blocks", str(blocks), "--device", device],
            env=env, capture_output=True, text=True, timeout=1200)
    if proc.returncode:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"compile_s": None, "status": "error", "message": last[:200]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


@dataclass(frozen=True, kw_only=True)
class RegionsConfig:
    """Time the first call of a stack of identical blocks, marked with nested_compile_region
    and not, each in a fresh process with an empty Inductor cache.

    Attributes:
        blocks: blocks in the stack
        repetitions: processes per variant, alternating
        warm_up: run one process first and record nothing of it: a fresh machine's first process
            pays costs that later ones find done
    """

    device: str = "auto"
    blocks: int = config.option(24, positive=True)
    repetitions: int = config.option(2, positive=True)
    warm_up: bool = False

    def __post_init__(self) -> None:
        config.check(self)

    def settings(self) -> dict[str, Any]:
        return {"blocks": self.blocks, "repetitions": self.repetitions, "width": 64,
                "batch_size": 8, "dtype": "fp32", "backend": "inductor",
                "cache": "empty, one per process", "warm_up_process": self.warm_up}


def document(cfg: RegionsConfig, progress: Callable[[str], None] = lambda _: None,
             on_row: Callable[[dict], None] = lambda _: None,
             commit: str | None = None) -> dict[str, Any]:
    dev = torch.device(config.resolve_device(cfg.device))
    if cfg.warm_up:  # the machine's first process pays what later ones find done; not recorded
        progress("a warm-up process, not recorded")
        in_fresh_process(VARIANTS[0], cfg.blocks, str(dev))
    doc = results.new_document(KIND, results.provenance(dev, cfg.settings(), commit=commit))
    for rep in range(1, cfg.repetitions + 1):
        order = VARIANTS if rep % 2 else tuple(reversed(VARIANTS))
        for variant in order:
            progress(f"{variant}, process {rep} of {cfg.repetitions}")
            doc["rows"].append({"variant": variant, "blocks": cfg.blocks, "rep": rep,
                                **in_fresh_process(variant, cfg.blocks, str(dev))})
            on_row(doc)
    doc["complete"] = True
    return doc


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(RegionsConfig))
    flags.declare(p, RegionsConfig)
    cli.add_output(p, ("markdown", "json"))
    p.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cfg = flags.build(PROG, RegionsConfig, args)
    if args.child:  # one process's measurement, as JSON on its last line
        print(json.dumps(first_call(args.child, cfg.blocks, torch.device(cfg.device))))
        return 0
    if args.output is None:
        cli.fail(PROG, "--output FILE is required")
    return recording.record_run(PROG, args, KIND, cfg, document,
                                recording.Printer(markdown=tables.regions))


if __name__ == "__main__":
    sys.exit(main())
