"""``python -m snippets.scale``: flags onto one ScaleConfig, each configuration launched with
torchrun, rows onto a file, a table out."""

from __future__ import annotations

import torch
import torch.distributed as dist
from rich.table import Table

from snippets import scale
from snippets.core import cli, columns, flags, recording, stamps
from snippets.scale import compare, tables

PROG = "python -m snippets.scale"


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(scale.ScaleConfig))
    flags.declare(p, scale.ScaleConfig, scale.DEFAULTS)
    cli.add_model(p, logits=True)
    cli.add_output(p)
    p.add_argument("--append", action="store_true", help=cli.APPEND_SAME_SETTINGS)
    cli.add_compare(p)
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
    user, only_user = cli.user_models(PROG, args.model, args.models is not None)
    cli.check_append(PROG, args.append, args.output)
    # the ranks load the user's models by their specs: here they are only checked
    chosen = (*(() if only_user else args.models or ()), *(s for s, _ in user)) or None
    cfg = flags.build(PROG, scale.ScaleConfig, args, models=chosen,
                      device=_device(args.device or "auto")).resolve()
    _check_gpus(cfg)
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
