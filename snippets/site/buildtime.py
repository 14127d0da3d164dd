"""``python -m snippets.site.buildtime``: time a site build and record it as a results file.

The Contributing page states the build's speed targets; the times it shows against them come from
these files, like every other number on the site. Either run the build under this tool, or read
the time MkDocs itself printed in a build's log (``--from-log``), for a build made elsewhere.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import torch

from snippets.core import cli, render, results

PROG = "python -m snippets.site.buildtime"
KIND = "site-build"
BUILT_IN = re.compile(r"Documentation built in ([0-9.]+) seconds")


def record(label: str, seconds: float, prov: dict[str, Any]) -> dict[str, Any]:
    doc = results.new_document(KIND, prov)
    doc["rows"].append({"label": label, "seconds": seconds})
    doc["complete"] = True
    return doc


def merge(path: Path, doc: dict[str, Any]) -> dict[str, Any]:
    """Add this row to the file's rows, replacing an older row of the same label."""
    if path.exists():
        old = results.load(path, KIND)
        rows = [r for r in old["rows"] if r["label"] != doc["rows"][0]["label"]]
        doc["rows"] = rows + doc["rows"]
    return doc


def _check_folder(output: Path, prov: dict[str, Any]) -> None:
    """A build time belongs in the run folder of the machine that built: recorded into another
    machine's folder, it would be read as that machine's."""
    mine = results.run_folder(prov)
    folder = Path(output).resolve().parent
    if folder.parent.name == "results" and folder.name != mine:
        cli.fail(PROG, f"--output {output}: this machine's runs belong in results/{mine}/, "
                       f"not results/{folder.name}/")


def markdown(doc: dict[str, Any]) -> str:
    return render.markdown_table(("Build", "Seconds"),
                                 ((r["label"], f"{r['seconds']:.1f}") for r in doc["rows"]))


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
            prov = results.load(args.provenance_from)["provenance"]
        except (OSError, ValueError) as exc:  # ResultsError is a ValueError
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
        prov = results.provenance(torch.device("cpu"), {"command": " ".join(args.command)},
                                  commit=cli.commit_from_env())
        _check_folder(args.output, prov)
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
