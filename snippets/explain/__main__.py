"""The command line of ``python -m snippets.explain``."""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from snippets import explain
from snippets.core import cli, examples, flags, models, process, results
from snippets.explain import costs, fastpath, tables

PROG = "python -m snippets.explain"


@dataclass(frozen=True)
class Runs:
    """Graphs, graph breaks and their reasons.

    One field per measurement of the page, its docstring the help of its switch; the other
    choice is a user's factory, explained.

    Attributes:
        latency: time every broken example and its fixes, eager and compiled
        fastpath: time the transformer with and without its fused fast path
    """

    latency: bool = False
    fastpath: bool = False


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(Runs))
    what = cli.add_runs(p, flags.docstrings(Runs), required=True)
    what.add_argument("spec", nargs="?", metavar="PKG.MODULE:FACTORY",
                      help="factory() returns (callable_or_module, example_args_tuple)")
    # The measurements' flags are CostConfig's fields; --device serves --fastpath too.
    flags.declare(p.add_argument_group("--latency (--device: --fastpath too)"), costs.CostConfig,
                  costs.DEFAULTS)
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.add_argument("--output", type=Path, help="--latency/--fastpath: the results file")
    return p


def load_target(spec: str) -> tuple[object, object]:
    """Import ``pkg.module:factory`` and call it; raise SpecError with one line on any misuse."""
    factory = models.load_factory(spec)
    try:
        made = factory()
    except Exception as exc:
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        raise models.SpecError(f"{spec}() failed: {type(exc).__name__}: {exc} "
                               f"({explain.where(tb.filename, tb.lineno, tb.name)})") from None
    if not isinstance(made, tuple) or len(made) != 2:
        got = f"a tuple of {len(made)}" if isinstance(made, tuple) else type(made).__name__
    elif not callable(made[0]) or not isinstance(made[1], (tuple, dict)):  # a dict: keywords
        got = f"({type(made[0]).__name__}, {type(made[1]).__name__})"
        if callable(made[0]) and not isinstance(made[1], list):
            got += ": write (x,) for one input"
    else:
        return made
    raise models.SpecError(f"{spec}() must return (callable, args tuple), got {got}")


def explain_spec(spec: str, fmt: str) -> int:
    # What the factory and the traced code print goes to stderr, down to the file descriptor, so
    # that --format json stays parseable whatever they write.
    with process.stdout_to_stderr():
        try:
            fn, args = load_target(spec)
        except models.SpecError as exc:
            cli.fail(PROG, str(exc))
        try:
            positional, keywords = examples.split(args)
            exp = explain.explain(fn, *positional, **keywords)
        except Exception as exc:  # the user's function failed while being traced
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            cli.fail(PROG, f"tracing {spec} failed: {type(exc).__name__}: {first}")
    if fmt == "json":
        print(json.dumps(exp.as_dict(), indent=1))
    elif fmt == "markdown":
        print(tables.explanation(exp))
    else:
        print(explain.text_report(exp))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.spec and args.output:
        cli.fail(PROG, "--output needs --latency or --fastpath")
    for flag in ("size", "rounds", "profile", "mode"):
        if getattr(args, flag) and args.run != "latency":
            cli.fail(PROG, f"--{flag} needs --latency")

    def stopped() -> int:
        interrupt.settle()
        print("interrupted: nothing finished to keep", file=sys.stderr)
        return interrupt.exit_code

    interrupt = process.Interrupt(last_words=stopped)
    try:
        with interrupt.installed():
            code = explain_spec(args.spec, args.format) if args.spec else measure(args)
    except KeyboardInterrupt:
        return stopped()
    # Dynamo may swallow a Ctrl-C that lands while it traces: the output is whole, but the user
    # asked to stop, so the exit code says so.
    return stopped() if interrupt.seen else code


def measure(args: argparse.Namespace) -> int:
    """--latency or --fastpath: one measurement of the graph-breaks page, written as a file."""
    cfg = flags.build(PROG, costs.CostConfig, args)
    cli.check_output(PROG, args.output)
    commit = cli.commit_from_env()
    if args.run == "latency":
        doc = costs.produce(cfg, commit=commit)
        table = tables.costs(doc)
    else:
        doc = fastpath.produce(fastpath.FastpathConfig(device=cfg.device), commit=commit)
        table = tables.fastpath_latency(doc)
    if args.output:
        results.write_atomic(args.output, doc)
    print(json.dumps(doc, indent=1) if args.format == "json" else table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
