"""The graph-breaks page's results kinds, declared once: timed breaks, and the counts and logs
that ``python -m snippets.site.produce`` records on any CPU in seconds."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch

from snippets.core import results
from snippets.core.results import NUM, Kind, declare

_EXPLAINED = {"graph_count": (int,), "graph_break_count": (int,), "break_reasons": (list,)}

GRAPH_BREAKS = declare(Kind("graph-breaks", "snippets.graph-breaks/1", {
    "cause": (str,), "variant": (str,), "kind": (str,), "graph_count": (int,),
    "graph_break_count": (int,), "compile_s": NUM, "rel_err": NUM, "eager_ms": (dict,),
    # None where the compiled side failed (its status and message say how)
    "compiled_ms": (dict, type(None)), "speedup": NUM}, variant="variant"))
FASTPATH = declare(Kind("transformer-fastpath", "snippets.fastpath/1", {
    "batch_size": (int,), "variant": (str,), "compile_s": NUM, "rel_err": NUM,
    "latency_ms": (dict,), "speedup": NUM}, variant="variant", timing="latency_ms"))
# Recorded on any CPU in seconds, by the produce step: counts and logs, nothing timed.
CAUSES = declare(Kind("explain-causes", "snippets.explain-causes/1",
                      {"cause": (str,), "variant": (str,), "kind": (str,), **_EXPLAINED},
                      variant="variant", measured=False))
MODELS = declare(Kind("explain-models", "snippets.explain-models/1",
                      {"model": (str,), "ops": (int,), **_EXPLAINED}, measured=False))
TRANSFORMER_GRAPH = declare(Kind("transformer-graph", "snippets.transformer-graph/1", {
    "fastpath": (bool,), "graph_count": (int,), "graph_break_count": (int,), "ops": (dict,)},
    measured=False))
AGREEMENT = declare(Kind("explain-agreement", "snippets.explain-agreement/2", {
    "case": (str,), "file": (str,), "source": (str,), "logged": (list,), "explain": (list,),
    "torch_explain": (list, type(None)), "agrees": (bool,), "torch_agrees": (bool,)},
    measured=False))


def traced(kind: Kind, rows: list[dict[str, Any]], commit: str | None) -> dict[str, Any]:
    """A whole document of one of the kinds recorded by tracing on the CPU."""
    prov = results.provenance(torch.device("cpu"), {}, commit=commit)
    return results.new_document(kind.name, prov, rows=rows, complete=True)


def timed(kind: str, cfg: Any, each: Callable[[Any], list[dict[str, Any]]], items: Iterable[Any],
          commit: str | None) -> dict[str, Any]:
    """A whole timed document of ``each(item)``'s rows, under the resolved config's backend
    settings and no grad, Dynamo reset after each item so that no trace leaks into the next."""
    prov = results.provenance(torch.device(cfg.device), cfg.settings(), commit=commit)
    doc = results.new_document(kind, prov)
    with cfg.backends.apply(), torch.no_grad():
        for item in items:
            doc["rows"] += each(item)
            torch._dynamo.reset()
    doc["complete"] = True
    return doc
