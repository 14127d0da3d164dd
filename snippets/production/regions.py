"""``python -m snippets.production.regions``: what ``torch.compiler.nested_compile_region`` saves
at start-up, each compile in a fresh process with an empty Inductor cache.

A stack of identical blocks (``apis.Block``, marked; ``apis.Plain``, the same block unmarked) is
compiled whole with Inductor, and the first call is timed from the compile to its answer: what a
service waits for before it can serve. Marked and unmarked alternate, one process each, so a
slow spell of the machine lands on both. A process that fails is a row with its message; the
file is written after every row, so an interrupted run keeps what it finished.

    python -m snippets.production.regions --output FILE [--blocks 24] [--repetitions 2] [--warm-up]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from snippets.core import cli, config, process, results
from snippets.production import apis

PROG = "python -m snippets.production.regions"
KIND = "production-regions"
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


def run(output: Path, device: str, blocks: int, repetitions: int,
        warm_up: bool = False) -> dict[str, Any]:
    dev = torch.device(config.resolve_device(device))
    settings = {"blocks": blocks, "repetitions": repetitions, "width": 64, "batch_size": 8,
                "dtype": "fp32", "backend": "inductor", "cache": "empty, one per process",
                "warm_up_process": warm_up}
    if warm_up:  # the machine's first process pays what later ones find done; not recorded
        in_fresh_process(VARIANTS[0], blocks, str(dev))
    doc = results.new_document(KIND, results.provenance(dev, settings,
                                                        commit=cli.commit_from_env()))
    for rep in range(1, repetitions + 1):
        order = VARIANTS if rep % 2 else tuple(reversed(VARIANTS))
        for variant in order:
            row = {"variant": variant, "blocks": blocks, "rep": rep,
                   **in_fresh_process(variant, blocks, str(dev))}
            doc["rows"].append(row)
            results.write_atomic(output, doc)
    doc["complete"] = True
    results.write_atomic(output, doc)
    return doc


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=PROG, description=(
        "Time the first call of a stack of identical blocks, marked with nested_compile_region "
        "and not, each in a fresh process with an empty Inductor cache."))
    p.add_argument("--output", type=Path, help="results file to write, row by row")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"),
                   help="auto (CUDA if present), cpu, cuda")
    p.add_argument("--blocks", type=int, default=24, help="blocks in the stack (default: 24)")
    p.add_argument("--repetitions", type=int, default=2,
                   help="processes per variant, alternating (default: 2)")
    p.add_argument("--warm-up", action="store_true",
                   help="run one process first and record nothing of it: a fresh machine's "
                        "first process pays costs that later ones find done")
    p.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.blocks < 1 or args.repetitions < 1:
        cli.fail(PROG, "--blocks and --repetitions must be 1 or more")
    if args.child:  # one process's measurement, as JSON on its last line
        print(json.dumps(first_call(args.child, args.blocks, torch.device(args.device))))
        return 0
    if args.output is None:
        cli.fail(PROG, "--output FILE is required")
    if args.device == "cuda" and not torch.cuda.is_available():
        cli.fail(PROG, "--device cuda: no CUDA device here")
    try:
        results.check_writable(args.output)
    except results.ResultsError as exc:
        cli.fail(PROG, str(exc))
    run(args.output, args.device, args.blocks, args.repetitions, args.warm_up)
    return 0


if __name__ == "__main__":
    sys.exit(main())
