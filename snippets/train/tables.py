"""The training page's tables: the run, the loss curves, where compiling pays, the memory, and
what AOTAutograd traced (``compare`` has the terminal's tables).

Everything here takes a results document (or a live value) and returns text or a rich renderable;
nothing measures, and nothing prints. Every sentence under a table is computed from it.
"""

from __future__ import annotations

from typing import Any

from snippets.core import render
from snippets.train.step import COMPILES

COLUMNS = ("Model", "Batch", "Variant", "First steps s", "Median ms", "IQR ms", "Speedup",
           "Samples/s", "TFLOP/s", "% peak", "Peak MB", "Graphs", "Breaks", "Loss gap",
           "Status")
LEARNS = ("ok", "noisy")  # the statuses of a row that trained like eager and was timed
CUDA_GRAPHS = ("reduce-overhead", "max-autotune")  # the variants that replay CUDA graphs
Key = tuple[str, int, str]


def step_median(row: dict[str, Any] | None) -> float | None:
    return ((row or {}).get("step_ms") or {}).get("median")


def by_key(doc: dict[str, Any]) -> dict[Key, dict[str, Any]]:
    return {(r["model"], r["batch_size"], r["variant"]): r for r in doc["rows"]}


def groups(doc: dict[str, Any]) -> list[tuple[str, int]]:
    return list(dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"]))


def speed(row: dict[str, Any]) -> str:
    if row.get("speedup") is None:
        return "–"
    text = f"{row['speedup']:.2f}x"
    if row.get("speedup_iqr") is not None:
        text += f" ± {row['speedup_iqr'] / 2:.2f}"
    # Not struck out: the page's Markdown has no strikethrough, and the number is still shown.
    return f"{text}, invalid" if row["status"] == "mismatch" else text


def gap(row: dict[str, Any]) -> str:
    """The loss gap as a percentage of eager's first loss; eager's own row has none."""
    if row["variant"] == "eager" or not row.get("losses"):
        return "–"
    if row.get("loss_gap") is None:
        return "not finite"
    return f"{100 * row['loss_gap']:.2g} %"


def first_steps(seconds: float | None) -> str:
    """Eager's first steps take milliseconds, a compiled variant's seconds: tenths of a second
    would show eager's as 0.0, which reads as a missing value."""
    return render.num(seconds, ".1f" if seconds is None or seconds >= 1 else ".2g")


def row_cells(row: dict[str, Any]) -> list[str]:
    step, num = row.get("step_ms") or {}, render.num
    status = row["status"] + (f": {row['message']}" if row.get("message") else "")
    peak = num(row.get("peak_mem_mb"), ".0f")
    if row["variant"] in CUDA_GRAPHS and row.get("peak_mem_mb") is not None:
        peak += " (no pool)"  # the graph's pool is taken when it is recorded, not by the step
    return [row["model"], str(row["batch_size"]), row["variant"],
            first_steps(row.get("compile_s")), render.ms(step.get("median")),
            render.ms(step.get("iqr")), speed(row), num(row.get("samples_per_s"), ".0f"),
            num(row.get("tflops"), ".3g"), num(row.get("pct_of_peak"), ".1f"), peak,
            num(row.get("graph_count"), "d"), num(row.get("graph_breaks"), "d"), gap(row),
            status]


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """Every column of every row: what a terminal shows, and the page's detail block."""
    return render.markdown_table(COLUMNS, (row_cells(r) for r in rows), left=3, left_last=True)


KEY_COLUMNS = ("Model · batch · variant", "Step ms", "Speedup", "First steps s", "Loss gap",
               "Status")


def key_cells(row: dict[str, Any]) -> list[str]:
    return [f"{row['model']} · {row['batch_size']} · {row['variant']}",
            render.ms(step_median(row)), speed(row), first_steps(row.get("compile_s")),
            gap(row), key_status(row)]


def key_status(row: dict[str, Any]) -> str:
    """A noisy row's reason in the key table, as short as a cell of a table that fits the page:
    its IQR's share of the median (the full message is in the detail block)."""
    step = row.get("step_ms") or {}
    if row["status"] == "noisy" and step.get("median") and step.get("iqr") is not None:
        return f"noisy: IQR {step['iqr'] / step['median']:.0%}"
    return row["status"]


def table(doc: dict[str, Any]) -> str:
    """The page's view of a run: the key columns, then every column in a block that opens."""
    key = render.markdown_table(KEY_COLUMNS, (key_cells(r) for r in doc["rows"]),
                                left_last=True)
    return key + "\n\n" + render.details(
        "Every column of this run (spread, samples/s, TFLOP/s, memory, graphs, breaks, "
        "messages)", markdown_table(doc["rows"]))


def report(doc: dict[str, Any]) -> str:
    """The table, which variant pays for each model and batch size, where the step's time goes
    and how near the peak it came, under one stamp."""
    extra = [t for t in (waiting(doc), peak_goal(doc)) if t]
    return (table(doc) + "\n\nWhich variant pays, computed from the table:\n\n" + findings(doc)
            + "\n\n" + payoff(doc)
            + ("\n\nWhere the time goes:\n\n" + "\n".join(extra) if extra else "")
            + ("\n\n" + profiles(doc) if any(r.get("profile") for r in doc["rows"]) else ""))


def _profile(row: dict[str, Any] | None) -> dict[str, Any] | None:
    p = (row or {}).get("profile")
    return p if p and "error" not in p else None


def _label(row: dict[str, Any]) -> str:
    return f"{row['model']} · {row['batch_size']} · {row['variant']}"


def profiles(doc: dict[str, Any]) -> str:
    """Every profiled variant's step, and the top kernels of each group's fastest variant, in
    a block that opens."""
    labelled, failed = render.profiled(doc["rows"], _label)
    rows = by_key(doc)
    fastest = []
    for model, bs in groups(doc):
        timed = [r for r in _learned(rows, model, bs) if _profile(r)]
        if timed:
            best = min(timed, key=step_median)
            fastest.append((f"{_label(best)} (fastest)", _profile(best)))
    steps = doc["provenance"]["settings"].get("profile_steps")
    body = "\n\n".join(t for t in (
        render.profile_table(labelled, "Model · batch · variant", "step") if labelled else "",
        "\n".join(failed), render.top_kernels(fastest, "step")) if t)
    return render.details(f"Where each step's time goes (torch.profiler, {steps} steps of each "
                          "variant after the timing)", body)


# A compiled step this many times longer than the same graphs replayed as CUDA graphs is said
# to wait on the host: well past the few percent by which the two can differ on the GPU.
WAITS = 1.2


def waiting(doc: dict[str, Any]) -> str:
    """How much of a compiled step is the host: `reduce-overhead` runs the graphs `model`
    compiles, replayed as CUDA graphs, so its step is at least the GPU's time for them, and
    whatever `model` takes beyond it the GPU spent waiting for the host to launch the work. The
    same step at a larger batch says it again: a step bound by the host barely lengthens."""
    rows, out = by_key(doc), []
    for model, bs in groups(doc):
        plain, graphs = rows.get((model, bs, "model")), rows.get((model, bs, "reduce-overhead"))
        if not (plain and graphs and plain["status"] in LEARNS and graphs["status"] in LEARNS
                and step_median(plain) and step_median(graphs)):
            continue
        t, g = step_median(plain), step_median(graphs)
        if t < WAITS * g:
            out.append(f"- {model} at batch {bs}: `model` takes {render.ms(t)} ms a step and "
                       f"`reduce-overhead` {render.ms(g)} ms: the step is the GPU's work, not "
                       "the host's.")
            continue
        larger = [(b, step_median(r)) for (m, b, v), r in rows.items()
                  if m == model and v == "model" and b > bs and r["status"] in LEARNS
                  and step_median(r)]
        seen = _profile(plain)
        if seen and seen.get("device_type") == "cuda" and seen["idle_fraction"] is not None:
            grows = (f" (the profiler finds the GPU idle {seen['idle_fraction']:.0%} of it, "
                     f"between {seen['kernels_per_call']:.0f} kernels a step)")
        else:
            grows = ""
        if larger:
            b, t2 = min(larger)
            grows += (f"; at batch {b}, {b / bs:.0f} times the samples, `model`'s step takes "
                     f"{t2 / t:.2f} times as long")
        out.append(f"- {model} at batch {bs}: `model` takes {render.ms(t)} ms a step and "
                   f"`reduce-overhead`, the same graphs replayed as CUDA graphs, {render.ms(g)} "
                   f"ms: at least {render.ms(t - g)} ms ({(t - g) / t:.0%}) of `model`'s step "
                   f"the GPU waits for the host to launch its work{grows}.")
    return "\n".join(out)


# The training goals this guide set itself (record, do not assert): at the largest batch, the
# best variant that learns like eager reaches this share of the bf16 peak measured in the run.
PEAK_GOALS = {"resnet50": 35.0, "transformer": 40.0}


def peak_goal(doc: dict[str, Any]) -> str:
    """Per model with a goal, at its largest batch: the best variant's share of the peak."""
    if doc["provenance"].get("device_type") != "cuda":
        return ""
    out = []
    for model, goal in PEAK_GOALS.items():
        timed = [r for r in doc["rows"] if r["model"] == model and r["status"] in LEARNS
                 and r.get("pct_of_peak") is not None]
        if not timed:
            continue
        bs = max(r["batch_size"] for r in timed)
        best = max((r for r in timed if r["batch_size"] == bs), key=lambda r: r["pct_of_peak"])
        pct = best["pct_of_peak"]
        verdict = ("reached" if pct >= goal else
                   f"missed by {goal - pct:.1f} points ({pct / goal:.0%} of the goal)")
        seen, why = _profile(best), ""
        if pct < goal and seen and seen.get("device_type") == "cuda" and seen["top"]:
            top = seen["top"][0]
            idle = (f"the GPU idle {seen['idle_fraction']:.0%} of its step, "
                    if seen["idle_fraction"] is not None else "")
            why = (f" Its profile: {idle}the longest kernel `{top['name']}` "
                   f"{100 * (top['share'] or 0):.0f} % of it (the table of top kernels below).")
        out.append(f"- {model} at batch {bs}, goal {goal:g} % of the measured bf16 peak: "
                   f"{verdict}; the best variant, `{best['variant']}`, reaches "
                   f"{pct:.1f} % ({render.num(best.get('tflops'), '.3g')} TFLOP/s).{why}")
    return "\n".join(out)


# ---- where compiling pays ---------------------------------------------------------------------

def break_even_steps(row: dict[str, Any], eager: dict[str, Any]) -> float | None:
    """Steps after which a variant's faster steps have paid for its slower first ones (compile
    included), against eager's; None if its steps are not faster."""
    saved_ms = (step_median(eager) or 0.0) - (step_median(row) or 0.0)
    if not step_median(row) or saved_ms <= 0 or row.get("compile_s") is None:
        return None
    extra_s = row["compile_s"] - (eager.get("compile_s") or 0.0)
    return max(extra_s, 0.0) * 1e3 / saved_ms


def pays(row: dict[str, Any], eager: dict[str, Any]) -> str:
    if row["status"] not in LEARNS or not step_median(row):
        return "–" if row["status"] in LEARNS else row["status"]
    steps = break_even_steps(row, eager)
    return "never (slower)" if steps is None else f"after {steps:,.0f} steps"


def payoff(doc: dict[str, Any]) -> str:
    """For each compiled variant: what its first steps cost beyond eager's, what each later step
    saves, and so when it has paid back."""
    rows, body = by_key(doc), []
    for (model, bs, variant), row in rows.items():
        eager = rows.get((model, bs, "eager"))
        if variant == "eager" or not eager or not step_median(eager):
            continue
        extra = (row["compile_s"] - (eager.get("compile_s") or 0.0)
                 if row.get("compile_s") is not None else None)
        saved = step_median(eager) - step_median(row) if step_median(row) else None
        body.append([f"{model} · {bs} · {variant}", render.num(extra, ".1f"),
                     render.num(saved, ".3g"), pays(row, eager)])
    head = ("Model · batch · variant", "First steps' extra s", "Saved per step ms", "Pays back")
    return render.markdown_table(head, body)


def _learned(rows: dict[Key, dict[str, Any]], model: str, bs: int) -> list[dict[str, Any]]:
    """The rows of one model and batch size that learned like eager and were timed."""
    return [r for (m, b, _), r in rows.items()
            if (m, b) == (model, bs) and r["status"] in LEARNS and step_median(r)]


def findings(doc: dict[str, Any]) -> str:
    """For each model and batch size: the fastest variant that learns like eager, and what
    failed; so the prose under a table cannot disagree with it."""
    rows, out = by_key(doc), []
    for model, bs in groups(doc):
        eager = rows.get((model, bs, "eager"))
        timed = _learned(rows, model, bs)
        if not eager or not timed:
            out.append(f"- {model} at batch {bs}: nothing was timed.")
            continue
        best = min(timed, key=step_median)
        if best["variant"] == "eager":
            wrong = [r["variant"] for (m, b, _), r in rows.items() if (m, b) == (model, bs)
                     and r["status"] == "mismatch" and step_median(r) < step_median(eager)]
            but = (f" (faster, but learning differently: {', '.join(wrong)})" if wrong else "")
            out.append(f"- {model} at batch {bs}: eager is fastest of the variants that learn "
                       f"as eager does{but}; compiling does not pay here.")
        else:
            steps = break_even_steps(best, eager)
            ratio = step_median(eager) / step_median(best)
            out.append(f"- {model} at batch {bs}: fastest is `{best['variant']}`, "
                       f"{ratio:.2f} times eager's speed, which pays for its first steps "
                       f"after {steps:,.0f} steps.")
    bad = [r for r in doc["rows"] if r["status"] not in LEARNS]
    wrong = [r for r in bad if r["status"] == "mismatch"]
    noisy = sum(r["status"] == "noisy" for r in doc["rows"])
    out.append(f"- Of {len(doc['rows'])} rows, {len(wrong)} learn differently from eager, "
               f"{len(bad) - len(wrong)} failed and {noisy} are marked noisy."
               + (" " + noise_evidence(doc) if noisy else ""))
    return "\n".join(out)


def noise_evidence(doc: dict[str, Any]) -> str:
    """What the file says about the noisy rows' cause: the host's CPU steal during the rounds
    (a hypervisor taking the cores) is recorded; other processes on the host are not."""
    noisy = [r for r in doc["rows"] if r["status"] == "noisy"]
    iqr = [r["step_ms"]["iqr"] / r["step_ms"]["median"] for r in noisy
           if (r.get("step_ms") or {}).get("median")]
    spread = f"their IQR is {min(iqr):.0%} to {max(iqr):.0%} of the median" if iqr else ""
    steal = [r["cpu_steal_pct"] for r in noisy if r.get("cpu_steal_pct") is not None]
    if not steal:
        return f"Of the noisy rows, {spread}; the file records nothing on their cause." \
            if spread else "The file records nothing on the noisy rows' cause."
    return (f"Of the noisy rows, {spread + '; ' if spread else ''}CPU steal during their rounds "
            f"was at most {max(steal):.1f} %, so a hypervisor did not take the cores; whether "
            "other processes on the host lengthened some rounds, the file does not record.")


# ---- two runs of the same commands ------------------------------------------------------------

# Two runs "agree" on a speedup when they differ by at most this fraction of the first run's.
AGREE = 0.05


def agreement(doc: dict[str, Any], again: dict[str, Any]) -> str:
    """Every compiled speedup of one run beside the same row of a second run of the same
    commands, and which differ by more than ``AGREE``."""
    first, second = by_key(doc), by_key(again)
    body, apart, both = [], [], 0
    for key, row in first.items():
        other = second.get(key)
        a, b = row.get("speedup"), (other or {}).get("speedup")
        if key[2] == "eager" or a is None:
            continue
        diff = (b - a) / a if b is not None else None
        if diff is not None:
            both += 1
            if abs(diff) > AGREE:
                apart.append(f"`{key[2]}` ({key[0]} · {key[1]}, {diff:+.0%})")
        body.append([" · ".join(map(str, key)), render.num(a, ".2f"), render.num(b, ".2f"),
                     render.num(100 * diff if diff is not None else None, "+.1f")])
    head = ("Model · batch · variant", "Speedup, run 1", "Speedup, run 2", "Difference %")
    verdict = (f"{both - len(apart)} of {both} compiled speedups agree within {AGREE:.0%}"
               + (f"; apart: {', '.join(apart)}." if apart else "."))
    # Where only the second run was profiled (profiling came after the first), its profile is
    # the evidence of where the time goes, shown here.
    shown = (any(r.get("profile") for r in again["rows"])
             and not any(r.get("profile") for r in doc["rows"]))
    return (render.markdown_table(head, body) + "\n\n" + verdict
            + ("\n\nRun 2, profiled:\n\n" + profiles(again) if shown else ""))


# ---- learning the same ------------------------------------------------------------------------

def _steps_shown(n: int) -> list[int]:
    """Steps (1-based) at which the loss table samples a curve of n steps: the first, a quarter
    and half of the way, the last."""
    return sorted({1, *(max(1, round(n * q)) for q in (0.25, 0.5)), n}) if n else []


def losses(doc: dict[str, Any]) -> str:
    """Each variant's loss at a few steps beside eager's, and the largest gap: the loss curves
    as text (the file holds every step)."""
    n = max((len(r.get("losses") or []) for r in doc["rows"]), default=0)
    shown = _steps_shown(n)
    head = ("Model · batch · variant", *(f"Step {s}" for s in shown), "Loss gap")
    body = []
    for r in doc["rows"]:
        curve = r.get("losses") or []
        if not curve:
            continue
        body.append([f"{r['model']} · {r['batch_size']} · {r['variant']}",
                     *(render.num(curve[s - 1] if s <= len(curve) else None, ".4g")
                       for s in shown), gap(r)])
    tol = doc["provenance"]["settings"].get("tolerance")
    limit = f"{100 * tol:g} %" if tol else "the tolerance"
    diverged = [f"`{r['variant']}` ({r['model']} · {r['batch_size']})" for r in doc["rows"]
                if r["status"] == "mismatch"]
    verdict = ("every compiled variant stays within " + limit + " of eager's first loss"
               if not diverged else ", ".join(diverged) + " drift past " + limit)
    return (render.markdown_table(head, body) + f"\n\nOver {n} steps from the same weights, "
            f"{verdict}.")


# ---- memory -----------------------------------------------------------------------------------

def memory(doc: dict[str, Any]) -> str:
    """Peak memory of a step per variant, and against eager's."""
    rows, body = by_key(doc), []
    for (model, bs, variant), row in rows.items():
        mb = row.get("peak_mem_mb")
        eager = (rows.get((model, bs, "eager")) or {}).get("peak_mem_mb")
        ratio = f"{mb / eager:.2f}x" if mb is not None and eager and variant != "eager" else "–"
        if mb is not None and variant in CUDA_GRAPHS:
            ratio += " (no pool)"
        body.append([f"{model} · {bs} · {variant}", render.num(mb, ",.0f"), ratio])
    if all(r[1] == "–" for r in body):
        return "This run measured no memory: peak memory is read from CUDA's allocator."
    return render.markdown_table(("Model · batch · variant", "Peak MB", "Against eager's"), body)


# ---- what AOTAutograd traced (a live value, see snippets.train.aot) ---------------------------

def traced(value: list[dict[str, Any]]) -> str:
    head = ("What is compiled", "Graphs AOTAutograd made (operators)", "The loss in",
            "Graph breaks")
    body = []
    for v in value:
        graphs = ", ".join(f"{g['kind']} ({g['ops']})" for g in v["graphs"])
        with_loss = [g["kind"] for g in v["graphs"] if g["loss"]]
        body.append([COMPILES[v["variant"]], graphs, " and ".join(with_loss) or "none",
                     f"{v['breaks']}: " + "; ".join(v["reasons"]) if v["breaks"] else "0"])
    return render.markdown_table(head, body, left=len(head))
