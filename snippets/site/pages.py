"""What the site's exec blocks call: results sections and live sections, read from files.

Each function returns Markdown (a page's exec block prints it). A build only reads what
``python -m snippets.site.produce`` or a topic's own command line wrote before it.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from snippets.core import config, folders, results, stamps
from snippets.site import cache
from snippets.site import live as live_sections
from snippets.site import topics  # noqa: F401 (declares every kind a file read here is of)
from snippets.site.build import ROOT, Build, current


# ---- sections --------------------------------------------------------------------------------

def section(body: str, stamp: str) -> str:
    """A results block: the rendered body with its stamp under it, marked for the site check."""
    return "\n\n".join(['<div class="results" markdown>', body.strip(),
                        f'<p class="stamp">{html.escape(stamp)}</p>', "</div>\n"])


# Notes worded in the site's Markdown, which these functions fill in.
INCLUDES = ROOT / "docs" / "includes"
RECORDING_CLI = "cli/"  # a kind with no words of its own: the CLI reference as a whole
# kind -> (what its page calls it, where the commands that record it are listed). Targets are
# as served, from the site's root: a note does not know the page it lands on, so its link starts
# at SITE_ROOT, which the build's hooks finish for that page (``hooks.site_sources`` in a macro's
# Markdown, ``hooks.site_links`` in an exec block's HTML).
RECORDED_BY = {kind: (words, target) for target, named in
               yaml.safe_load((INCLUDES / "recorded-by.yml").read_text()).items()
               for kind, words in named.items()}
SITE_ROOT = "@site/"


def no_run_yet(kind: str, device: str) -> str:
    """The note where a results section has no recorded file (``no-run-yet.md``)."""
    words, target = RECORDED_BY.get(kind, (kind, RECORDING_CLI))
    where = "Contributing page" if target.startswith("contributing/") else "CLI reference"
    return (INCLUDES / "no-run-yet.md").read_text().format(
        words=words, where="a CUDA GPU" if device == "cuda" else "a CPU",
        link=f"[{where}]({SITE_ROOT}{target})")


def document(kind: str, device: str = "cuda", *, build: Build | None = None) -> dict | None:
    """The newest recorded ``docs/results/*/<kind>.json`` run on ``device``; None if none."""
    if device not in config.DEVICE_TYPES:
        raise ValueError(f"device {device!r}: expected one of {', '.join(config.DEVICE_TYPES)}")
    return folders.newest((build or current()).results_dir, kind, device)


def show(kind: str, render: Callable[[dict], str], device: str = "cuda", *,
         build: Build | None = None) -> str:
    """One results section: the ``document`` rendered and stamped, or the "no run yet" note."""
    doc = document(kind, device, build=build)
    if doc is None:
        return no_run_yet(kind, device)
    return section(render(doc), stamps.stamp(doc, "recorded"))


# The pages' name for a section recorded command by command: read the same way as every other.
recorded = show


def live(name: str, render: Callable[[Any], str], *, build: Build | None = None) -> str:
    """A live section's record (``snippets.site.live``), rendered and stamped, stale or not."""
    value, meta = live_sections.value(name, build)
    return section(render(value), live_stamp(meta))


def live_stamp(meta: dict[str, Any]) -> str:
    """The stamp of a live section's record: the device, torch, the day and the commit."""
    return " · ".join([f"recorded on {meta['device']}", f"torch {meta['torch']}",
                       meta["date"][:10], f"commit {stamps.short_commit(meta.get('commit'))}"])


# ---- plots ---------------------------------------------------------------------------------

def plot(draw: Callable[..., str], *docs: dict, build: Build | None = None) -> str:
    """``draw(*docs)``, a figure's HTML, through the cache: drawn again only when the documents,
    the plotting code or matplotlib changed."""
    name = f"plot-{draw.__module__}.{draw.__name__}-{metadata.version('matplotlib')}"
    return cache.memo(name, functools.partial(draw, *docs), build or current())


def with_plot(draw: Callable[[dict], str],
              render: Callable[[dict], str]) -> Callable[[dict], str]:
    """A rendering for ``show``: the plot, then the table it draws, under one stamp."""
    return lambda doc: plot(draw, doc) + "\n\n" + render(doc)


# ---- sections drawn from several recorded runs ------------------------------------------------

def _results(build: Build | None) -> Path:
    return (build or current()).results_dir


def evidence(which: str, *, build: Build | None = None) -> str:
    """One block of the benchmark page's noise evidence (``stability_tables.evidence``)."""
    from snippets.bench import stability, stability_tables

    runs = stability.recorded_gpu_runs(_results(build))
    if len(runs) < 2:
        return no_run_yet("bench", "cuda")
    body, used = stability_tables.evidence(which, runs)
    return section(body, stability_tables.runs_stamp(used))


def repeated(kind: str, render: Callable[[dict, dict], str], device: str = "cuda", *,
             alone: Callable[[dict], str] | None = None, build: Build | None = None) -> str:
    """``<kind>.json`` and ``<kind>-repeat.json`` of one run folder rendered together under both
    stamps; without the second, the first alone by ``alone`` if given."""
    again = next(((p, d) for p, d in folders.recorded_runs(_results(build), f"{kind}-repeat")
                  if results.device_type_of(d) == device), None)
    if again is None or not (first := again[0].parent / f"{kind}.json").exists():
        if alone is not None:
            return recorded(kind, alone, device=device, build=build)
        return no_run_yet(f"{kind}-repeat", device)
    doc = results.load(first, kind)
    return section(render(doc, again[1]), f"{stamps.stamp(doc, 'recorded, run 1')}; "
                                          f"{stamps.stamp(again[1], 'recorded, run 2')}")


def payoff(*, build: Build | None = None) -> str:
    """The cold/warm compile table from the first two H200 runs, stamped with both."""
    from snippets.bench import payoff as pay
    from snippets.bench import plots

    pair = pay.first_two(_results(build))
    if pair is None:
        return no_run_yet("bench", "cuda")
    body = plot(plots.break_even, *pair, build=build) + "\n\n" + pay.cold_warm_markdown(*pair)
    return section(body, pay.cold_warm_stamp(*pair))


def compare(mine: str, recorded: str, *, build: Build | None = None) -> str:
    """One recorded bench run beside another (as ``bench --compare`` does), by their paths
    under ``docs/results/``."""
    from snippets.bench import tables

    root = _results(build)
    if not (root / mine).exists() or not (root / recorded).exists():
        # A CPU's run folder is named from "cpu" (folders.run_folder).
        return no_run_yet("bench-compare", "cpu" if mine.startswith("cpu") else "cuda")
    doc, other = results.load(root / mine, "bench"), results.load(root / recorded, "bench")
    return section(tables.compare_page(doc, other), f"{stamps.stamp(doc, 'recorded')}, "
                                                    f"compared with {stamps.stamp(other)}")


def independent(*, build: Build | None = None) -> str:
    """The CUDA-graph rows timed in processes of their own, beside the benchmark run made just
    before them (``snippets.bench.independent``)."""
    from snippets.bench import independent as alone

    runs = alone.recorded(_results(build))
    if runs is None:
        return no_run_yet(alone.KIND, "cuda")
    harness, docs = runs
    stamp = f"{stamps.stamp(harness, 'recorded, harness')}; {alone.stamp(docs)}"
    return section(alone.table(alone.of(harness, docs)), stamp)


def fresh_settings(folder: str = "cudnn-benchmark", *, build: Build | None = None) -> str:
    """A backend switch measured one process per setting (``snippets.speed.fresh``)."""
    from snippets.speed import fresh

    docs = fresh.recorded(_results(build), folder)
    if not docs:
        return no_run_yet("bench", "cuda")
    return section(fresh.table(fresh.of(docs, folder)), fresh.stamp(docs))


def build_times(device: str, *, build: Build | None = None) -> str:
    """The recorded build times of the newest run folder of ``device``."""
    from snippets.site import buildtime

    return show(buildtime.KIND, buildtime.markdown, device, build=build)
