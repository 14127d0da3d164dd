"""Graphs and breaks of the page's examples and of the benchmark models: tracing only, no compiler
runs, so any CPU records them in seconds (``python -m snippets.site.produce``)."""

from __future__ import annotations

from typing import Any

import torch

from snippets.core import models
from snippets.explain import breaks, explain_quietly, kinds


def causes_doc(*, commit: str | None = None) -> dict[str, Any]:
    """Graphs and breaks of every broken example and its fixes."""
    rows = []
    for cause in breaks.CAUSES:
        for kind, variant in cause.variants():
            torch.manual_seed(0)
            model = variant.module().eval()
            exp = explain_quietly(model, *variant.args(breaks.example_input()))
            rows.append({"cause": cause.title, "variant": variant.name, "kind": kind,
                         **exp.as_dict()})
    return kinds.traced(kinds.CAUSES, rows, commit)


def models_doc(*, commit: str | None = None) -> dict[str, Any]:
    """Graph counts of the two benchmark models, traced as the benchmark runs them."""
    rows = []
    for name, factory in models.BUILTIN.items():
        model, x = factory(1)
        exp = explain_quietly(model.eval(), x)
        rows.append({"model": name, **exp.as_dict(),
                     "ops": sum(len(ops) for ops in exp.ops_per_graph)})
    return kinds.traced(kinds.MODELS, rows, commit)
