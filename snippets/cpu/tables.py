"""The CPU page's tables, drawn from a CPU results document or its findings
(``snippets.cpu.findings``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from snippets import cpu
from snippets.core import columns, render
from snippets.cpu import findings
from snippets.cpu.findings import Group

# Variants as a column heads them: short enough for several side by side.
SHORT = {"eager": "eager", "compile": "compile", "compile-freezing": "+ freezing",
         "onnxruntime": "ONNX Runtime", "openvino-f32": "OpenVINO f32",
         "eager-bf16": "eager bf16", "compile-freezing-bf16": "+ freezing, bf16",
         "openvino": "OpenVINO default"}
FP32 = ("compile", "compile-freezing", "onnxruntime", "openvino-f32")
BF16 = ("eager-bf16", "compile-freezing-bf16", "openvino")
# What a table's columns mean (each timed in a process of its own, the error's norm, who else
# took the cores) is worded on the page under the table, docs/cpu.md, and on the Results page.


def _label(g: Group) -> str:
    return f"{g.model} · {g.batch}"


def _x(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}x"


def recipe(doc: dict[str, Any]) -> str:
    """The recipe one step at a time: eager fp32's median, each step's speedup, the bf16 error."""
    f = findings.of(doc)
    steps = [to for _, to in findings.STEPS]
    body = []
    for g in f.groups:
        last = g.get(steps[-1])
        body.append([_label(g), render.ms(g.eager_ms),
                     *(_x(g.timed[s].speedup) if s in g.timed else _status(g, s)
                       for s in steps),
                     render.num(last.rel_err if last else None, ".1e")])
    head = ["Model · batch", "Eager ms", *(SHORT[s] for s in steps), "Error, bf16"]
    return render.markdown_table(head, body)


def _status(g: Group, variant: str) -> str:
    """A cell for a variant that did not run or did not answer as eager did: its status."""
    return g.failed.get(variant, "–").split(":")[0]


def _ms(g: Group, variant: str) -> str:
    t = g.get(variant)
    if t is None:
        return _status(g, variant)
    shown = render.ms(t.median)
    return shown if t.precision in ("fp32", cpu.BY_KEY[variant].precision) else (
        f"{shown} ({t.precision})")


def against(doc: dict[str, Any], variants: Sequence[str] = FP32) -> str:
    """Compile's recipes beside the runtimes at one precision (``FP32`` or ``BF16``), and
    compile's best over the fastest runtime's."""
    f = findings.of(doc)
    precision = "bf16" if variants == BF16 else "fp32"
    body = []
    for g in f.groups:
        s = g.standing(precision)
        body.append([_label(g), *(_ms(g, v) for v in variants),
                     f"{s.ratio:.2f} ({s.gap.value})" if s else "–"])
    head = ["Model · batch", *(SHORT[v] for v in variants), "Compile ÷ fastest"]
    return render.markdown_table(head, body)


def first_answers(doc: dict[str, Any]) -> str:
    """Seconds to each variant's first answer; fp32's variants, then bf16's (one table of all
    eight is wider than the page)."""
    f = findings.of(doc)

    def one(keys: Sequence[str]) -> str:
        variants = [k for k in keys if any(k in g.timed for g in f.groups)]
        body = [[_label(g), *(render.ms(g.timed[v].first_s) if v in g.timed
                              else _status(g, v) for v in variants)] for g in f.groups]
        return render.markdown_table(["Model · batch", *(SHORT[v] for v in variants)],
                                     body) if variants else ""
    return "\n\n".join(t for t in (one((cpu.BASELINE, *FP32)), one(BF16)) if t)


def table(doc: dict[str, Any]) -> str:
    """Every row of the file."""
    eager = {(r["model"], r["batch_size"]): r for r in doc["rows"]
             if r["variant"] == cpu.BASELINE and r.get("latency_ms")}

    def speedup(r: dict[str, Any]) -> float | None:
        base = eager.get((r["model"], r["batch_size"]))
        if base is None or not r.get("latency_ms") or r["status"] not in ("ok", "noisy"):
            return None
        return base["latency_ms"]["median"] / r["latency_ms"]["median"]

    def others(r: dict[str, Any]) -> float | None:
        share = findings.others_share(r, doc["provenance"])
        return None if share is None else 100 * share

    key = (columns.field("Model", "model"), columns.field("Batch", "batch_size"),
           columns.Column("Variant", lambda r: cpu.BY_KEY[r["variant"]].label, left=True))
    return columns.markdown(doc["rows"], key, (
        columns.words("Runs at", lambda r: r.get("precision")),
        columns.timing("Median", lambda r: r.get("latency_ms")),
        columns.Column("× eager", speedup, lambda v: f"{v:.2f}x"),
        columns.Column("First s", lambda r: r.get("first_s"), render.ms),
        columns.Column("Error", lambda r: r.get("rel_err"), lambda v: f"{v:.1e}"),
        columns.Column("Others %", others, lambda v: f"{v:.0f}"),
        columns.status()))


def profiles(doc: dict[str, Any]) -> str:
    """Where a call's time goes, in each one's own profiler, where a runtime ran ahead of
    compile's best by more than ``findings.LEVEL``."""
    f = findings.of(doc)
    by = {(r["model"], r["batch_size"], r["variant"]): r for r in doc["rows"]}
    chosen = []
    for g, s in f.behind:
        for v in (s.compiled, s.runtime):
            r = by[(g.model, g.batch, v)]
            chosen.append({**r, "label": f"{_label(g)} · {SHORT[v]}"})
    labelled, failed = render.profiled(chosen, lambda r: r["label"])
    if not labelled:
        return "\n".join(failed)
    return "\n\n".join(x for x in (
        render.profile_table(labelled, "Model · batch · variant"),
        render.top_kernels(labelled), "\n".join(failed)) if x)


def behind(doc: dict[str, Any]) -> str:
    """Each group and precision where a runtime ran ahead of compile's best by over ``LEVEL``."""
    body = [[_label(g), s.precision, *s.labels, f"{s.ratio:.2f}"]
            for g, s in findings.of(doc).behind]
    return render.markdown_table(["Model · batch", "Precision", "Compile's best", "Runtime",
                                  "Compile ÷ runtime"], body, left=4)
