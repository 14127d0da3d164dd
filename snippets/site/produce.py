"""python -m snippets.site.produce: the one step that measures for the site, run before a build.

It runs the producers of the results sections the pages show for this machine's device type,
writing ``docs/results/<run-folder>/<kind>.json``; on a CPU it also records the stale live
sections in ``live-sections/``. Longer runs are recorded by their own command lines.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from snippets.core import cli, config, flags, folders, results
from snippets.site import cache, live, topics
from snippets.site.build import ROOT, Build

PROG = "python -m snippets.site.produce"

# kind -> the device types a page shows it for and its producer there (the topics' records)
RESULTS = topics.PRODUCERS


def results_for(device: str) -> list[str]:
    return [kind for kind, p in RESULTS.items() if device in p.devices]


def sections_for(device: str) -> list[str]:
    """The live sections recorded for ``device``: on a CPU machine only, as the suite checks
    the records (keyed by device type) on a CPU."""
    return list(live.SECTIONS) if device == cache.device_type() == "cpu" else []


def produce_results(kind: str, device: str, results_dir: Path, commit: str | None) -> Path:
    """Run ``kind``'s producer on ``device`` and write its document; its path."""
    doc = RESULTS[kind].on(device)(commit=commit)
    if results.device_type_of(doc) != device:  # a CPU number never stands for a GPU one
        raise ValueError(f"{kind}: produced on {results.device_type_of(doc)}, asked for {device}")
    path = results_dir / folders.run_folder(doc["provenance"]) / f"{kind}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    results.write_atomic(path, doc)
    return path


@dataclass(frozen=True, kw_only=True)
class ProduceConfig:
    """What one produce step runs on this machine.

    Attributes:
        only: these results kinds or live sections only, comma-separated (a live section named here
            is recorded even if current)
        list: list what would run, run nothing
    """

    device: str = "auto"
    only: tuple[str, ...] = config.option((), what="name")
    list: bool = False


def parser() -> cli.Parser:
    p = cli.Parser(prog=PROG, description=flags.paragraph(__doc__))
    flags.declare(p, ProduceConfig)
    return p


def main(argv: list[str] | None = None) -> int:
    cfg = flags.build(PROG, ProduceConfig, parser().parse_args(argv))
    device = config.device_type(config.resolve_device(cfg.device))
    build = Build()
    kinds, sections = results_for(device), sections_for(device)
    stale = live.stale(build) if sections else []
    if cfg.only:
        known = kinds + sections
        unknown = [n for n in cfg.only if n not in known]
        if unknown:
            cli.fail(PROG, f"--only {unknown[0]!r}: not produced on {device}")
        kinds = [k for k in kinds if k in cfg.only]
        sections = [s for s in sections if s in cfg.only]
    else:
        sections = [s for s in sections if s in stale]
    if cfg.list:
        for kind in kinds:
            print(f"{kind}: results on {device}")
        for name in sections:
            print(f"{name}: live section{' (stale)' if name in stale else ''}")
        return 0
    commit = cli.commit_from_env()
    cli.quiet_cpu_notice()
    for kind in kinds:
        path = produce_results(kind, device, build.results_dir, commit)
        print(f"{kind}: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    for name in sections:  # in page order
        meta = cache.record(f"live-{name}", live.SECTIONS[name], build,
                            commit or results.git_commit())
        print(f"{name}: {meta['seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
