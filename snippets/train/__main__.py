"""``python -m snippets.train``: flags onto one TrainConfig, rows onto a file, a table out.

Thin on purpose, and the same as ``python -m snippets.bench`` wherever the two meet: the measuring
is in ``snippets.train``, the tables in ``snippets.train.tables``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from snippets import train
from snippets.core import cli, config, results
from snippets.train import classifiers, compare, tables
from snippets.train.step import VARIANTS

PROG = "python -m snippets.train"


def _variant(text: str) -> str:
    if text not in VARIANTS:
        raise ValueError(f"unknown variant {text!r}; choose from {', '.join(VARIANTS)} or all")
    return text


def _variants(text: str) -> tuple[str, ...]:
    return VARIANTS if text.strip() == "all" else cli.csv_of(_variant, "variant")(text)


def parser() -> cli.Parser:
    d = train.DEFAULTS

    def default(name: str, unit: str = "") -> str:
        return config.help_default(d, name, unit)

    p = cli.Parser(prog=PROG, description="Time a training step, eager against torch.compile, "
                                          "and check that each variant learns as eager does.")
    cli.add_models(p, tuple(classifiers.BUILTIN), default, logits=True)
    p.add_argument("--variants", type=_variants,
                   help=f"comma-separated from {', '.join(VARIANTS)}, or all; eager is always "
                        f"run {default('variants')}")
    p.add_argument("--dtype", choices=list(train.DTYPES),
                   help=f"{default('dtype')}; bf16 is autocast, the weights and optimizer "
                        "state stay fp32")
    cli.add_common(p, default)
    p.add_argument("--steps", type=cli.positive,
                   help=f"steps from the same start whose losses are set against eager's "
                        f"{default('steps')}")
    p.add_argument("--profile-steps", type=cli.non_negative,
                   help=f"steps of each variant profiled after the timing, 0 for none "
                        f"{default('profile_steps')}")
    cli.add_output(p)
    p.add_argument("--append", action="store_true",
                   help="add this run's rows to the --output file, which must hold a run of "
                        "the same settings on the same device (a run split over commands)")
    p.add_argument("--compare", type=Path, metavar="FILE",
                   help="print this run beside a recorded results file; settings that differ "
                        "(dtype, optimizer, TF32, device) are named above the table")
    return p


def config_from_args(argv: list[str] | None) -> tuple[train.TrainConfig, object]:
    args = parser().parse_args(argv)
    device = cli.device(PROG, args.device)
    user, only_user = cli.user_models(PROG, args.model, "--models" in " ".join(argv or sys.argv))
    cli.check_append(PROG, args.append, args.output)
    cfg = train.TrainConfig(
        models=() if only_user else args.models, factories=user, batch_sizes=args.batch_sizes,
        variants=args.variants, dtype=args.dtype, device=device, steps=args.steps,
        rounds=args.rounds, warm_rounds=args.warm_rounds, profile_steps=args.profile_steps,
    ).resolve()
    return cfg, args


PRINT = cli.Printer(markdown=lambda doc: tables.markdown_table(doc["rows"]),
                    rich=compare.rich_table, compare_markdown=compare.compare_markdown,
                    compare_rich=compare.compare_table)


def main(argv: list[str] | None = None) -> int:
    cfg, args = config_from_args(argv)
    commit = cli.commit_from_env()

    def joinable(old: dict) -> None:
        train.check_joinable(old, results.provenance(torch.device(cfg.device), cfg.settings()))

    return cli.record(
        PROG, args, train.KIND, lambda progress, on_row, _: train.document(
            cfg, progress, on_row=on_row, commit=commit),
        lambda doc, recorded: PRINT(doc, args.format, recorded),
        joinable=joinable, join=train.join)


if __name__ == "__main__":
    raise SystemExit(main())
