"""``python -m snippets.scale``: flags onto one ScaleConfig, each configuration launched with
torchrun, rows onto a file, a table out."""

from __future__ import annotations

import functools

import torch
import torch.distributed as dist
from rich.table import Table

from snippets import scale, train
from snippets.core import cli, columns, flags, recording, stamps
from snippets.scale import compare, tables

PROG = "python -m snippets.scale"
parser = functools.partial(train.parser, PROG, scale.ScaleConfig, scale.DEFAULTS)


def config_from_args(argv: list[str] | None) -> tuple[scale.ScaleConfig, object]:
    args = parser().parse_args(argv)
    if not dist.is_available():
        cli.fail(PROG, "torch.distributed is unavailable")
    user, only_user = cli.user_models(PROG, args.model, args.models is not None)
    cli.check_append(PROG, args.append, args.output)
    if (args.device or "auto") not in ("auto", "cpu", "cuda"):  # the ranks take GPUs 0, 1, ...
        cli.fail(PROG, f"unknown device {args.device!r}")
    # the ranks load the user's models by their specs: here they are only checked
    chosen = (*(() if only_user else args.models or ()), *(s for s, _ in user)) or None
    cfg = flags.build(PROG, scale.ScaleConfig, args, models=chosen).resolve()
    found = torch.cuda.device_count() if cfg.device == "cuda" else cfg.world
    if found < cfg.world:
        cli.fail(PROG, f"need {cfg.world} GPUs, found {found}")
    return cfg, args


def _rich(doc: dict) -> Table:
    return columns.rich(doc["rows"], tables.KEY, tables.detail_columns(),
                        title=stamps.stamp(doc, "this run"), stamp="")


# The comparison is text in a terminal too: a list of step times, no table to draw.
PRINT = recording.Printer.of_rows(tables.markdown_table, rich=_rich,
                                  compare_markdown=compare.compare)


def main(argv: list[str] | None = None) -> int:
    cfg, args = config_from_args(argv)
    return recording.record_run(
        PROG, args, scale.KIND, cfg, scale.document, PRINT, with_old=True,
        joinable=recording.joinable_by(scale.check_joinable, cfg.device, cfg.settings()))


if __name__ == "__main__":
    raise SystemExit(main())
