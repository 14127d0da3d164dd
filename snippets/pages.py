"""What the site's exec blocks call: results sections, recorded or fresh, and build-time results.

Every function returns Markdown and prints nothing; a page's exec block prints what it got. How a
section is filled depends on the build, chosen in the environment:

- ``SNIPPETS_BUILD=recorded`` (the default, any machine): tables come from the results files in
  ``docs/results/``, stamped "recorded"; nothing is measured.
- ``SNIPPETS_BUILD=fresh``: a section whose device type is this machine's is measured during the
  build, written to ``docs/results/<run-folder>/<kind>.json`` and stamped "fresh"; the others fall
  back to their recorded files, so a CPU number never stands where a GPU one belongs.

Whatever a build executes goes through ``snippets.cache``, so an unchanged snippet is not executed
again; ``SNIPPETS_REFRESH=1`` executes it anyway.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from snippets import cache

ROOT = Path(__file__).resolve().parent.parent
DEVICE_TYPES = ("cuda", "cpu")
MODES = ("recorded", "fresh")
LIVE_STAMP = "executed at build time"  # how a live() stamp begins; recorded/fresh ones say so

_docs_dir = ROOT / "docs"
_written: set[Path] = set()  # results files this process measured and wrote (fresh builds)


# ---- where things are, and how this build runs ---------------------------------------------

def use_docs_dir(path: str | Path) -> None:
    """Read and write results under this docs folder (the MkDocs hook sets the one being built)."""
    global _docs_dir
    _docs_dir = Path(path)


def results_dir() -> Path:
    return _docs_dir / "results"


def build_mode() -> str:
    mode = os.environ.get("SNIPPETS_BUILD") or "recorded"
    if mode not in MODES:
        raise ValueError(f"SNIPPETS_BUILD={mode!r}: expected one of {', '.join(MODES)}")
    return mode


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")


def run_folder(prov: dict[str, Any]) -> str:
    """The folder a run's files live in: device and torch release, e.g. ``nvidia-h200_torch-2.11.0``
    or ``cpu-amd-epyc_torch-2.14.1``. A CPU is named by vendor and family, not by its exact model,
    and torch by its release without the build tag (``+cu130``), so reruns land in one place."""
    device = prov.get("device") or "unknown device"
    if prov.get("device_type") == "cpu":
        name = re.sub(r"\((r|tm)\)", " ", device.removeprefix("CPU:"), flags=re.IGNORECASE)
        device = "cpu " + " ".join(re.findall(r"[a-z0-9]+", name.lower())[:2])
    return f"{_slug(device)}_torch-{_slug(str(prov.get('torch')).split('+')[0])}"


# ---- results files ---------------------------------------------------------------------------

def load(path: Path) -> dict[str, Any]:
    """A results file of any kind: bench files get their full schema check, the others (explain,
    dynamic, ...) the shape every kind shares. A bad file stops the build with a one-line reason."""
    from snippets import results

    path = Path(path)
    if path.name.startswith("bench"):
        return results.load(path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise results.ResultsError(f"{path}: cannot read a results document: {exc}") from None
    if not isinstance(doc, dict):
        raise results.ResultsError(f"{path}: not a results document (top level is not an object)")
    prov = doc.get("provenance")
    if (not isinstance(doc.get("schema"), str) or not isinstance(prov, dict)
            or any(k not in prov for k in ("device", "device_type", "torch", "date", "commit"))
            or not isinstance(doc.get("rows"), list)):
        raise results.ResultsError(f"{path}: needs schema, provenance (device, device_type, torch, "
                                   "date, commit) and rows")
    return doc


def recorded_runs(kind: str) -> list[tuple[Path, dict[str, Any]]]:
    """Every ``docs/results/*/<kind>.json``, newest run first."""
    found = [(p, load(p)) for p in results_dir().glob(f"*/{kind}.json")]
    return sorted(found, key=lambda pd: pd[1]["provenance"]["date"] or "", reverse=True)


def newest(kind: str, device: str) -> dict[str, Any] | None:
    for _path, doc in recorded_runs(kind):
        if doc["provenance"].get("device_type") == device:
            return doc
    return None


def _write_if_changed(path: Path, doc: dict[str, Any]) -> None:
    """Write atomically, and only if the content changed: a ``mkdocs serve`` of a fresh build
    watches docs/, and rewriting an identical file would start another build."""
    from snippets import results

    _written.add(path.resolve())
    text = json.dumps(doc, indent=1, allow_nan=False) + "\n"
    if path.exists() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    results.write_atomic(path, doc)
    path.chmod(0o644)  # the temporary file it came from is private; a results file is public


# ---- sections --------------------------------------------------------------------------------

def section(body: str, stamp: str) -> str:
    """A results block: the rendered body with its stamp under it, marked for the site check."""
    return (f'<div class="results" markdown>\n\n{body.strip()}\n\n'
            f'<p class="stamp">{html.escape(stamp)}</p>\n\n</div>\n')


def no_run_yet(kind: str, device: str) -> str:
    where = "a CUDA GPU" if device == "cuda" else "a CPU"
    return (f'!!! note "No recorded run yet"\n\n'
            f"    No `{kind}` results from {where} are in `docs/results/` yet, so there is no "
            "table here. The Contributing page says how a run is recorded.\n")


def show(kind: str, produce: Callable[[], dict], render: Callable[[dict], str], *,
         device: str = "cuda") -> str:
    """Markdown for one results section on ``device`` ("cuda" or "cpu").

    Recorded build: the newest ``docs/results/*/<kind>.json`` from that device type, rendered, with
    a "recorded" stamp; an admonition where there is none. Fresh build on a machine of that device
    type: ``produce()`` (through the cache), written to ``docs/results/<run-folder>/<kind>.json``,
    rendered with a "fresh" stamp. A fresh build on another device type shows the recorded file.
    """
    from snippets import render as rendering

    if device not in DEVICE_TYPES:
        raise ValueError(f"device {device!r}: expected one of {', '.join(DEVICE_TYPES)}")
    if build_mode() == "fresh" and cache.device_type() == device:
        doc, _ = cache.cached(kind, produce, "fresh")
        if doc["provenance"].get("device_type") != device:
            raise ValueError(f"{kind}: produced on {doc['provenance'].get('device_type')}, "
                             f"shown as {device}")
        _write_if_changed(results_dir() / run_folder(doc["provenance"]) / f"{kind}.json", doc)
        return section(render(doc), rendering.stamp(doc, "fresh"))
    doc = newest(kind, device)
    if doc is None:
        return no_run_yet(kind, device)
    return section(render(doc), rendering.stamp(doc, "recorded"))


def live(name: str, produce: Callable[[], Any], render: Callable[[Any], str]) -> str:
    """A cheap result executed at every build on any machine (graph and break counts, say):
    ``produce()`` through the cache, rendered, stamped with the device and torch it ran on."""
    value, meta = cache.cached(f"live-{name}", produce, build_mode())
    when = meta["date"][:10]
    return section(render(value), f"{LIVE_STAMP} on {meta['device']} · torch {meta['torch']} · "
                                  f"{when}")


# ---- what the benchmark and results pages show ------------------------------------------------

def bench_document(cfg: Any = None) -> dict[str, Any]:
    """A whole bench results document for ``cfg`` (default: this device's defaults), as
    ``python -m snippets.bench --output`` writes it, but printing nothing."""
    from snippets import bench

    return bench.document((cfg or bench.BenchConfig()).resolve())


def bench_channels_last() -> dict[str, Any]:
    """ResNet-50 alone in channels_last, eager included: the layout its convolutions prefer."""
    from snippets import bench

    return bench_document(bench.BenchConfig(models=("resnet50",), channels_last=True))


def bench_table(doc: dict[str, Any]) -> str:
    from snippets import render

    return render.markdown_table(doc["rows"])


def _run_title(prov: dict[str, Any]) -> str:
    kind = "GPU" if prov.get("device_type") == "cuda" else "CPU"
    return f"{prov.get('device')} ({kind}), torch {prov.get('torch')}"


def results_index(renderers: dict[str, Callable[[dict], str]] | None = None) -> str:
    """Every recorded run, newest first, each file linked for download and rendered where a
    renderer for its schema is known (bench files always are)."""
    from snippets import render, results

    renderers = {results.SCHEMA: bench_table, **(renderers or {})}
    folders = sorted(p for p in results_dir().glob("*") if p.is_dir() and any(p.glob("*.json")))
    if not folders:
        return ('!!! note "No recorded run yet"\n\n    `docs/results/` holds no run yet; the '
                "Contributing page says how one is recorded.\n")
    runs = []
    for folder in folders:
        # Runs kept as evidence sit in subfolders (noise/): recorded runs too, listed after.
        docs = [(p, load(p)) for p in sorted(folder.rglob("*.json"),
                                              key=lambda p: (len(p.parts), str(p)))]
        date = max(d["provenance"]["date"] or "" for _, d in docs)
        runs.append((date, folder, docs))
    out = []
    for _date, folder, docs in sorted(runs, key=lambda r: r[0], reverse=True):
        out.append(f"## {_run_title(docs[0][1]['provenance'])}\n")
        for path, doc in docs:
            # Exec output is HTML by the time MkDocs sees it, so MkDocs does not rewrite this
            # link: it is written as served, the page at results/ beside the run folders (the
            # site check verifies every link in the built site).
            link = path.relative_to(results_dir()).as_posix()
            name = path.relative_to(folder).with_suffix("").as_posix()
            out.append(f"### {name}\n\nRaw results: [{path.name}]({link}) "
                       f"(schema `{doc['schema']}`, {len(doc['rows'])} rows).\n")
            fn = renderers.get(doc["schema"])
            body = fn(doc) if fn else f"`{link}`"
            how = "fresh" if path.resolve() in _written else "recorded"
            out.append(section(body, render.stamp(doc, how)))
    return "\n".join(out)


def cli_help() -> str:
    """``python -m snippets.bench --help`` as the installed code prints it, in a code block."""
    from snippets import bench_cli

    was = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal's width; a page has none
    try:
        text = bench_cli.parser().format_help().strip()
    finally:
        if was is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = was
    return f"```text\n{text}\n```\n"
