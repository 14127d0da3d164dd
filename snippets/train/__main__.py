"""``python -m snippets.train``: flags onto one TrainConfig, rows onto a file, a table out.

Thin on purpose, and the same as ``python -m snippets.bench`` wherever the two meet: the measuring
is in ``snippets.train``, the tables in ``snippets.train.tables``.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import torch
from rich.console import Console

from snippets import train
from snippets.core import cli, config, models, results
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
    builtin = cli.builtin_model(tuple(classifiers.BUILTIN))
    p.add_argument("--models", type=cli.csv_of(builtin, "model"),
                   help=f"built-in models, comma-separated: {', '.join(classifiers.BUILTIN)} "
                        f"{default('models')}")
    p.add_argument("--model", action="append", default=[], metavar="PKG.MODULE:FACTORY",
                   help="your own model: factory(batch_size) returns (module, example_input), "
                        "the module returning class logits; repeatable; given alone, it "
                        "replaces the built-in models")
    p.add_argument("--batch-sizes", type=cli.csv_of(cli.positive_int, "batch size"),
                   help=f"comma-separated {default('batch_sizes')}")
    p.add_argument("--variants", type=_variants,
                   help=f"comma-separated from {', '.join(VARIANTS)}, or all; eager is always "
                        f"run {default('variants')}")
    p.add_argument("--dtype", choices=list(train.DTYPES),
                   help=f"{default('dtype')}; bf16 is autocast, the weights and optimizer "
                        "state stay fp32")
    p.add_argument("--device", default="auto", help=cli.DEVICE_HELP)
    p.add_argument("--steps", type=cli.positive,
                   help=f"steps from the same start whose losses are set against eager's "
                        f"{default('steps')}")
    p.add_argument("--rounds", type=cli.positive,
                   help=f"interleaved timing rounds {default('rounds')}")
    p.add_argument("--warm-rounds", type=cli.non_negative,
                   help=f"untimed rounds before the timed ones {default('warm_rounds')}")
    p.add_argument("--profile-steps", type=cli.non_negative,
                   help=f"steps of each variant profiled after the timing, 0 for none "
                        f"{default('profile_steps')}")
    p.add_argument("--format", choices=("table", "markdown", "json"), default="table")
    p.add_argument("--output", type=Path, help="write the results file here, row by row")
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
    try:
        user = tuple((spec, models.load_factory(spec)) for spec in args.model)
    except models.SpecError as exc:
        cli.fail(PROG, str(exc))
    only_user = user and "--models" not in " ".join(argv if argv is not None else sys.argv)
    if args.append and not args.output:
        cli.fail(PROG, "--append needs --output, the file to add the rows to")
    cfg = train.TrainConfig(
        models=() if only_user else args.models, factories=user, batch_sizes=args.batch_sizes,
        variants=args.variants, dtype=args.dtype, device=device, steps=args.steps,
        rounds=args.rounds, warm_rounds=args.warm_rounds, profile_steps=args.profile_steps,
    ).resolve()
    return cfg, args


def _print(doc: dict, recorded: dict | None, fmt: str) -> None:
    if fmt == "json":
        print(json.dumps(doc, indent=1))
    elif fmt == "markdown":
        print(tables.markdown_table(doc["rows"]) + "\n\n" + results.stamp(doc, "this run"))
        if recorded:
            print("\n" + compare.compare_markdown(doc, recorded))
    else:
        out = Console(width=None if sys.stdout.isatty() else 200)
        out.print(compare.rich_table(doc))
        if recorded:
            out.print(compare.compare_table(doc, recorded))


def main(argv: list[str] | None = None) -> int:
    # Inductor's C++ backend logs "No CUDA runtime is found" on every CPU-only machine: expected
    # there, and alarming to a reader of the CPU table, so it is kept out of the output.
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    cfg, args = config_from_args(argv)
    commit = cli.commit_from_env()
    try:
        recorded = results.load(args.compare, train.KIND) if args.compare else None
    except results.ResultsError as exc:
        cli.fail(PROG, str(exc))
    cli.check_output(PROG, args.output)

    def joinable(old: dict) -> None:
        train.check_joinable(old, results.provenance(torch.device(cfg.device), cfg.settings()))

    old = cli.appending_to(PROG, args.output, args.append, train.KIND, joinable)

    def write(doc: dict) -> None:
        if args.output:
            results.write_atomic(args.output, train.join(old, doc) if old else doc)

    return cli.run_rows(
        PROG, lambda progress, on_row: train.document(cfg, progress, on_row=on_row,
                                                      commit=commit),
        lambda doc: _print(doc, recorded, args.format), write=write, output=args.output)

if __name__ == "__main__":
    raise SystemExit(main())
