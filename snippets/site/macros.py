"""Findings placed into the prose of a page (the ``macros`` plugin in mkdocs.yml).

A page with ``render_macros: true`` is a Jinja template: hand-written sentences around
placeholders whose numbers come from the findings of the documents its results blocks render.

    {% set gpu = findings("bench", "cuda") %}
    {% if gpu %}eager takes {{ gpu.growth[0].time_ratio | fmt(".2f") }} times as long ...{% endif %}

Pages may call what ``define_env`` names, and filter with ``fmt`` and ``span``.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from snippets.bench import payoff
from snippets.core import render, stamps
from snippets.core.findings import Span
from snippets.explain import findings as explain_findings
from snippets.site import live, pages, topics
from snippets.site.build import current
from snippets.speed import freezing_findings

# The name a page asks for -> its findings, as each topic's record names them.
SOURCES = topics.FINDINGS


@dataclass(frozen=True)
class Placed:
    """A document's findings with what a page shows beside them: its stamp and its device."""

    data: Any
    stamp: str
    device: str
    provenance: tuple[dict[str, Any], ...] = ()  # of each document it read

    def __getattr__(self, name: str) -> Any:  # the findings' own fields, read through
        return getattr(self.data, name)


def findings(name: str, device: str) -> Placed | None:
    """The findings ``name`` computes from the documents a page shows on ``device``, under their
    stamps joined; None where the first of its kinds has no run."""
    if name not in SOURCES:
        raise KeyError(f"no findings {name!r} in a topic's record")
    src = SOURCES[name]
    found = [pages.document(kind, device) for kind in src.kinds]
    if found[0] is None:
        return None
    # runs stamped alike (two processes of one command) read as one stamp
    stamp = "; ".join(dict.fromkeys(stamps.stamp(doc, "recorded") for doc in found
                                    if doc is not None))
    return Placed(src.of(*found), stamp, found[0]["provenance"]["device"],
                  tuple(doc["provenance"] for doc in found if doc is not None))


def cudnn_fresh(folder: str = "cudnn-benchmark") -> Any:
    """The findings of a backend switch measured one process per setting; None if unrecorded."""
    from snippets.speed import fresh

    docs = fresh.recorded(current().results_dir, folder)
    return fresh.of(docs, folder) if docs else None


def bench_runs() -> Placed | None:
    """The findings of every recorded GPU run of the default matrix (``bench.stability``) under
    one stamp; None where fewer than two are recorded."""
    from snippets.bench import stability, stability_tables

    runs = stability.recorded_gpu_runs(current().results_dir)
    if len(runs) < 2:
        return None
    return Placed(stability.of(runs), stability_tables.runs_stamp(runs),
                  runs[0][1]["provenance"]["device"], tuple(d["provenance"] for _, d in runs))


def cold_warm() -> Any:
    """The rows slower to pay in the second of two processes on one fresh machine
    (``bench.payoff``); None where the two are not recorded."""
    pair = payoff.first_two(current().results_dir)
    return payoff.slower_to_pay(*pair) if pair else None


def explain_agreement() -> Placed:
    """The explainer held to Dynamo's log, from the live section the graph-breaks page shows."""
    from snippets.explain import agreement

    value, meta = live.value(agreement.KIND)
    return Placed(explain_findings.agreement(value), pages.live_stamp(meta), meta["device"])


def freezing_ways() -> freezing_findings.Prepacked:
    """Which way of asking for freezing prepacked the convolutions, from the freezing page's
    live section."""
    return freezing_findings.prepacked(live.value("speed-freezing")[0])


def together(*runs: Placed | None) -> Placed | None:
    """Several runs' findings under one stamp line, for a table that places figures of more
    than one run (the home page's decisions)."""
    found = [r for r in runs if r is not None]
    if not found:
        return None
    provs = [p for r in found for p in r.provenance]
    stamp = ("; ".join(r.stamp for r in found) if len(found) <= TOGETHER_IN_FULL
             else summary_stamp(provs))
    return Placed(tuple(r.data for r in found), stamp, found[0].device, tuple(provs))


# More runs than this under one table get one line per machine and torch, not every stamp in
# full: each figure's own page shows its run's whole stamp.
TOGETHER_IN_FULL = 3


def summary_stamp(provenance: list[dict[str, Any]]) -> str:
    """One stamp for many results files: per machine and torch, how many files and the days."""
    groups: dict[tuple[str, str], list[str]] = {}
    for p in provenance:
        groups.setdefault((p.get("device") or "unknown device", p["torch"]), []).append(
            (p.get("date") or "")[:10])
    parts = []
    for (device, torch_version), days in groups.items():
        span = " to ".join(dict.fromkeys([min(days), max(days)]))
        files = f"{len(days)} results file" + ("s" if len(days) > 1 else "")
        parts.append(" · ".join([device, f"torch {torch_version}", f"{files}, {span}"]))
    return "recorded: " + "; ".join(parts)  # the page says where the full stamps are


def stamped(run: Placed, caller: Callable[[], str]) -> str:
    """``{% call stamped(run) %}...{% endcall %}``: the words in a results block under the
    stamp of the run they read."""
    return pages.section(caller(), run.stamp)


def headline(figure: Any, spec: str = ".2f") -> str:
    """A configuration's one canonical figure ("8.68x"; "–" where the runs lack it), in a span
    naming the configuration (``figure.key``) and the value, which ``snippets.site.figures``
    holds to one value per configuration across the site."""
    if figure is None or figure.median is None:
        return "–"
    shown = render.num(figure.median, spec)
    attrs = f'class="headline" data-figure="{html.escape(figure.key)}" data-value="{shown}"'
    return f"<span {attrs}>{shown}x</span>"


def fmt(value: float | None, spec: str = ".2f") -> str:
    return render.num(value, spec)


def span(value: Span | None, spec: str = ".2f", suffix: str = "") -> str:
    if value is None:
        return "–"
    return render.span((value.low, value.high), spec, suffix)


def define_env(env: Any) -> None:
    """What mkdocs-macros calls when the build starts."""
    for macro in (findings, cudnn_fresh, bench_runs, cold_warm, explain_agreement,
                  freezing_ways, pages.no_run_yet, stamped, headline, together):
        env.macro(macro)
    env.macro(render.ms, "ms")  # a latency as every table shows it
    env.filter(fmt)
    env.filter(span)
