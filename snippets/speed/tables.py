"""The tables and findings of "How fast can it go": each ladder read against the device's measured
ceilings, the profile of its fastest rung, and the settings grid with a verdict per mode.

Everything here takes a results document and returns Markdown; nothing measures or prints.
"""

from __future__ import annotations

from typing import Any

from snippets.core import measure, render
from snippets.speed import choices, evidence, freezing, goals, roofline, settings


def _label(r: dict[str, Any]) -> str:
    return f"{r['model']} · {r['batch_size']} · {r['mode']}"


def _median(r: dict[str, Any]) -> float | None:
    return (r.get("latency_ms") or {}).get("median")


def _spread(r: dict[str, Any]) -> str:
    lat = r.get("latency_ms") or {}
    return f"{100 * lat['iqr'] / lat['median']:.1f}" if lat.get("median") else "–"


def ceilings(doc: dict[str, Any]) -> str:
    """The ceilings the run measured, as a sentence."""
    c = doc["provenance"].get("ceilings")
    if not c:
        return "This run measured no ceilings (it predates them), so its rows have no roofline."
    # A CPU copies main memory to main memory: "device-to-device" would name a GPU's copy.
    copy = "device-to-device" if doc["provenance"].get("device_type") == "cuda" else "memory"
    return (f"Ceilings measured at the start of this run: a {c['matmul_n']}×{c['matmul_n']} "
            f"{c['matmul_dtype']} matmul at **{c['matmul_tflops']:.4g} TFLOP/s**, and a "
            f"{c['copy_mib']} MiB {copy} copy at **{c['copy_gbps']:.4g} GB/s** (bytes "
            "read plus bytes written); medians of "
            f"{len(c['matmul_samples'])} samples each.")


def ladder(doc: dict[str, Any]) -> str:
    """The key columns of every ladder: latency and spread, what each rung buys over eager and
    over the rung below, compile time, share of peak, status."""
    head = ("Model · batch · rung", "Median ms (IQR %)", "× eager", "× below",
            "Compile s", "% of peak", "Status")
    return render.markdown_table(head, ((
        _label(r), f"{render.ms(_median(r))} ({_spread(r)})" if _median(r) else "–",
        render.num(r.get("speedup"), ".2f"),
        render.num(r.get("speedup_prev"), ".2f"), render.num(r.get("compile_s"), ".1f"),
        render.num(r.get("pct_of_peak"), ".1f"), _status(r))
        for r in doc["rows"]), left_last=True)


def _status(row: dict[str, Any]) -> str:
    # "noisy" alone: the IQR % column beside it already says by how much.
    if row["status"] == "noisy" or not row.get("message"):
        return row["status"]
    return f"{row['status']}: {row['message']}"


def roofline_table(doc: dict[str, Any]) -> str:
    """Each row's measured time beside its compute-bound and memory-bound floors."""
    ceil = doc["provenance"].get("ceilings")
    head = ("Model · batch · rung", "Measured ms", "Compute ms", "Memory ms", "Bound",
            "Floor / measured", "MB moved", "Call peak MB", "rel err")
    rows = []
    for r in doc["rows"]:
        read = roofline.row_reading(r, ceil) or {}
        moved = sum((r.get("bytes") or {}).values()) / 1e6 if r.get("bytes") else None
        rows.append((_label(r), render.ms(_median(r)), render.num(read.get("compute_ms"), ".3g"),
                     render.num(read.get("memory_ms"), ".3g"), read.get("bound", "–"),
                     render.num(100 * read["of_roofline"] if read else None, ".1f") + (
                         " %" if read else ""),
                     render.num(moved, ".1f"), render.num(r.get("peak_mem_mb"), ".0f"),
                     render.num(r.get("rel_err"), ".1e")))
    return render.markdown_table(head, rows)


def profile_table(doc: dict[str, Any]) -> str:
    """Where the fastest rung of each ladder spends a call, from the profiler."""
    labelled, failed = render.profiled(doc["rows"], _label)
    if not labelled:
        return "\n".join(failed) or "No rung of this run was profiled."
    first = "Model · batch · fastest rung"
    split = render.kernel_classes(labelled, first)
    return "\n".join([render.profile_table(labelled, first), *failed]) + (
        "\n\nWhat the kernel time is spent on:\n\n" + split if split else "")


def top_kernels(doc: dict[str, Any]) -> str:
    """The kernels that hold the most time in each profiled rung."""
    return render.top_kernels(render.profiled(doc["rows"], _label)[0])


def findings(doc: dict[str, Any]) -> str:
    """What the ladders say, computed from them: per ladder the fastest rung, the step that
    bought the most (hedged where its gain is within the spread of its rows), and where the
    fastest rung stands against its roofline; where eager is fastest or freezing was profiled,
    what the profile shows."""
    ceil = doc["provenance"].get("ceilings")
    out = []
    for model, bs in dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"]):
        best = goals.best(doc, model, bs)
        if best is None:
            continue
        steps = [r for r in doc["rows"] if r["model"] == model and r["batch_size"] == bs
                 and r.get("speedup_prev") and r["status"] in ("ok", "noisy")]
        line = f"- **{model} at batch {bs}**: fastest is `{best['mode']}`"
        if best.get("speedup") and best["mode"] != "eager":
            line += f", {best['speedup']:.2f} times eager's speed"
        line += evidence.eager_fastest(doc, best) + evidence.freezing_profile(best)
        if steps:
            top = max(steps, key=lambda r: r["speedup_prev"])
            below = f"`{top['prev_rung']}`" if top.get("prev_rung") else "the rung below"
            # A step "buys" only if it beats the rung below by more than the noise threshold.
            if top["speedup_prev"] > 1 + measure.NOISY_IQR_RATIO:
                line += (f"; the step that buys most is `{top['mode']}` "
                         f"({top['speedup_prev']:.2f}× over {below})"
                         + evidence.within_noise(doc, top))
            else:
                line += (f"; no step beats the rung below it by more than "
                         f"{measure.NOISY_IQR_RATIO:.0%} (the best, `{top['mode']}`, is "
                         f"{top['speedup_prev']:.2f}× over {below})")
        read = roofline.row_reading(best, ceil)
        if read:
            line += (f"; it runs at {100 * read['of_roofline']:.0f} % of its roofline "
                     f"({read['bound']}-bound floor {read['bound_ms']:.3g} ms)")
        out.append(line + ".")
    out += [line for line in (evidence.slower_steps(doc),) if line]
    bad = [r for r in doc["rows"] if r["status"] in ("mismatch", "oom", "error")]
    out.append(f"- {len(bad)} of {len(doc['rows'])} rungs failed or computed another answer.")
    return "\n".join(out)


def recompiled_note(doc: dict[str, Any]) -> str:
    """Where a ladder was recorded before each rung had its own compiled entry (its rows carry
    no rung key), what that means for its freezing rung."""
    ladder_rows = [r for r in doc["rows"] if r.get("rung")]
    if not ladder_rows or any("key" in r["rung"] for r in ladder_rows):
        return ""
    return ("!!! warning \"Recorded before each rung kept its own compiled code\"\n\n"
            "    In this run Dynamo was reset after each rung was built, so every rung was "
            "compiled again at its first timed call, and freezing, then a global switch set "
            "around the build only, was off by then: its `+ freezing` row times the rung below "
            "it once more. A run of the current code compiles each rung once, with its own "
            "options.")


def try_first(doc: dict[str, Any]) -> str:
    """The steps in the order they paid in this run: each step's geometric-mean speedup over
    the rung below it, across the ladders where it ran and computed eager's answer."""
    import math

    gains: dict[str, list[float]] = {}
    as_option: set[str] = set()  # steps measured with freezing asked for as an option alone
    for r in doc["rows"]:
        if r.get("speedup_prev") and r["status"] in ("ok", "noisy"):
            gains.setdefault(r["mode"], []).append(r["speedup_prev"])
            if evidence.freezing_as_option(r):
                as_option.add(r["mode"])
    ranked = sorted(((math.exp(sum(map(math.log, v)) / len(v)), k, len(v))
                     for k, v in gains.items()), reverse=True)
    caveat = (" (measured with freezing asked for as a compile option alone, which Dynamo does "
              "not see: see above)")
    return "\n".join(f"{i}. `{name}`: {g:.2f}× over the rung below, geometric mean of {n} "
                     f"ladder{'s' if n > 1 else ''}{caveat if name in as_option else ''}"
                     for i, (g, name, n) in enumerate(ranked, 1))


def ladder_report(doc: dict[str, Any]) -> str:
    """A ladder run as the page shows it: ceilings, ladders, findings, then the roofline, the
    profile and the top kernels in blocks that open."""
    parts = [p for p in (recompiled_note(doc), ceilings(doc)) if p] + [ladder(doc)]
    parts += [p for p in (evidence.other_commands(doc),) if p] + [
              "What the ladders say, computed from them:", findings(doc)]
    parts += [p for p in (evidence.first_compile(doc),) if p] + [
             render.details("The roofline of every rung (floors from the ceilings above; bytes "
                            "are a lower bound: weights and input read once, output written "
                            "once)", roofline_table(doc))]
    if any(r.get("profile") for r in doc["rows"]):
        parts += [render.details("Where the profiled rungs' time goes (torch.profiler)",
                                 profile_table(doc) + "\n\n" + top_kernels(doc))]
    tuned = choices.table(doc)
    if tuned:
        parts += [render.details("What autotuning measured while it chose (library ÷ template "
                                 "above 1: the template is faster)", tuned)]
    return "\n\n".join(parts)


# ---- the settings grid ---------------------------------------------------------------------------

def settings_table(doc: dict[str, Any]) -> str:
    head = ("Model · batch · mode", "Settings", "Median ms", "IQR %", "× all off", "rel err",
            "Status")
    return render.markdown_table(head, ((
        _label(r), r.get("point", "–"), render.ms(_median(r)), _spread(r),
        render.num(r.get("speedup"), ".3f"), render.num(r.get("rel_err"), ".1e"), r["status"])
        for r in doc["rows"]), left=2, left_last=True)


SWITCH_WORDS = {"cudnn_benchmark": "cudnn.benchmark", "tf32": "TF32"}


def settings_verdicts(doc: dict[str, Any]) -> str:
    """Per mode and switch: the verdict, how many groups it helped and hurt in, the geometric
    mean of its speedups, and the setting chosen from that evidence."""
    chosen = settings.chosen(doc)
    rows = []
    for (mode, switch), v in settings.verdicts(doc).items():
        on = getattr(chosen[mode], switch)
        rows.append((f"{mode} · {SWITCH_WORDS[switch]}", v["verdict"],
                     f"{v['helps']} / {v['hurts']} / {v['groups']}", f"{v['gmean']:.3f}",
                     "on" if on else "off"))
    if not rows:
        return "No setting was timed on and off in this run."
    return render.markdown_table(("Mode · switch", "Verdict", "Helps / hurts / groups",
                                  "Geometric mean ×", "Chosen"), rows)


def settings_report(doc: dict[str, Any]) -> str:
    """The verdicts, over which models and batch sizes they were measured, then every point."""
    sizes: dict[str, list[int]] = {}
    for model, bs in dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"]):
        sizes.setdefault(model, []).append(bs)
    over = "; ".join(f"{m} at batch {', '.join(map(str, b))}" for m, b in sizes.items())
    return (settings_verdicts(doc) + f"\n\nThe groups are each model and batch size measured: "
            f"{over}." + "\n\n" + render.details(
        "Every point of the grid (× all off: the speedup over the same mode with every "
        "switch off, in the same rounds)", settings_table(doc)))


# ---- freezing: the switch against the option ------------------------------------------------

# Short, so that the table fits a page: the prose above the table gives each one's code.
WAY_WORDS = {"option": "the option alone", "switch": "option and switch"}


def freezing_switch(value: list[dict[str, Any]]) -> str:
    """The two ways of asking for freezing (``freezing.compared``): the operators each ran, and
    what they say, computed from them."""
    if not value:
        return "This machine's torch has no oneDNN, so there is nothing to look at here."
    body = [[WAY_WORDS[v["way"]], ", ".join(f"`{op}`" for op in _innermost(v["ops"])) or "none",
             "yes" if v["prepacked"] else "no", f"{v['rel_err']:.1g}"] for v in value]
    table = render.markdown_table(("Freezing set by", "Convolution that ran", "Prepacked",
                                   "Error vs eager"), body, left=3)
    way = {v["way"]: v for v in value}
    if way["switch"]["prepacked"] and not way["option"]["prepacked"]:
        says = ("As an option, freezing never reached the graph: the convolutions ran as "
                "eager's do. With the switch on as well, Inductor folded the weights in as "
                "constants and handed each convolution to oneDNN with its weights packed once.")
    elif way["switch"]["prepacked"]:
        says = ("In this torch both ways froze the weights: the option reaches Dynamo too.")
    else:
        says = ("Neither way prepacked a convolution on this machine: oneDNN took none of "
                "them.")
    return f"{table}\n\n{says}"


DISPATCH = ("aten::convolution", "aten::_convolution")  # the way in to every CPU convolution


def _innermost(ops: list[str]) -> list[str]:
    """The operators that did the work: ``aten::convolution`` and ``aten::_convolution`` only
    dispatch to one of them, so they are left out wherever another was seen."""
    inner = [op for op in ops if op not in DISPATCH]
    return inner or ops


def _way(r: dict[str, Any]) -> str:
    return freezing.POINT_WORDS.get(r.get("point") or "", r.get("point") or r["mode"])


def freezing_table(doc: dict[str, Any]) -> str:
    """The recorded check: each way's latency and spread, its speed against no freezing, and on
    a GPU what each replay copied into the graph's buffers."""
    def copied(r: dict[str, Any]) -> str:
        c = r.get("replay_copy")
        return f"{c['tensors']:.0f} ({c['mb']:.3g} MiB)" if c else "–"

    # A CPU has no replays: the column is left out rather than filled with dashes.
    replays = any(r.get("replay_copy") for r in doc["rows"])
    head = ("Model · batch · freezing", "Median ms (IQR %)", "× no freezing",
            *(("Copied per replay",) if replays else ()), "Status")
    return render.markdown_table(head, ((
        f"{r['model']} · {r['batch_size']} · {_way(r)}",
        f"{render.ms(_median(r))} ({_spread(r)})" if _median(r) else "–",
        render.num(r.get("speedup"), ".2f"), *((copied(r),) if replays else ()), _status(r))
        for r in doc["rows"]), left_last=True)


def freezing_findings(doc: dict[str, Any]) -> str:
    """Per model and batch size, computed from the rows: what each way of asking for freezing
    ran at against no freezing, and on a GPU what its replays copied, against the weights."""
    out = []
    groups = dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"])
    for model, bs in groups:
        rows = {r.get("point"): r for r in doc["rows"]
                if (r["model"], r["batch_size"]) == (model, bs)}
        said = []
        for point in freezing.POINTS[1:]:
            r = rows.get(point)
            if r is None or r["status"] not in ("ok", "noisy") or not r.get("speedup"):
                said.append(f"{freezing.POINT_WORDS[point]}: {r['status'] if r else 'not run'}")
                continue
            line = f"{freezing.POINT_WORDS[point]} {r['speedup']:.2f}×"
            c = r.get("replay_copy")
            if c:
                line += (f" (each replay first copying "
                         f"{render.count(round(c['tensors']), 'tensor')}, {c['mb']:.3g} MiB)")
            said.append(line)
        first = next(iter(rows.values()))
        copy0 = (rows.get("off") or {}).get("replay_copy")
        tail = ""
        if copy0:
            tail = (f"; without freezing a replay copies "
                    f"{render.count(round(copy0['tensors']), 'tensor')} ({copy0['mb']:.3g} MiB)")
        if first.get("weights_mb") and copy0:
            tail += (f"; the input is {first['input_mb']:.3g} MiB, the weights "
                     f"{first['weights_mb']:.3g} MiB")
        fast = ("" if first.get("fastpath", True) else
                " (all three with the encoder's fast path off, as on the ladder's freezing rung)")
        out.append(f"- **{model} at batch {bs}**, each way's speed over no freezing{fast}: "
                   + "; ".join(said) + tail + ".")
    return "\n".join(out)


def freezing_report(doc: dict[str, Any]) -> str:
    return freezing_table(doc) + "\n\n" + freezing_findings(doc)
