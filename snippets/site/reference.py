"""What the reference pages show about the runs and the commands, as Markdown: the machines
and torch releases behind the numbers, every recorded run, and each command's ``--help``.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from snippets.core import render, results, stamps
from snippets.site import topics  # every kind a file read here is of, declared
from snippets.site.build import Build, current
from snippets.site.pages import INCLUDES, RECORDING_CLI, section


def versions(*, build: Build | None = None) -> str:
    """Every device and torch release the recorded numbers come from, newest run first."""
    seen: dict[tuple[str, str], str] = {}
    for path in sorted((build or current()).results_dir.rglob("*.json")):
        prov = results.load(path)["provenance"]
        key = (_run_device(prov), prov["torch"])
        seen[key] = max(seen.get(key, ""), prov["date"] or "")
    lines = [f"- {device}: torch {torch} (newest run {date[:10]})"
             for (device, torch), date in sorted(seen.items(), key=lambda kv: kv[1],
                                                 reverse=True)]
    return "\n".join(lines) or "None recorded yet."


def runs_timing(kinds: str | tuple[str, ...], modes: tuple[str, ...], *,
                build: Build | None = None) -> str:
    """Which recorded runs of ``kinds`` timed any of ``modes``, each linked to its section of the
    Results page."""
    kinds = (kinds,) if isinstance(kinds, str) else kinds
    root = (build or current()).results_dir
    found = []
    for path in sorted(root.rglob("*.json")):
        doc = results.load(path)
        if results.kind_of(doc).name in kinds and any(r.get("mode") in modes
                                                       for r in doc["rows"]):
            folder = path.relative_to(root).parts[0]
            name = path.relative_to(root / folder).with_suffix("").as_posix()
            found.append(f"[{_run_title(doc['provenance'])}, {_date(doc)[:10]}]"
                         f"(../results/#{folder}--{name.replace('/', '-')})")
    return ("Recorded so far: " + "; ".join(found) + ".") if found else \
        "None recorded yet."


# ---- the Results and CLI pages ----------------------------------------------------------------

def _run_device(prov: dict[str, Any]) -> str:
    """"Intel(R) Xeon(R) Processor (CPU)", "NVIDIA H200 (GPU)"."""
    kind = "GPU" if prov.get("device_type") == "cuda" else "CPU"
    return f"{stamps.device_label(prov)} ({kind})"


def _run_title(prov: dict[str, Any]) -> str:
    return f"{_run_device(prov)}, torch {prov.get('torch')}"


def renderers() -> dict[str, Callable[[dict], str]]:
    """How the Results page draws each kind of results file: the tables its own page shows."""
    from snippets.site import buildtime

    return {**topics.TABLES, buildtime.KIND: buildtime.markdown}


def _date(doc: dict[str, Any]) -> str:
    return doc["provenance"]["date"] or ""


def results_index(*, build: Build | None = None) -> str:
    """Every recorded run, newest first: a section per run folder, and per file in it a table
    with its stamp and a link to the raw file. Ids made from the folder and file names keep a
    link to one valid as runs are added."""
    build = build or current()
    draw = renderers()
    folders = [p for p in build.results_dir.glob("*") if p.is_dir() and any(p.glob("*.json"))]
    if not folders:  # worded in docs/includes/no-results-yet.md
        note = (INCLUDES / "no-results-yet.md").read_text()
        return note.format(link=f"../{RECORDING_CLI}")
    runs = []
    for folder in folders:
        docs = sorted(((p, results.load(p)) for p in folder.rglob("*.json")),
                      key=lambda pd: _date(pd[1]), reverse=True)
        runs.append((_date(docs[0][1]), folder, docs))
    out = []
    for _newest, folder, docs in sorted(runs, key=lambda r: r[0], reverse=True):
        out.append(f"## {_run_title(docs[0][1]['provenance'])} {{#{folder.name}}}\n")
        for path, doc in docs:
            # As served (MkDocs rewrites no link in exec output): results/ beside the run folders.
            link = path.relative_to(build.results_dir).as_posix()
            name = path.relative_to(folder).with_suffix("").as_posix()
            anchor = f"{folder.name}--{name.replace('/', '-')}"
            out.append(f"### {name} {{#{anchor}}}\n")
            # the file, its day, kind, schema and rows: docs/results.md says how to read them
            out.append(" · ".join([f"[{path.name}]({link})", _date(doc)[:10],
                                   results.kind_of(doc).name, f"schema `{doc['schema']}`",
                                   render.count(len(doc["rows"]), "row")]) + "\n")
            out.append(section(draw[results.kind_of(doc).name](doc),
                               stamps.stamp(doc, "recorded")))
    return "\n".join(out)


def cli_help(tool: str = "bench") -> str:
    """``python -m snippets.<tool> --help`` in a code block: the parser that runs writes the
    page, so the page cannot state another default."""
    module = importlib.import_module(f"snippets.{tool}")
    if hasattr(module, "__path__"):  # a package: python -m runs its __main__
        module = importlib.import_module(f"snippets.{tool}.__main__")
    parser = module.parser()
    # Wrapped as in an 80-column terminal (argparse leaves 2 columns): the page's code column.
    parser.formatter_class = functools.partial(parser.formatter_class, width=78)
    return f"```text\n{parser.format_help().strip()}\n```\n"
