"""What the site's exec blocks call: results sections and live sections, read from files.

Every function returns Markdown and prints nothing; a page's exec block prints what it got. A
build only reads: the results files in ``docs/results/`` and the live sections' records in
``live-sections/``, which ``python -m snippets.site.produce`` (or a topic's own command line)
writes before it.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable
from importlib import metadata
from typing import Any

from snippets.core import config, folders, results, stamps
from snippets.site import cache
from snippets.site import live as live_sections
from snippets.site import topics  # noqa: F401 (declares every kind a file read here is of)
from snippets.site.build import ROOT, Build, current


# ---- sections --------------------------------------------------------------------------------

def section(body: str, stamp: str) -> str:
    """A results block: the rendered body with its stamp under it, marked for the site check."""
    return (f'<div class="results" markdown>\n\n{body.strip()}\n\n'
            f'<p class="stamp">{html.escape(stamp)}</p>\n\n</div>\n')


# What a reader calls each recorded results file, and where the site lists the commands that
# record it: a placeholder names the data as its page does and links those commands. Targets are
# written as served (exec output is HTML by the time MkDocs sees it, so it rewrites no link here),
# relative to the site's root; ``no_run_yet`` puts the page's way back to the root before them.
RECORDED_BY = {
    "bench": ("benchmark", "cli/#python-m-snippetsbench"),
    "bench-ladder": ("speed-ladder", "cli/#python-m-snippetsspeed"),
    "speed-settings": ("backend-settings", "cli/#python-m-snippetsspeed"),
    "speed-freezing": ("freezing-check", "cli/#python-m-snippetsspeed"),
    "graph-breaks": ("graph-break cost", "cli/#python-m-snippetsexplain"),
    "graph-breaks-large": ("large graph-break cost", "cli/#python-m-snippetsexplain"),
    "transformer-fastpath": ("transformer fast-path", "cli/#python-m-snippetsexplain"),
    "dynamic-shapes": ("dynamic-shapes", "cli/#python-m-snippetsdynamic"),
    "dynamic-shapes-large": ("large dynamic-shapes", "cli/#python-m-snippetsdynamic"),
    "debug-minifier": ("minifier", "cli/#python-m-snippetsdebug"),
    "diagnose": ("diagnosis", "cli/#python-m-snippetsdiagnose"),
    "diagnose-transformer": ("transformer diagnosis", "cli/#python-m-snippetsdiagnose"),
    "diagnose-resnet50": ("ResNet-50 diagnosis", "cli/#python-m-snippetsdiagnose"),
    "production-startup": ("start-up", "cli/#python-m-snippetsproduction"),
    "production-stream": ("request-stream", "cli/#python-m-snippetsproduction"),
    "production-stream-large": ("large request-stream", "cli/#python-m-snippetsproduction"),
    "production-stream-large-reduce-overhead": ("large request-stream under CUDA graphs",
                                                "cli/#python-m-snippetsproduction"),
    "graph-breaks-reduce-overhead": ("graph-break cost under CUDA graphs",
                                     "cli/#python-m-snippetsexplain"),
    "production-modes": ("compile-mode", "cli/#python-m-snippetsproduction"),
    "production-hazards": ("CUDA-graph hazard", "cli/#python-m-snippetsproduction"),
    "production-regions": ("nested-region start-up", "cli/#python-m-snippetsproduction"),
    "train": ("training", "cli/#python-m-snippetstrain"),
    "train-repeat": ("second training", "cli/#python-m-snippetstrain"),
    "scale": ("DDP and FSDP", "cli/#python-m-snippetsscale"),
    "site-build": ("build-time", "contributing/#speed-targets"),
    "generate": ("generation", "cli/#python-m-snippetsgenerate"),
    "generate-hf": ("transformers generation", "cli/#python-m-snippetsgenerate"),
    "generate-ladder": ("decode ladder", "cli/#python-m-snippetsgenerate"),
    "generate-ladder-int8": ("int8 profile", "cli/#python-m-snippetsgenerate"),
    "generate-ladder-8": ("decode ladder at batch 8", "cli/#python-m-snippetsgenerate"),
    "generate-max-autotune": ("max-autotune generation", "cli/#python-m-snippetsgenerate"),
    "generate-max-autotune-gemm": ("max-autotune generation", "cli/#python-m-snippetsgenerate"),
    "generate-max-autotune-prefill": ("max-autotune prefill", "cli/#python-m-snippetsgenerate"),
    "generate-max-autotune-prefill-8": ("max-autotune prefill", "cli/#python-m-snippetsgenerate"),
    "generate-max-autotune-prefill-32": ("max-autotune prefill", "cli/#python-m-snippetsgenerate"),
    "generate-traps": ("generation traps", "cli/#python-m-snippetsgenerate"),
    "generate-ladder-7b": ("7 B decode ladder", "cli/#python-m-snippetsgenerate"),
    "generate-ladder-7b-8": ("7 B decode ladder at batch 8", "cli/#python-m-snippetsgenerate"),
    "generate-loop": ("generation loop", "cli/#python-m-snippetsgenerate"),
    "generate-loop-7b": ("7 B generation loop", "cli/#python-m-snippetsgenerate"),
    "generate-loop-unwrap": ("torchao unwrapped", "cli/#python-m-snippetsgenerate"),
    "generate-loop-7b-torchao": ("7 B torchao int8 comparison",
                                 "cli/#python-m-snippetsgenerate"),
    "generate-loop-7b-int4": ("7 B int4 generation loop", "cli/#python-m-snippetsgenerate"),
    "generate-loop-7b-int8-fresh-1": ("7 B int8 step, first fresh process",
                                      "cli/#python-m-snippetsgenerate"),
    "generate-loop-7b-int8-fresh-2": ("7 B int8 step, second fresh process",
                                      "cli/#python-m-snippetsgenerate"),
    "zoo": ("model-zoo", "cli/#python-m-snippetszoo"),
    "cpu": ("CPU-alternatives", "cli/#python-m-snippetscpu"),
}
RECORDING_CLI = "cli/"  # a kind not listed above: the CLI reference as a whole


def recording_link(kind: str, root: str = "../") -> str:
    """A Markdown link to where the site lists the commands that record ``kind``, from a page
    whose way back to the site's root is ``root`` (``"../"`` for every page but the home page)."""
    target = RECORDED_BY.get(kind, (kind, RECORDING_CLI))[1]
    where = "Contributing" if target.startswith("contributing/") else "CLI reference"
    return f"[{where}]({root}{target})"


# Notes worded in the site's Markdown, which these functions fill in (the folder is excluded from
# the pages, as the macros' includes are).
INCLUDES = ROOT / "docs" / "includes"


def no_run_yet(kind: str, device: str, *, root: str = "../") -> str:
    """The note where a results section has no recorded file, as ``docs/includes/no-run-yet.md``
    words it: what is missing, in the words of the page, and a link to the commands that record
    it."""
    where = "a CUDA GPU" if device == "cuda" else "a CPU"
    words = RECORDED_BY.get(kind, (kind, RECORDING_CLI))[0]
    note = (INCLUDES / "no-run-yet.md").read_text()
    return note.format(words=words, where=where, link=recording_link(kind, root))


def document(kind: str, device: str = "cuda", *, build: Build | None = None) -> dict | None:
    """The newest recorded ``docs/results/*/<kind>.json`` run on ``device`` ("cuda" or "cpu");
    None where there is none."""
    if device not in config.DEVICE_TYPES:
        raise ValueError(f"device {device!r}: expected one of {', '.join(config.DEVICE_TYPES)}")
    return folders.newest((build or current()).results_dir, kind, device)


def show(kind: str, render: Callable[[dict], str], device: str = "cuda", *,
         build: Build | None = None) -> str:
    """Markdown for one results section on ``device``: the ``document`` rendered and stamped,
    or the "no run yet" note where there is none."""
    doc = document(kind, device, build=build)
    if doc is None:
        return no_run_yet(kind, device)
    return section(render(doc), stamps.stamp(doc, "recorded"))


# The pages' name for a section recorded command by command (training on a GPU, the production
# runs, the ladders): read the same way as every other.
recorded = show


def live(name: str, render: Callable[[Any], str], *, build: Build | None = None) -> str:
    """A cheap result recorded on any machine (graph and break counts, say): the record of the
    section listed under ``name`` in ``snippets.site.live``, rendered and stamped with the
    device, torch and commit it was recorded on; stale or not (the suite says which are)."""
    value, meta = live_sections.value(name, build)
    return section(render(value), live_stamp(meta))


def live_stamp(meta: dict[str, Any]) -> str:
    """The stamp of a live section's record: the device, torch, the day and the commit."""
    return (f"recorded on {meta['device']} · torch {meta['torch']} · {meta['date'][:10]} · "
            f"commit {stamps.short_commit(meta.get('commit'))}")


# ---- plots ---------------------------------------------------------------------------------

def plot(draw: Callable[..., str], *docs: dict, build: Build | None = None) -> str:
    """``draw(*docs)``, a figure's HTML, through the cache: matplotlib is imported and a figure
    drawn only when the documents, the plotting code or matplotlib changed."""
    name = f"plot-{draw.__module__}.{draw.__name__}-matplotlib-{metadata.version('matplotlib')}"
    return cache.memo(name, functools.partial(draw, *docs), build or current())


def with_plot(draw: Callable[[dict], str],
              render: Callable[[dict], str]) -> Callable[[dict], str]:
    """A rendering for ``show``: the plot, then the table it draws, in one block under one stamp."""
    return lambda doc: plot(draw, doc) + "\n\n" + render(doc)


# ---- sections drawn from several recorded runs ------------------------------------------------

def evidence(which: str, *, build: Build | None = None) -> str:
    """One block of the benchmark page's noise evidence (``stability_tables.evidence``)."""
    from snippets.bench import stability, stability_tables

    runs = stability.recorded_gpu_runs((build or current()).results_dir)
    if len(runs) < 2:
        return no_run_yet("bench", "cuda")
    body, used = stability_tables.evidence(which, runs)
    return section(body, stability_tables.runs_stamp(used))


def repeated(kind: str, render: Callable[[dict, dict], str], device: str = "cuda", *,
             alone: Callable[[dict], str] | None = None, build: Build | None = None) -> str:
    """Two recorded runs of one kind from the same run folder, ``<kind>.json`` and
    ``<kind>-repeat.json`` (the same commands run again), rendered together under both stamps;
    where no second run is recorded, the first alone by ``alone`` if given."""
    root = (build or current()).results_dir
    again = next(((p, d) for p, d in folders.recorded_runs(root, f"{kind}-repeat")
                  if results.device_type_of(d) == device), None)
    if again is None or not (first := again[0].parent / f"{kind}.json").exists():
        if alone is not None:
            return recorded(kind, alone, device=device, build=build)
        return no_run_yet(f"{kind}-repeat", device)
    doc = results.load(first, kind)
    # A stamp starts with where its numbers came from ("recorded"), as every stamp does.
    return section(render(doc, again[1]), f"{stamps.stamp(doc, 'recorded, run 1')}; "
                                          f"{stamps.stamp(again[1], 'recorded, run 2')}")


def payoff(*, build: Build | None = None) -> str:
    """The cold/warm compile table from the first two H200 runs, stamped with both."""
    from snippets.bench import payoff as pay
    from snippets.bench import plots

    pair = pay.first_two((build or current()).results_dir)
    if pair is None:
        return no_run_yet("bench", "cuda")
    cold, warm = pair
    body = plot(plots.break_even, cold, warm, build=build) + "\n\n" + pay.cold_warm_markdown(
        cold, warm)
    return section(body, pay.cold_warm_stamp(cold, warm))


def compare(mine: str, recorded: str, *, build: Build | None = None) -> str:
    """One recorded bench run beside another, as ``python -m snippets.bench --compare`` sets a
    run beside a recorded file; both named by their path under ``docs/results/``."""
    from snippets.bench import tables

    root = (build or current()).results_dir
    doc, other = results.load(root / mine, "bench"), results.load(root / recorded, "bench")
    return section(tables.compare_page(doc, other), f"{stamps.stamp(doc, 'recorded')}, "
                                                    f"compared with {stamps.stamp(other)}")


def independent(*, build: Build | None = None) -> str:
    """The CUDA-graph rows timed alone in processes of their own, beside the benchmark run made
    just before them (``snippets.bench.independent``), stamped with every process."""
    from snippets.bench import independent as alone

    runs = alone.recorded((build or current()).results_dir)
    if runs is None:
        return no_run_yet(alone.KIND, "cuda")
    harness, docs = runs
    stamp = "; ".join([stamps.stamp(harness, "recorded, harness"),
                       alone.stamp(docs)])
    return section(alone.table(alone.of(harness, docs)), stamp)


def fresh_settings(folder: str = "cudnn-benchmark", *, build: Build | None = None) -> str:
    """A backend switch measured one process per setting (``snippets.speed.fresh``; ``folder``
    names the switch), stamped with the processes it was drawn from."""
    from snippets.speed import fresh

    docs = fresh.recorded((build or current()).results_dir, folder)
    if not docs:
        return no_run_yet("bench", "cuda")
    return section(fresh.table(fresh.of(docs, folder)), fresh.stamp(docs))


def build_times(device: str, *, build: Build | None = None) -> str:
    """The recorded build times of the newest run folder of ``device``, stamped."""
    from snippets.site import buildtime

    doc = folders.newest((build or current()).results_dir, buildtime.KIND, device)
    if doc is None:
        return no_run_yet(buildtime.KIND, device)
    return section(buildtime.markdown(doc), stamps.stamp(doc, "recorded"))
