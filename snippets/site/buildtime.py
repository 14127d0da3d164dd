"""``python -m snippets.site.buildtime``: time a site build and record it as a results file.

The Contributing page states the build's speed targets; the times it shows against them come from
these files, like every other number on the site. Either run the build under this tool, or read
the time MkDocs itself printed in a build's log (``--from-log``), for a build made elsewhere.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import torch

from snippets.core import cli, config, folders, render, results

PROG = "python -m snippets.site.buildtime"
# The site's own kind: a build's time, per label, against the Contributing page's targets.
KIND = results.declare(results.Kind("site-build", "snippets.buildtime/1",
                                    {"label": (str,), "seconds": results.NUM},
                                    variant="label")).name
BUILT_IN = re.compile(r"Documentation built in ([0-9.]+) seconds")


def record(label: str, samples: list[float], prov: dict[str, Any]) -> dict[str, Any]:
    doc = results.new_document(KIND, prov)
    doc["rows"].append({"label": label, "seconds": statistics.median(samples),
                        "samples_s": samples})
    doc["complete"] = True
    return doc


def merge(path: Path, doc: dict[str, Any]) -> dict[str, Any]:
    """The file with this build's row added as a part of its own (``results.join``), so each row
    keeps the date, commit and command of the build it timed; it replaces a row of its label."""
    if not path.exists():
        return doc
    old = results.load(path, KIND)
    results.check_joinable(old, doc["provenance"], ())
    return results.join(old, doc, _label, ran=("command",), group=_label)


def _label(row: dict[str, Any]) -> tuple[str]:
    """A build's row is its own group and key: another build of its label replaces it."""
    return (row["label"],)


def _check_folder(output: Path, prov: dict[str, Any]) -> None:
    """A build time belongs in the run folder of the machine that built: recorded into another
    machine's folder, it would be read as that machine's."""
    mine = folders.run_folder(prov)
    folder = Path(output).resolve().parent
    if folder.parent.name == "results" and folder.name != mine:
        cli.fail(PROG, f"--output {output}: this machine's runs belong in results/{mine}/, "
                       f"not results/{folder.name}/")


def markdown(doc: dict[str, Any]) -> str:
    """A row per build: its median time, each run's, and the day it was timed (its part's)."""
    parts = doc["provenance"].get("parts") or [doc["provenance"]]
    return render.markdown_table(("Build", "Seconds", "Runs, s", "Day"), (
        (r["label"], f"{r['seconds']:.1f}",
         ", ".join(f"{x:.1f}" for x in r.get("samples_s") or [r["seconds"]]),
         (parts[r.get("part", 0)].get("date") or "")[:10]) for r in doc["rows"]))


def main(argv: list[str] | None = None) -> int:
    p = cli.Parser(prog=PROG, description="Time a site build and record it.")
    p.add_argument("--label", required=True, help="what was built, e.g. 'recorded, cold cache'")
    p.add_argument("--output", type=Path, required=True, help="results file to add the row to")
    p.add_argument("--from-log", type=Path,
                   help="read MkDocs' own 'built in' time from the log of a build made elsewhere")
    p.add_argument("--provenance-from", type=Path, metavar="RESULTS",
                   help="with --from-log: a results file that build wrote, for its provenance")
    p.add_argument("--repeat", type=int, default=1,
                   help="run the command this many times and record each time and the median; "
                        "a command that must start cold each time clears its caches itself")
    p.add_argument("--device", default="auto",
                   help="the machine the build measured on: auto (the default: CUDA where there "
                        "is one), cpu or cuda; its provenance names the run folder")
    p.add_argument("command", nargs="*", help="the build command, after --")
    args = p.parse_args(argv)
    if args.repeat < 1:
        cli.fail(PROG, f"--repeat {args.repeat}: give 1 or more")
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
        samples = [float(found[-1])]
        prov = {**prov, "settings": {"command": "mkdocs build --strict",
                                     "source": "the build's own log"}}
    else:
        samples = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            proc = subprocess.run(args.command)
            samples.append(round(time.perf_counter() - t0, 2))
            if proc.returncode:
                cli.fail(PROG, f"the build failed with exit code {proc.returncode}; "
                               "nothing recorded")
        # A build whose produce step measured on the GPU is that GPU's time: its provenance, and
        # so its run folder, is the device's, never the host CPU's.
        device = torch.device(config.resolve_device(cli.device(PROG, args.device)))
        prov = results.provenance(device, {"command": " ".join(args.command)},
                                  commit=cli.commit_from_env())
        _check_folder(args.output, prov)
    try:
        results.check_writable(args.output)
        doc = merge(args.output, record(args.label, samples, prov))
    except results.ResultsError as exc:
        cli.fail(PROG, str(exc))
    results.write_atomic(args.output, doc)
    print(markdown(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
