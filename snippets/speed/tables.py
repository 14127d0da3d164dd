"""The tables of "How fast can it go": ladders against the measured ceilings, profiles, the
settings grid and the freezing check, each from a results document."""

from __future__ import annotations

from typing import Any

from snippets.core import columns, render
from snippets.core import rows as typed
from snippets.core import roofline
from snippets.speed import choices, findings, freezing, freezing_findings, settings

# What labels a row: the model, the batch, the mode (a rung, a point of the grid).
KEY = (columns.field("Model", "model"), columns.field("Batch", "batch_size"),
       columns.variant("Mode", "mode"))


def _label(r: dict[str, Any], tag: str = "") -> str:
    return " · ".join(x for x in (r["model"], str(r["batch_size"]), tag, r["mode"]) if x)


def _median(r: dict[str, Any]) -> float | None:
    return (r.get("latency_ms") or {}).get("median")


def ceilings(doc: dict[str, Any]) -> str:
    """The ceilings the run measured, as a table; "" where it measured none."""
    c = findings.ladders(doc).ceilings
    if c is None:
        return ""
    # A CPU copies main memory to main memory: "device-to-device" would name a GPU's copy.
    copy = "device-to-device" if c.device_copy else "memory"
    return render.markdown_table(("Ceiling", "Of", "Median rate", "Samples"), (
        ("matmul", f"{c.matmul_n}×{c.matmul_n} {c.matmul_dtype}",
         f"{c.matmul_tflops:.4g} TFLOP/s", str(c.samples)),
        (f"{copy} copy", f"{render.num(c.copy_mib, 'g')} MiB, read plus written",
         f"{c.copy_gbps:.4g} GB/s", str(c.samples))), align="llrr")


def ladder(doc: dict[str, Any], blocks: list[typed.InRun] | None = None) -> str:
    """The key columns of every ladder; ``blocks``: the rows to show, each ladder's climb from
    its one eager row by default (``findings.climbed``)."""
    placed = findings.climbed(doc) if blocks is None else blocks
    # A ratio is shown against a row the table shows from the same run: × eager where the run's
    # eager row is in the file, × below where the rung below is the row above it.
    below = {id(p): _below(p, q) for p, q in zip(placed, [None, *placed[:-1]], strict=True)}
    return columns.markdown(placed, (*KEY[:2], columns.variant("Rung", "mode")), (
        columns.timing("Median", lambda p: p.row.get("latency_ms")),
        columns.number("× eager", lambda p: p.row.get("speedup") if p.paired else None, ".2f",
                       notes=(columns.RATIO,)),
        columns.number("× below", lambda p: p.row.get("speedup_prev") if below[id(p)] else None,
                       ".2f", notes=(columns.RATIO,)),
        columns.number("Compile s", lambda p: p.row.get("compile_s"), ".1f"),
        columns.number("% of peak", lambda p: typed.pct_of_peak(p.row, doc["provenance"]),
                       ".1f"),
        columns.status(lambda p: p.row, noisy_message=False)))


def _below(p: typed.InRun, above: typed.InRun | None) -> bool:
    return (above is not None and (above.row["model"], above.row["batch_size"], above.run)
            == (p.row["model"], p.row["batch_size"], p.run)
            and above.row["mode"] == p.row.get("prev_rung"))


def roofline_table(doc: dict[str, Any]) -> str:
    """Each row's measured time beside its compute-bound and memory-bound floors."""
    ceil = doc["provenance"].get("ceilings")
    read = {id(r): roofline.row_reading(r, ceil) or {} for r in doc["rows"]}
    of = lambda p: read[id(columns.raw(p))]  # noqa: E731
    moved = lambda p: (sum(columns.raw(p)["bytes"].values()) / 1e6  # noqa: E731
                       if columns.raw(p).get("bytes") else None)
    return columns.markdown(findings.placed(doc), (*KEY[:2], columns.variant("Rung", "mode")), (
        columns.ms("Measured", lambda p: _median(columns.raw(p))),
        columns.number("Compute floor", lambda p: of(p).get("compute_ms"), ".3g",
                       notes=(columns.IN_MS,)),
        columns.number("Memory floor", lambda p: of(p).get("memory_ms"), ".3g",
                       notes=(columns.IN_MS,)),
        columns.words("Bound", lambda p: of(p).get("bound")),
        columns.Column("Floor / measured", lambda p: 100 * of(p)["of_roofline"]
                       if of(p) else None, lambda v: f"{v:.1f} %"),
        columns.number("MB moved", moved, ".1f"),
        columns.number("Call peak MB", lambda p: columns.raw(p).get("peak_mem_mb"), ".0f"),
        columns.number("rel err", lambda p: columns.raw(p).get("rel_err"), ".1e")))


def profile_table(doc: dict[str, Any]) -> str:
    """Where the fastest rung of each ladder spends a call, from the profiler."""
    labelled, failed = render.profiled(doc["rows"], _tagged(doc))
    if not labelled:
        return "\n".join(failed) or "No rung profiled."
    first = "Model · batch · fastest rung"
    split = render.kernel_classes(labelled, first)
    return "\n".join([render.profile_table(labelled, first), *failed]) + (
        "\n\n**Kernel classes**\n\n" + split if split else "")


def top_kernels(doc: dict[str, Any]) -> str:
    """The kernels that hold the most time in each profiled rung."""
    return render.top_kernels(render.profiled(doc["rows"], _tagged(doc))[0])


def _tagged(doc: dict[str, Any]) -> Any:
    """A profiled row's label with its command where a later one timed it: two commands can
    profile the same rung of one ladder."""
    tags = {id(p.row): p.tag for p in findings.placed(doc)}
    return lambda r: _label(r, tags.get(id(r), ""))


def ladder_report(doc: dict[str, Any]) -> str:
    """A ladder run's tables: ceilings and ladders, then the roofline, profiles and autotuning
    in blocks that open."""
    parts = [p for p in (ceilings(doc), ladder(doc)) if p]
    added = findings.later(doc)
    if added:  # each beside its own eager row, which its ratios are against
        parts += [render.details("Rungs added later", ladder(doc, added))]  # the page's name
    parts += [render.details("Roofline per rung", roofline_table(doc))]
    if any(r.get("profile") for r in doc["rows"]):
        parts += [render.details("Profiled rungs", profile_table(doc) + "\n\n" + top_kernels(doc))]
    tuned = choices.table(doc)
    if tuned:
        parts += [render.details("Autotuning's measurements", tuned)]
    return "\n\n".join(parts)


# ---- the settings grid ---------------------------------------------------------------------------

def settings_table(doc: dict[str, Any]) -> str:
    return columns.markdown(doc["rows"], KEY, (
        columns.words("Settings", lambda r: r.get("point", "–")),
        columns.timing("Median", lambda r: r.get("latency_ms")),
        columns.number("× all off", lambda r: r.get("speedup"), ".3f", notes=(columns.RATIO,)),
        columns.number("rel err", lambda r: r.get("rel_err"), ".1e"),
        columns.words("Status", lambda r: r["status"])))


SWITCH_WORDS = {"cudnn_benchmark": "cudnn.benchmark", "tf32": "TF32"}


def settings_verdicts(doc: dict[str, Any]) -> str:
    """Per mode and switch: the verdict, its counts and geometric mean, the setting chosen."""
    chosen = settings.chosen(doc)
    rows = []
    for (mode, switch), v in settings.verdicts(doc).items():
        on = getattr(chosen[mode], switch)
        rows.append((f"{mode} · {SWITCH_WORDS[switch]}", v["verdict"],
                     f"{v['helps']} / {v['hurts']} / {v['groups']}", f"{v['gmean']:.3f}",
                     "on" if on else "off"))
    if not rows:
        return "No switch compared."
    return render.markdown_table(("Mode · switch", "Verdict", "Helps / hurts / groups",
                                  "Geometric mean ×", "Chosen"), rows)


def settings_groups(doc: dict[str, Any]) -> str:
    """The groups the verdicts count: each model and the batch sizes it was measured at."""
    return render.markdown_table(("Model", "Batch sizes"), (
        (m, ", ".join(map(str, b))) for m, b in findings.settings(doc)), align="ll")


def settings_report(doc: dict[str, Any]) -> str:
    """The verdicts, the groups they were measured over, then every point."""
    return "\n\n".join((settings_verdicts(doc), settings_groups(doc),
                        render.details("Every grid point", settings_table(doc))))


# ---- freezing: the switch against the option ------------------------------------------------

# Short, so that the table fits a page: the prose above the table gives each one's code.
WAY_WORDS = {"option": "the option alone", "switch": "option and switch"}


def freezing_switch(value: list[dict[str, Any]]) -> str:
    """The operators each way of asking for freezing ran (``freezing.compared``); empty where
    this torch has no oneDNN."""
    if not value:
        return ""
    body = [[WAY_WORDS[v["way"]], ", ".join(f"`{op}`" for op in _innermost(v["ops"])) or "none",
             "yes" if v["prepacked"] else "no", f"{v['rel_err']:.1g}"] for v in value]
    return render.markdown_table(("Freezing set by", "Convolution that ran", "Prepacked",
                                  "Error vs eager"), body, left=3)


DISPATCH = ("aten::convolution", "aten::_convolution")  # the way in to every CPU convolution


def _innermost(ops: list[str]) -> list[str]:
    """The operators that did the work: those of ``DISPATCH`` only where no other was seen."""
    inner = [op for op in ops if op not in DISPATCH]
    return inner or ops


def _way(r: dict[str, Any]) -> str:
    return freezing.POINT_WORDS.get(r.get("point") or "", r.get("point") or r["mode"])


def freezing_table(doc: dict[str, Any]) -> str:
    """Each way's latency, its speed against no freezing, and on a GPU what a replay copied."""
    def copied(r: dict[str, Any]) -> str | None:
        c = r.get("replay_copy")
        return f"{c['tensors']:.0f} ({render.plain(c['mb'], '.3g')} MiB)" if c else None

    # A CPU has no replays: the column is left out rather than filled with dashes.
    replays = any(r.get("replay_copy") for r in doc["rows"])
    return columns.markdown(doc["rows"], (*KEY[:2], columns.words("Freezing", _way)), (
        columns.timing("Median", lambda r: r.get("latency_ms")),
        columns.number("× no freezing", lambda r: r.get("speedup"), ".2f",
                       notes=(columns.RATIO,)),
        *((columns.Column("Copied per replay", copied),) if replays else ()),
        columns.status(noisy_message=False)))


def freezing_sizes(doc: dict[str, Any]) -> str:
    """The input and weights of each model and batch, to set its copies beside; "" where no
    replay copied (a CPU)."""
    rows = [f for f in freezing_findings.freezing(doc)
            if f.copied is not None and f.weights_mib]
    return render.markdown_table(("Model · batch", "Input MiB", "Weights MiB"), (
        (f"{f.model} · {f.batch}", render.plain(f.input_mib, ".3g"),
         render.plain(f.weights_mib, ".3g")) for f in rows)) if rows else ""


def freezing_report(doc: dict[str, Any]) -> str:
    """The recorded check's tables: each way, and the sizes to read its copies against."""
    return "\n\n".join(p for p in (freezing_table(doc), freezing_sizes(doc)) if p)
