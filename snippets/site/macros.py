"""Findings placed into the prose of a page (the ``macros`` plugin in mkdocs.yml).

A page that sets ``render_macros: true`` in its front matter is a Jinja template: its sentences
are written by hand around ``{{ ... }}`` placeholders, and the numbers and verdicts come from the
findings of the same document its results blocks render, through ``pages.document`` (so a fresh
build measures once and both read that run). Undefined names fail the build (``on_undefined:
strict``): a misspelt finding is an error, not an empty space.

    {% set gpu = findings("bench", "cuda") %}
    {% if gpu %}eager takes {{ gpu.growth[0].time_ratio | fmt(".2f") }} times as long ...{% endif %}

Functions a page may call: ``findings(kind, device)``, ``no_run_yet(kind, device)``. Filters:
``fmt`` (a format spec, "–" for None) and ``span`` (a ``Span`` as "a to b", one number where the
two are equal once formatted).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from snippets import bench
from snippets.bench import findings as bench_findings
from snippets.core import render, results
from snippets.core.findings import Span
from snippets.site import pages

# kind -> (the producer a fresh build measures with on a device type, or None where the kind is
# only ever recorded; the function from a document to its findings)
SOURCES: dict[str, tuple[Callable[[str], Callable[..., dict]] | None, Callable[[dict], Any]]] = {
    "bench": (bench.produce_on, bench_findings.of),
}


@dataclass(frozen=True)
class Placed:
    """A document's findings with what a page shows beside them: its stamp and its device."""

    data: Any
    stamp: str
    device: str

    def __getattr__(self, name: str) -> Any:  # the findings' own fields, read through
        return getattr(self.data, name)


def findings(kind: str, device: str) -> Placed | None:
    """The findings of the document a page shows for ``kind`` on ``device``; None where no run
    is recorded."""
    if kind not in SOURCES:
        raise KeyError(f"no findings for {kind!r}: add the kind to snippets.site.macros.SOURCES")
    produce_on, of = SOURCES[kind]
    doc, how = pages.document(kind, produce_on(device) if produce_on else None, device=device)
    if doc is None:
        return None
    return Placed(of(doc), results.stamp(doc, how), doc["provenance"]["device"])


def fmt(value: float | None, spec: str = ".2f") -> str:
    return render.num(value, spec)


def span(value: Span | None, spec: str = ".2f", suffix: str = "") -> str:
    if value is None:
        return "–"
    return render.span((value.low, value.high), spec, suffix)


def define_env(env: Any) -> None:
    """What mkdocs-macros calls when the build starts."""
    env.macro(findings)
    env.macro(lambda kind, device, root="../": pages.no_run_yet(kind, device, root=root),
              "no_run_yet")
    env.filter(fmt)
    env.filter(span)
