"""The sentences that explain a surprising ladder row from the evidence its results file holds:
a step whose gain is within the spread of its rows, an eager rung that no compiled rung beats, a
freezing rung whose profile names no prepacked operator, a step that makes the ladder slower
(an autotuned one with what autotuning measured, from ``snippets.speed.choices``), a row whose
ratios come from another command's rounds, and a first compile that takes longer than the ones
after it.

Each takes a results document (and a row of it) and returns a clause or "" where the evidence is
not there; ``snippets.speed.tables`` puts them into the page's findings. Nothing here measures.
"""

from __future__ import annotations

from typing import Any

from snippets.core import measure
from snippets.speed import choices

# The fused native call nn.TransformerEncoderLayer makes in eval mode without grad (its "fast
# path"): Dynamo records it as one opaque call per layer, so a compiled rung runs the same kernel.
FASTPATH_OP = "aten::_transformer_encoder_layer_fwd"
FASTPATH_PAGE = "../graph-breaks/#what-the-one-graph-contains-the-fast-path"  # as served
# Operators of oneDNN that take weights packed ahead of the call: what Inductor's freezing passes
# put in place of a convolution or linear layer on a CPU when they prepack its weights.
PACKED_PREFIX = "mkldnn::"
# A first compile counts as "longer" when it takes more than this many times the slowest later
# one: a ratio, not a timing, so the sentence is written only where the gap is plain.
FIRST_COMPILE_RATIO = 1.5


def spread_pct(row: dict[str, Any] | None) -> float | None:
    """A row's IQR as a percentage of its median."""
    lat = (row or {}).get("latency_ms") or {}
    return 100 * lat["iqr"] / lat["median"] if lat.get("median") else None


def _rung(doc: dict[str, Any], like: dict[str, Any], mode: str | None) -> dict[str, Any] | None:
    return next((r for r in doc["rows"] if r["model"] == like["model"]
                 and r["batch_size"] == like["batch_size"] and r["mode"] == mode), None)


def within_noise(doc: dict[str, Any], row: dict[str, Any]) -> str:
    """Where a step's gain over the rung below is no larger than the spread of either row, the
    clause that says so; "" where the gain stands out of the spread."""
    gain = 100 * (row["speedup_prev"] - 1)
    spreads = [s for s in (spread_pct(row), spread_pct(_rung(doc, row, row.get("prev_rung"))))
               if s is not None]
    if not spreads or abs(gain) > max(spreads):
        return ""
    iqr = " % and ".join(f"{s:.1f}" for s in spreads)
    return (f", a gain within the spread of the two rows (IQR {iqr} % of their medians), so "
            "this run does not settle it")


def eager_fastest(doc: dict[str, Any], best: dict[str, Any]) -> str:
    """Where eager is the fastest rung, what its profile shows it runs and what the compiled
    rungs returned; "" where eager is not the fastest or was not profiled."""
    top = ((best.get("profile") or {}).get("top") or [None])[0]
    if best["mode"] != "eager" or top is None:
        return ""
    share = 100 * (top["share"] or 0)
    out = (f"; eager's profile: `{top['name']}` holds {share:.0f} % of the wall time, "
           f"{top['count_per_call']:.0f} calls a call")
    if top["name"] != FASTPATH_OP:
        return out
    compiled = [r for r in doc["rows"] if r["model"] == best["model"]
                and r["batch_size"] == best["batch_size"] and r["mode"] != "eager"
                and r.get("speedup") is not None]
    out += (f": the fused [fast path]({FASTPATH_PAGE}) of each encoder layer, which Dynamo "
            "records as it is, so the compiled rungs run the same kernel")
    if compiled and all(r.get("rel_err") == 0 for r in compiled):
        out += ", return eager's output bit for bit (rel err 0)"
    if compiled:
        # The range as the page prints it: two speedups that round alike are one figure.
        lo, hi = (f"{f(r['speedup'] for r in compiled):.2f}" for f in (min, max))
        out += f" and run at {lo if lo == hi else f'{lo}–{hi}'}× eager's speed"
    return out


def freezing_profile(row: dict[str, Any]) -> str:
    """Where a profiled rung on a CPU runs with freezing, whether its profile shows oneDNN's
    prepacked operators or plain convolutions; "" where there is no such profile."""
    prof = row.get("profile") or {}
    if not (row.get("rung") or {}).get("freezing") or prof.get("device_type") != "cpu":
        return ""
    top = prof.get("top") or []
    packed = [k for k in top if k["name"].startswith(PACKED_PREFIX)]
    if packed:
        k = packed[0]
        return (f"; its profile shows oneDNN's prepacked `{k['name']}`, "
                f"{100 * (k['share'] or 0):.0f} % of the wall time")
    conv = next((k for k in top if k["name"] == "aten::convolution"), None)
    if conv is None:
        return ""
    return (f"; its profile names no prepacked `{PACKED_PREFIX}` operator: `aten::convolution` "
            f"holds {100 * (conv['share'] or 0):.0f} % of the wall time, "
            f"{conv['count_per_call']:.0f} calls a call, so in this run the frozen graph still "
            "called the plain convolutions, and what freezing bought cannot be put down to "
            "weights packed once")


def first_compile(doc: dict[str, Any]) -> str:
    """Where the first rung compiled in a ladder takes plainly longer to compile than the later
    ones, what is known of why, as a sentence; "" where it does not."""
    found = []
    for model, bs in dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"]):
        timed = [r for r in doc["rows"] if r["model"] == model and r["batch_size"] == bs
                 and r.get("compile_s") is not None]
        if len(timed) < 2:
            continue
        first, later = timed[0], [r["compile_s"] for r in timed[1:]]
        if first["compile_s"] > FIRST_COMPILE_RATIO * max(later):
            lo, hi = f"{min(later):.1f}", f"{max(later):.1f}"
            found.append(f"{model} at batch {bs}, `{first['mode']}` {first['compile_s']:.1f} s "
                         f"against {lo if lo == hi else f'{lo}–{hi}'} s for the rungs after it")
    if not found:
        return ""
    cache = doc["provenance"].get("settings", {}).get("inductor_cache") or {}
    before = cache.get("fx_graphs_before")
    empty = (" Inductor's FX graph cache held no graph when the run began, so no rung was "
             "served from an earlier run." if before == 0 else "")
    return ("The first rung compiled in a ladder takes longest (" + "; ".join(found) + "). "
            "The rungs of a ladder are compiled one after another in one process: a later rung "
            "finds Dynamo and Inductor imported and initialised, and reuses the kernels "
            "Inductor generated and compiled for an earlier rung wherever its code is the "
            "same." + empty + " This run does not measure how much each of these saves; the "
            "first rung's compile time is the nearer to what a fresh process pays.")


def other_commands(doc: dict[str, Any]) -> str:
    """Where a row's two ratios were timed against eager and the rung below in its own command's
    rounds while the file shows those rows as another command recorded them, the sentence that
    says which rows, so that medians side by side are not read against the ratios; "" else."""
    apart = []
    for r in doc["rows"]:
        below = _rung(doc, r, r.get("prev_rung"))
        if below is not None and below.get("part", 0) != r.get("part", 0):
            apart.append(f"`{r['model']} · {r['batch_size']} · {r['mode']}`")
    if not apart:
        return ""
    return ("The ratios of " + ", ".join(apart) + " are against eager and the rung below as "
            "timed in the same rounds, by the command that added the row; the rows shown above "
            "them come from another command (another process, perhaps on another host of the "
            "same kind), so their medians, set beside these rows, can disagree with the "
            "ratios. The ratios are the like-for-like comparison.")


def slower_steps(doc: dict[str, Any]) -> str:
    """A line for each step that makes its ladder plainly slower than the rung below (by more
    than the noise mark), with what the two rungs' profiles say changed where the run profiled
    both; "" where no step is slower."""
    out = []
    for r in doc["rows"]:
        ratio = r.get("speedup_prev")
        if not ratio or ratio >= 1 - measure.NOISY_IQR_RATIO or r["status"] not in ("ok", "noisy"):
            continue
        below = _rung(doc, r, r.get("prev_rung"))
        line = (f"- **{r['model']} at batch {r['batch_size']}**: `{r['mode']}` runs at "
                f"{ratio:.2f}× the speed of the rung below it, `{r.get('prev_rung')}`")
        # The two profiles of the run that measured this ratio: the rung below as that run
        # profiled it, else the file's row of it where the same command recorded both.
        same = below is not None and below.get("part", 0) == r.get("part", 0)
        mine = r.get("profile")
        theirs = r.get("below_profile") or ((below or {}).get("profile") if same else None)
        if mine and theirs and "error" not in mine and "error" not in theirs:
            line += "; " + _profiles_apart(mine, theirs)
        elif mine and "error" not in mine:
            line += ("; the file holds its profile, but not the rung below's from the same "
                     "command: it keeps the rung below as an earlier command recorded it (a run "
                     "of the current code keeps both profiles on this row)")
        else:
            line += ("; the run profiled only its fastest rung, so the file holds no profile "
                     "of the two to say why (a run of the current code profiles both)")
        out.append(line + _as_option(r) + choices.clause(r) + ".")
    return "\n".join(out)


COPY_KERNEL = "multi_tensor_apply_kernel"  # a foreach op's kernel: CUDA-graph trees copy with one


def freezing_as_option(row: dict[str, Any]) -> bool:
    """A frozen rung recorded with freezing passed as a compile option alone, before the ladder
    also set the switch (``ladder.frozen``)."""
    rung = row.get("rung") or {}
    return bool(rung.get("freezing")) and not rung.get("freezing_switch")


def _as_option(row: dict[str, Any]) -> str:
    """Where a frozen rung was recorded with freezing passed as a compile option alone, the
    clause that says what that did; "" else."""
    if not freezing_as_option(row):
        return ""
    line = ("; this row asked for freezing as a compile option alone, which Dynamo does not "
            "see (see *Freezing needs the switch, not only the option*, above)")
    if (row.get("profile") or {}).get("device_type") == "cuda":
        line += ", so each replay first copies every weight into the graph's buffers"
        copy = next((k for k in row["profile"].get("top") or [] if COPY_KERNEL in k["name"]),
                    None)
        if copy is not None:
            line += f" (its profile: `{COPY_KERNEL}`, {copy['us_per_call']:.1f} µs a call)"
    return line


def _profiles_apart(mine: dict[str, Any], theirs: dict[str, Any]) -> str:
    """What differs between a rung's profile and the one below's, per call: kernels, the GPU's
    busy time, the idle share, and each one's longest kernel."""
    def idle(p: dict[str, Any]) -> str:
        return f"{100 * p['idle_fraction']:.0f} %" if p.get("idle_fraction") is not None else "–"

    def longest(p: dict[str, Any]) -> str:
        top = (p.get("top") or [None])[0]
        return (f"`{top['name']}` ({top['us_per_call']:.1f} µs a call)" if top else "none")

    return (f"its profile counts {mine['kernels_per_call']:.0f} kernels a call against "
            f"{theirs['kernels_per_call']:.0f}, {mine['busy_us_per_call']:.1f} µs of them "
            f"against {theirs['busy_us_per_call']:.1f}, idle {idle(mine)} of the time against "
            f"{idle(theirs)}, and its longest kernel is {longest(mine)} against {longest(theirs)}")


def autotuned(doc: dict[str, Any]) -> str:
    """How often an autotuned rung ran slower than the rung below it, and, per autotuned rung,
    what its records say; computed from the file, for the page's section on it."""
    rows = [r for r in doc["rows"] if "max-autotune" in ((r.get("rung") or {}).get("mode") or "")
            and r["status"] in ("ok", "noisy") and r.get("speedup_prev")]
    if not rows:
        return "This file holds no autotuned rung."
    slower = [r for r in rows if r["speedup_prev"] < 1 - measure.NOISY_IQR_RATIO]
    out = [f"{len(slower)} of the {len(rows)} autotuned rungs in this file run slower than the "
           f"rung below them by more than {measure.NOISY_IQR_RATIO:.0%}:", ""]
    for r in rows:
        line = (f"- **{r['model']} at batch {r['batch_size']}**, `{r['mode']}`: "
                f"{r['speedup_prev']:.2f}× the speed of `{r.get('prev_rung')}`")
        if freezing_as_option(r):
            line += ("; recorded with freezing asked for as a compile option alone, which "
                     "Dynamo does not see (see above)")
        said = choices.clause(r)
        out.append(line + (said if said else "; recorded before the ladder kept what "
                           "autotuning measured") + _classes_apart(r) + _read_alone(r) + ".")
    pairs = _as_replays(rows)
    if pairs:
        out += ["", "The same ladders autotuned both ways:", "",
                *pairs]
    alone = _descent_alone(doc, rows)
    if alone:
        out += ["", "Coordinate-descent tuning alone, the other half of the mode, with the "
                "library's matrix products:", "", *alone]
    return "\n".join(out)


def _descent_alone(doc: dict[str, Any], tuned: list[dict[str, Any]]) -> list[str]:
    """Per ladder with a ``coordinate-descent`` rung, its speed against the rung below, beside
    the autotuned rungs' of the same ladder: whether the tuning the max-autotune mode adds to
    the choice of kernels is what costs it time."""
    out = []
    for d in doc["rows"]:
        if (d.get("rung") or {}).get("key") != "coordinate-descent" or not d.get("speedup_prev") \
                or d["status"] not in ("ok", "noisy"):
            continue
        line = (f"- **{d['model']} at batch {d['batch_size']}**: {d['speedup_prev']:.2f}× the "
                f"speed of `{d.get('prev_rung')}`")
        mine = [r for r in tuned if r["model"] == d["model"]
                and r["batch_size"] == d["batch_size"]]
        if mine:
            line += ", where " + " and ".join(
                f"`{r['mode']}` runs at {r['speedup_prev']:.2f}×" for r in mine)
        out.append(line + ".")
    return out


def _classes_apart(row: dict[str, Any]) -> str:
    """Where the run profiled a rung and the one below it, the kernel time of each per call,
    split into matrix products (the library's kernels and autotuning's templates alike) and
    the other kernels; "" where it did not."""
    mine, theirs = row.get("profile") or {}, row.get("below_profile") or {}
    if not (mine.get("by_class") and theirs.get("by_class")):
        return ""

    def split(p: dict[str, Any]) -> tuple[float, float]:
        mm = p["by_class"].get("matmul", 0.0)
        return mm, sum(p["by_class"].values()) - mm

    (mm, rest), (mm_below, rest_below) = split(mine), split(theirs)
    return (f"; its matrix products and convolutions take {mm:.1f} µs a call against "
            f"{mm_below:.1f} in the rung below, its other kernels {rest:.1f} µs against "
            f"{rest_below:.1f}")


def _read_alone(row: dict[str, Any]) -> str:
    """Where the profiler re-timed every operator, its readings summed per call of the model:
    the kernels chosen and the library's, each timed alone while autotuning chose; "" else."""
    s = choices.summary(row) or {}
    if s.get("chosen_us") is None:
        return ""
    return (f"; while it tuned, the profiler read the kernels it chose at {s['chosen_us']:.1f} "
            f"µs a call in all, and the library's at {s['library_us']:.1f}")


def _as_replays(rows: list[dict[str, Any]]) -> list[str]:
    """Per model and batch with both a ``max-autotune`` rung and a ``graph-timed-autotune``
    one, what timing the candidates as replays changed: how often the library kernel was
    chosen, and the speed against the rung below."""
    out = []
    for g in rows:
        if g["rung"].get("key") != "graph-timed-autotune":
            continue
        m = next((r for r in rows if r["model"] == g["model"]
                  and r["batch_size"] == g["batch_size"]
                  and r["rung"].get("key") == "max-autotune"), None)
        sg, sm = choices.summary(g), choices.summary(m) if m else None
        if m is None or not (sg and sm and sg["ops"] and sm["ops"]):
            continue
        out.append(f"- **{g['model']} at batch {g['batch_size']}**: timed as replays, "
                   f"autotuning chose the library kernel for {sg['ops'] - sg['template']} of "
                   f"{sg['ops']} operators, against {sm['ops'] - sm['template']} of "
                   f"{sm['ops']} by its own timer, and the rung runs at "
                   f"{g['speedup_prev']:.2f}× the speed of `{g.get('prev_rung')}`, against "
                   f"{m['speedup_prev']:.2f}×.")
    return out
