"""``python -m snippets.scale``: flags onto one ScaleConfig, each configuration launched with
torchrun, rows onto a file, a table out.

Thin on purpose, and the same as ``python -m snippets.train`` wherever the two meet: the measuring
is in ``snippets.scale``, the tables in ``snippets.scale.tables``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
import torch.distributed as dist
from rich.table import Table

from snippets import scale
from snippets.core import cli, config, results
from snippets.scale import models as scale_models
from snippets.scale import tables
from snippets.scale.wrap import STRATEGIES, VARIANTS
from snippets.train import DTYPES

PROG = "python -m snippets.scale"


def _variants(text: str) -> tuple[str, ...]:
    if text.strip() == "all":
        return VARIANTS
    return cli.csv_of(cli.one_of(VARIANTS, "variant"), "variant")(text)


def _megabytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not value > 0:
        raise ValueError(f"{text} MB is not a positive size")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def parser() -> cli.Parser:
    d = scale.DEFAULTS

    def default(name: str, unit: str = "") -> str:
        return config.help_default(d, name, unit)

    p = cli.Parser(prog=PROG, description="Train a step with DDP and FSDP2 over several "
                                          "processes, launched with torchrun, eager and "
                                          "compiled, against the same step in one process.")
    cli.add_models(p, tuple(scale_models.BUILTIN), default, logits=True, batch_sizes=False)
    p.add_argument("--strategies", type=cli.csv_of(cli.one_of(STRATEGIES, "strategy"), "strategy"),
                   help=f"comma-separated from {', '.join(STRATEGIES)}; single is one process "
                        f"over the whole batch, the reference {default('strategies')}")
    p.add_argument("--variants", type=_variants,
                   help=f"comma-separated from {', '.join(VARIANTS)}, or all "
                        f"{default('variants')}")
    p.add_argument("--batch-size", type=cli.positive,
                   help=f"samples per rank {default('batch_size')}")
    p.add_argument("--nproc", type=cli.positive,
                   help=f"processes per node, one per GPU on CUDA {default('nproc')}")
    p.add_argument("--nodes", type=cli.positive, default=1,
                   help="launchers on this host, each a node of --nproc processes meeting the "
                        "others at a c10d rendezvous, as on a cluster (default: 1)")
    p.add_argument("--bucket-caps", type=cli.csv_of(_megabytes, "bucket size"),
                   help=f"DDP's bucket_cap_mb, comma-separated, a configuration each "
                        f"{default('bucket_caps', ' MB')}")
    p.add_argument("--dtype", choices=list(DTYPES),
                   help=f"{default('dtype')}; bf16 is autocast, the weights stay fp32")
    p.add_argument("--device", default="auto", help="auto (CUDA if present), cpu, cuda")
    p.add_argument("--steps", type=cli.positive,
                   help=f"steps whose losses are compared {default('steps')}")
    p.add_argument("--rounds", type=cli.positive,
                   help=f"steady steps timed one by one {default('rounds')}")
    p.add_argument("--profile-steps", type=cli.non_negative,
                   help=f"steps each rank profiles after the timed ones, 0 for none "
                        f"{default('profile_steps')}")
    p.add_argument("--timeout", type=_seconds,
                   help=f"seconds a configuration may take {default('timeout_s', ' s')}")
    p.add_argument("--inductor-cache", choices=("fresh", "shared"), default="fresh",
                   help="fresh: every configuration compiles with an empty Inductor cache, as "
                        "a new job does; shared: the one your environment names, warm after "
                        "the first (default: fresh)")
    cli.add_output(p)
    p.add_argument("--append", action="store_true",
                   help="add this run's rows to the --output file, which must hold a run of "
                        "the same settings on the same device (a run split over commands)")
    p.add_argument("--compare", type=Path, metavar="FILE",
                   help="print this run's step times beside a recorded results file's")
    return p


def _device(text: str) -> str:
    if text not in ("auto", "cpu", "cuda"):
        cli.fail(PROG, f"unknown device {text!r}; choose from auto, cpu, cuda (the ranks take "
                       "GPUs 0, 1, ... of the visible ones)")
    if text == "cuda" and not torch.cuda.is_available():
        cli.fail(PROG, "--device cuda asked for, but this machine has no CUDA device")
    return text


def _check_gpus(cfg: scale.ScaleConfig) -> None:
    found = torch.cuda.device_count() if cfg.device == "cuda" else cfg.world
    if found < cfg.world:
        cli.fail(PROG, f"{cfg.world} ranks need {cfg.world} GPUs; this machine has {found}")


def config_from_args(argv: list[str] | None) -> tuple[scale.ScaleConfig, object]:
    args = parser().parse_args(argv)
    if not dist.is_available():
        cli.fail(PROG, f"torch {torch.__version__} was built without torch.distributed")
    user, only_user = cli.user_models(PROG, args.model, "--models" in " ".join(argv or sys.argv))
    cli.check_append(PROG, args.append, args.output)
    cfg = scale.ScaleConfig(
        models=(*(() if only_user else args.models or ()), *(s for s, _ in user)) or None,
        strategies=args.strategies, variants=args.variants, batch_size=args.batch_size,
        bucket_caps=args.bucket_caps, dtype=args.dtype, device=_device(args.device),
        steps=args.steps, rounds=args.rounds, profile_steps=args.profile_steps,
        timeout_s=args.timeout, nproc=args.nproc,
        nodes=args.nodes, inductor_cache=args.inductor_cache,
    ).resolve()
    _check_gpus(cfg)
    return cfg, args


def _rich(doc: dict) -> Table:
    table = Table(*tables.COLUMNS, title=results.stamp(doc, "this run"))
    for row in doc["rows"]:
        table.add_row(*tables.cells(row))
    return table


# The comparison is text in a terminal too: a list of step times, no table to draw.
PRINT = cli.Printer(markdown=lambda doc: tables.markdown_table(doc["rows"]), rich=_rich,
                    compare_markdown=tables.compare)


def main(argv: list[str] | None = None) -> int:
    cfg, args = config_from_args(argv)
    commit = cli.commit_from_env()

    def joinable(old: dict) -> None:
        scale.check_joinable(old, results.provenance(torch.device(cfg.device), cfg.settings()))

    return cli.record(
        PROG, args, scale.KIND, lambda progress, on_row, old: scale.document(
            cfg, progress, on_row=on_row, commit=commit, old=old),
        lambda doc, recorded: PRINT(doc, args.format, recorded), joinable=joinable)


if __name__ == "__main__":
    raise SystemExit(main())
