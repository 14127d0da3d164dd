"""``python -m snippets.buildtime``: time a site build and record it as a results file.

The Contributing page states the build's speed targets; the times it shows against them come from
these files, like every other number on the site. Either run the build under this tool, or read
the time MkDocs itself printed in a build's log (``--from-log``), for a build made elsewhere.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import torch

from snippets import cli, results

SCHEMA = "snippets.buildtime/1"
PROG = "python -m snippets.buildtime"
KIND = "site-build"
BUILT_IN = re.compile(r"Documentation built in ([0-9.]+) seconds")


def record(label: str, seconds: float, prov: dict[str, Any]) -> dict[str, Any]:
    return {"schema": SCHEMA, "kind": KIND, "complete": True, "provenance": prov,
            "rows": [{"label": label, "seconds": seconds}]}


def merge(path: Path, doc: dict[str, Any]) -> dict[str, Any]:
    """Add this row to the file's rows, replacing an older row of the same label."""
    if path.exists():
        old = results_load(path)
        rows = [r for r in old["rows"] if r["label"] != doc["rows"][0]["label"]]
        doc["rows"] = rows + doc["rows"]
    return doc


def results_load(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise results.ResultsError(f"{path}: cannot read: {exc}") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise results.ResultsError(f"{path}: not a {SCHEMA} file")
    return doc


def markdown(doc: dict[str, Any]) -> str:
    lines = ["| Build | Seconds |", "|---|--:|"]
    lines += [f"| {row['label']} | {row['seconds']:.1f} |" for row in doc["rows"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = cli.Parser(prog=PROG, description="Time a site build and record it.")
    p.add_argument("--label", required=True, help="what was built, e.g. 'recorded, cold cache'")
    p.add_argument("--output", type=Path, required=True, help="results file to add the row to")
    p.add_argument("--from-log", type=Path,
                   help="read MkDocs' own 'built in' time from the log of a build made elsewhere")
    p.add_argument("--provenance-from", type=Path, metavar="RESULTS",
                   help="with --from-log: a results file that build wrote, for its provenance")
    p.add_argument("command", nargs="*", help="the build command, after --")
    args = p.parse_args(argv)
    if bool(args.from_log) == bool(args.command):
        cli.fail(PROG, "give either a build command after -- or --from-log FILE")
    if args.from_log:
        if not args.provenance_from:
            cli.fail(PROG, "--from-log needs --provenance-from: the build ran on another machine")
        try:
            found = BUILT_IN.findall(args.from_log.read_text(errors="replace"))
            prov = json.loads(args.provenance_from.read_text())["provenance"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            cli.fail(PROG, f"cannot read the log or the results file: {exc}")
        if not found:
            cli.fail(PROG, f"--from-log {args.from_log}: no 'Documentation built in' line")
        seconds = float(found[-1])
        prov = {**prov, "settings": {"command": "SNIPPETS_BUILD=fresh mkdocs build --strict",
                                     "source": "the build's own log"}}
    else:
        t0 = time.perf_counter()
        proc = subprocess.run(args.command)
        seconds = time.perf_counter() - t0
        if proc.returncode:
            cli.fail(PROG, f"the build failed with exit code {proc.returncode}; nothing recorded")
        prov = results.provenance(torch.device("cpu"), {"command": " ".join(args.command)})
    try:
        results.check_writable(args.output)
        doc = merge(args.output, record(args.label, seconds, prov))
    except results.ResultsError as exc:
        cli.fail(PROG, str(exc))
    results.write_atomic(args.output, doc)
    print(markdown(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())


def section(device: str) -> str:
    """The recorded build times of the newest run folder of ``device``, stamped."""
    from snippets import pages, render

    doc = pages.newest(KIND, device)
    if doc is None:
        return pages.no_run_yet(KIND, device)
    return pages.section(markdown(doc), render.stamp(doc, "recorded"))
