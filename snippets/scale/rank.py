"""``python -m snippets.scale.rank``: one rank of one configuration, started by PyTorch's
launcher."""

from __future__ import annotations

import json
import logging
import math
import os
import socket
import time
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

from snippets.core import backends, cli, measure, models, profile, rows
from snippets.scale import wrap
from snippets.scale.models import factory
from snippets.train import DTYPES, FIRST_STEPS, optimizer_for

PROG = "python -m snippets.scale.rank"


def parser() -> cli.Parser:
    """The rank's flags, as ``Job.rank_args`` writes them (no help: none are a user's)."""
    p = cli.Parser(prog=PROG)
    p.add_argument("--model", required=True)
    p.add_argument("--strategy", choices=wrap.STRATEGIES, required=True)
    p.add_argument("--variant", choices=wrap.VARIANTS, required=True)
    p.add_argument("--batch-size", type=cli.positive, required=True)
    p.add_argument("--device", choices=("cpu", "cuda"), required=True)
    p.add_argument("--dtype", choices=list(DTYPES), default="fp32")
    p.add_argument("--steps", type=cli.positive, default=5)
    p.add_argument("--warmup", type=cli.non_negative, default=2)
    p.add_argument("--rounds", type=cli.positive, default=3)
    p.add_argument("--profile-steps", type=cli.non_negative, default=0)
    p.add_argument("--bucket-cap-mb", type=float, default=wrap.DDP_BUCKET_MB)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, required=True)
    return p


def batch(spec: str, global_batch: int, rank: int, per_rank: int,
          seed: int) -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    """The seeded model, and this rank's slice of the one whole batch and its labels."""
    torch.manual_seed(seed)
    model, x = models.build(factory(spec), spec, global_batch)
    with torch.no_grad():
        classes = model.eval()(x[:1]).shape[-1]
    y = torch.randint(0, classes, (global_batch,), generator=torch.Generator().manual_seed(seed))
    part = slice(rank * per_rank, (rank + 1) * per_rank)
    return model.train(), x[part], y[part]


def _counts() -> dict[str, Any]:
    """What Dynamo and the compilers made here; ``compiled_graphs`` counts each piece of a graph
    DDP split at its buckets."""
    from torch._dynamo.utils import counters

    reasons = counters["graph_break"]
    return {"graph_count": int(counters["stats"]["unique_graphs"]),
            "ops_captured": int(counters["stats"]["calls_captured"]),
            "compiled_graphs": int(counters["aot_autograd"]["total"]),
            "compiled_autograd_graphs": int(counters["compiled_autograd"]["compiles"]),
            "graph_breaks": int(sum(reasons.values())),
            # the first line of each of Dynamo's messages names the cause
            "break_reasons": list(dict.fromkeys(
                next((ln.strip() for ln in str(r).splitlines() if ln.strip()), "")
                for r in reasons))}


def train(args: Any, rank: int, local_rank: int, world: int, rec: dict[str, Any]) -> None:
    """Train this rank's configuration, filling ``rec`` as it goes (a fault keeps it)."""
    cuda = args.device == "cuda"
    device = torch.device("cuda", local_rank) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
        rec["device"] = torch.cuda.get_device_name(device)
    mesh = None
    if args.strategy != "single":
        started = time.perf_counter()
        # NCCL between GPUs, gloo between CPU processes: PyTorch's two standard backends.
        dist.init_process_group("nccl" if cuda else "gloo", device_id=device if cuda else None)
        if args.strategy == "fsdp2":
            from torch.distributed.device_mesh import init_device_mesh

            mesh = init_device_mesh(device.type, (world,))
        rec["init_s"] = time.perf_counter() - started
    model, x, y = batch(args.model, args.batch_size * world, rank, args.batch_size, args.seed)
    wrap.check_blocks(model, args.variant)
    rec["batch_norm"] = any(isinstance(m, nn.modules.batchnorm._BatchNorm)
                            for m in model.modules())
    model, x, y = model.to(device), x.to(device), y.to(device)
    model = wrap.prepare(model, args.strategy, args.variant, device, mesh, args.bucket_cap_mb)
    optimizer = optimizer_for(model, args.lr)  # after wrapping: FSDP2's weights are its shards
    step = wrap.make_step(args.variant, model, optimizer, DTYPES[args.dtype])
    for i in range(args.steps):
        with measure.Stopwatch(device) as watch:
            loss = step(x, y)
        if i < FIRST_STEPS:
            rec["first_steps_s"].append(watch.seconds)
            rec["compile_s"] = sum(rec["first_steps_s"])
        value = loss.item()
        rec["losses"].append(value if math.isfinite(value) else None)  # JSON has no NaN
    for _ in range(args.warmup):
        step(x, y)
    if cuda:
        torch.cuda.reset_peak_memory_stats(device)
    for _ in range(args.rounds):
        with measure.Stopwatch(device) as watch:
            step(x, y)
        rec["step_ms"].append(watch.seconds * 1e3)
    if cuda:  # what the rank holds (weights, gradients, optimizer state) and a step's peak
        rec["peak_mem_mb"] = torch.cuda.max_memory_allocated(device) / 2**20
    if args.profile_steps:
        # After the timing, which the profiler would slow. Every rank profiles the same steps,
        # so their collectives still meet; where the GPU sat idle, and how much of its kernel
        # time NCCL's collectives took, say what a step waits for.
        rec["profile"] = profile.profile_or_error(lambda: step(x, y), device,
                                                  args.profile_steps, lambda e: fault(e)[1])


def fault(exc: BaseException) -> tuple[str, str]:
    """(status, message); Dynamo's Unsupported and NoBlocks are "unsupported"."""
    if isinstance(exc, wrap.NoBlocks):
        return "unsupported", str(exc)
    if isinstance(exc, torch._dynamo.exc.Unsupported):
        return "unsupported", rows.fault(exc)[1]
    return rows.fault(exc)


def run(args: Any, rank: int, local_rank: int, world: int) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "rank": rank, "local_rank": local_rank, "world_size": world,
        "host": socket.gethostname(), "pid": os.getpid(), "device": "CPU",
        "threads": torch.get_num_threads(), "status": "ok", "message": "", "init_s": None,
        "compile_s": None, "first_steps_s": [], "losses": [], "step_ms": [],
        "peak_mem_mb": None, "batch_norm": None, "profile": None}
    why = wrap.compiled_autograd_missing() if args.variant == "compiled-autograd" else None
    if why:
        return {**rec, "status": "unsupported", "message": why}
    try:
        with backends.DEFAULT[args.device].apply():  # TF32 and cuDNN's autotuner on CUDA
            train(args, rank, local_rank, world, rec)
    except models.SpecError:
        raise
    except Exception as exc:
        rec["status"], rec["message"] = fault(exc)
        # When: a rank's fault makes the others fail too (their collective loses its peer), and
        # the earliest fault is the cause.
        rec["failed_at"] = time.time()
    return {**rec, **_counts()}


def main(argv: list[str] | None = None) -> int:
    # Inductor's C++ backend logs "No CUDA runtime is found" on every CPU-only machine: expected.
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    args = parser().parse_args(argv)
    # Who this process is: torchrun's environment, read once, here at the edge.
    try:
        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        local_rank = int(os.environ["LOCAL_RANK"])
    except (KeyError, ValueError):
        cli.fail(PROG, "RANK unset: start with torchrun")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        cli.fail(PROG, f"--out {args.out}: {exc.strerror}")
    try:
        rec = run(args, rank, local_rank, world)
    except models.SpecError as exc:
        cli.fail(PROG, str(exc))
    path = args.out / f"rank{rank}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(rec, allow_nan=False))
    tmp.replace(path)  # the parent never reads half a record
    if rec["status"] != "ok":
        # Out now, without a goodbye to the process group: the other ranks may be waiting in a
        # collective this rank never joins, and the launcher stops them once it sees this exit.
        os._exit(1)
    if dist.is_initialized():
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
