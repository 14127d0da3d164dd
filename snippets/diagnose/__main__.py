"""``python -m snippets.diagnose pkg.module:factory``: one command, one report on a user's model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from snippets import diagnose
from snippets.core import cli, flags, models, process, results
from snippets.diagnose import findings, report

PROG = "python -m snippets.diagnose"


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.about(diagnose.DiagnoseConfig))
    p.add_argument("spec", metavar="PKG.MODULE:FACTORY",
                   help="factory(batch_size) returns (module, example_input)")
    flags.declare(p, diagnose.DiagnoseConfig, diagnose.DEFAULTS)
    p.add_argument("--format", choices=cli.FORMATS, default=cli.FORMATS[0])
    p.add_argument("--output", type=Path, help="Markdown report, or JSON results")
    return p


def show(cfg: diagnose.DiagnoseConfig, spec: str, sections: tuple, fmt: str,
         output: Path | None) -> None:
    doc = diagnose.document(cfg, spec, sections, commit=cli.commit_from_env())
    blocks = report.blocks(sections, diagnose.verdict_of(cfg, sections), cfg.schedule)
    title = f"{spec} on {doc['provenance']['device']}"
    text = (json.dumps(doc, indent=1) + "\n" if fmt == "json"
            else report.markdown(blocks, title) if fmt == "markdown" else None)
    if output is not None and fmt == "markdown":
        output.write_text(text)
    elif output is not None:
        results.write_atomic(output, doc)
    if text is not None:
        sys.stdout.write(text)
    else:
        from rich.console import Console

        report.terminal(blocks, title, Console(file=sys.stdout))


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cfg = flags.build(PROG, diagnose.DiagnoseConfig, args)
    cli.check_output(PROG, args.output)
    cli.quiet_cpu_notice()
    try:
        factory = models.load_factory(args.spec)
    except models.SpecError as exc:
        cli.fail(PROG, str(exc))
    done: list[findings.Section] = []

    def finished(section: findings.Section) -> None:
        done.append(section)
        interrupt.check()  # between phases: a Ctrl-C that torch swallowed stops here

    def stopped() -> int:
        interrupt.settle()
        if done:
            show(cfg, args.spec, tuple(done), args.format, args.output)
        print(f"interrupted: {len(done)} finished phases kept", file=sys.stderr)
        return interrupt.exit_code

    interrupt = process.Interrupt(last_words=stopped)
    # The precision is set around the report too: the verdict and the provenance read the one
    # that ran (the factory's, where it set its own).
    with cfg.backends().apply():
        try:
            # What the model prints goes to stderr, so that the report (JSON, say) stays clean.
            with interrupt.installed(), process.stdout_to_stderr():
                diagnose.diagnose(cfg, factory, on_section=finished)
        except models.SpecError as exc:
            cli.fail(PROG, str(exc))
        except KeyboardInterrupt:
            return stopped()  # the finished phases are kept: show them and stop
        if interrupt.seen:  # a Ctrl-C that torch swallowed in the last phase
            return stopped()
        show(cfg, args.spec, tuple(done), args.format, args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
