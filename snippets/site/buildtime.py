"""``python -m snippets.site.buildtime``: time a site build and record it as a results file.

The Contributing page shows these times against the build's targets. Run the build under this
tool, or read the time MkDocs printed in the log of a build made elsewhere (``--from-log``).
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from snippets.core import cli, config, folders, render, results
from snippets.site.build import parse

PROG = "python -m snippets.site.buildtime"
# The site's own kind: a build's time, per label, against the Contributing page's targets.
KIND = results.declare(results.Kind("site-build", "snippets.buildtime/1",
                                    {"label": (str,), "seconds": results.NUM},
                                    variant="label")).name
BUILT_IN = re.compile(r"Documentation built in ([0-9.]+) seconds")


@dataclass(frozen=True, kw_only=True)
class BuildtimeConfig:
    """A build to time, or the log of one timed elsewhere.

    Attributes:
        label: what was built, e.g. 'recorded, cold cache'
        output: the results file to add the row to
        from_log: read MkDocs' own 'built in' time from the log of a build made elsewhere
        provenance_from: with --from-log: a results file that build wrote, for its provenance
        repeat: run the command this many times, recording each time and the median (a command that
            must start cold clears its own caches)
        device: the device the build measured on (auto: CUDA if present; cpu; cuda), whose run
            folder --output must be in
        command: the build command, after --
    """

    label: str
    output: Path
    from_log: Path | None = None
    provenance_from: Path | None = None
    repeat: int = config.option(1, positive=True)
    device: str = "auto"
    command: tuple[str, ...] = config.option((), flag="command")

    def __post_init__(self) -> None:
        config.check(self)
        if bool(self.from_log) == bool(self.command):
            raise config.ConfigError(None, "expected -- COMMAND or --from-log")
        if self.from_log and not self.provenance_from:  # the build ran on another machine
            raise config.ConfigError("from_log", "needs --provenance-from")


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


def _label(row: dict[str, Any]) -> tuple[str]:  # a row's group and key: its label
    return (row["label"],)


def _check_folder(output: Path, prov: dict[str, Any]) -> None:
    """A build time belongs in the run folder of the machine that built: in another machine's
    folder, it would be read as that machine's."""
    mine = folders.run_folder(prov)
    folder = Path(output).resolve().parent
    if folder.parent.name == "results" and folder.name != mine:
        cli.fail(PROG, f"--output belongs in results/{mine}/")


def markdown(doc: dict[str, Any]) -> str:
    """A row per build: its median time, each run's, and the day it was timed (its part's)."""
    parts = doc["provenance"].get("parts") or [doc["provenance"]]
    return render.markdown_table(("Build", "Seconds", "Runs, s", "Day"), (
        (r["label"], f"{r['seconds']:.1f}",
         ", ".join(f"{x:.1f}" for x in r.get("samples_s") or [r["seconds"]]),
         (parts[r.get("part", 0)].get("date") or "")[:10]) for r in doc["rows"]))


def main(argv: list[str] | None = None) -> int:
    cfg = parse(PROG, BuildtimeConfig, __doc__, argv)
    if cfg.from_log:
        try:
            found = BUILT_IN.findall(cfg.from_log.read_text(errors="replace"))
            prov = results.load(cfg.provenance_from)["provenance"]
        except (OSError, ValueError) as exc:  # ResultsError is a ValueError
            cli.fail(PROG, f"cannot read: {exc}")
        if not found:
            cli.fail(PROG, "--from-log: no build time found")
        samples = [float(found[-1])]
        prov = {**prov, "settings": {"command": "mkdocs build --strict",
                                     "source": "the build's own log"}}
    else:
        samples = []
        for _ in range(cfg.repeat):
            t0 = time.perf_counter()
            proc = subprocess.run(cfg.command)
            samples.append(round(time.perf_counter() - t0, 2))
            if proc.returncode:  # nothing recorded
                cli.fail(PROG, f"build failed (exit {proc.returncode})")
        # A build whose produce step measured on the GPU is that GPU's time: its provenance, and
        # so its run folder, is the device's, never the host CPU's.
        device = torch.device(config.resolve_device(cfg.device))  # flags.build checked it
        prov = results.provenance(device, {"command": " ".join(cfg.command)},
                                  commit=cli.commit_from_env())
        _check_folder(cfg.output, prov)
    try:
        results.check_writable(cfg.output)
        doc = merge(cfg.output, record(cfg.label, samples, prov))
    except results.ResultsError as exc:
        cli.fail(PROG, str(exc))
    results.write_atomic(cfg.output, doc)
    print(markdown(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
