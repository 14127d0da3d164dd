"""Graphs and breaks of the page's examples and of the benchmark models: tracing only, no compiler
runs, so any CPU records them in seconds (``python -m snippets.site.produce``)."""

from __future__ import annotations

from typing import Any

import torch

from snippets.core import models, results
from snippets.explain import breaks, explain_quietly, kinds


def causes_doc(*, commit: str | None = None) -> dict[str, Any]:
    """Graphs and breaks of every broken example and its fixes."""
    doc = results.new_document(kinds.CAUSES.name,
                               results.provenance(torch.device("cpu"), {}, commit=commit))
    for cause in breaks.CAUSES:
        for kind, variant in [("broken", cause.broken)] + [("fixed", f) for f in cause.fixes]:
            torch.manual_seed(0)
            model = variant.module().eval()
            exp = explain_quietly(model, *variant.args(breaks.example_input()))
            doc["rows"].append({"cause": cause.title, "variant": variant.name, "kind": kind,
                                **exp.as_dict()})
    doc["complete"] = True
    return doc


def models_doc(*, commit: str | None = None) -> dict[str, Any]:
    """Graph counts of the two benchmark models, traced as the benchmark runs them."""
    doc = results.new_document(kinds.MODELS.name,
                               results.provenance(torch.device("cpu"), {}, commit=commit))
    for name, factory in models.BUILTIN.items():
        model, x = factory(1)
        exp = explain_quietly(model.eval(), x)
        doc["rows"].append({"model": name, **exp.as_dict(),
                            "ops": sum(len(ops) for ops in exp.ops_per_graph)})
    doc["complete"] = True
    return doc
