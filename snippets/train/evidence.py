"""Where a training step's time goes, and whether two runs of the same commands agree: the
readings under the training page's results, from their step times and profiles.

Like ``tables``, everything here takes results documents and returns text; nothing measures, and
every sentence is computed from the files. A second run (``train-repeat.json``) is evidence in
two ways: its profiles stand in for a first run that was not profiled, and its speedups say how
far a speedup moves when the same commands run again.
"""

from __future__ import annotations

from typing import Any

from snippets.core import render
from snippets.train.tables import (
    LEARNS,
    Key,
    by_key,
    groups,
    labels,
    own_eager,
    profile_of,
    results,
    row_key,
    row_label,
    step_median,
)


def report(doc: dict[str, Any]) -> str:
    """``results``, then where the step's time goes and how near the peak it came (``where``),
    under one stamp."""
    shown = where(doc)
    return results(doc) + ("\n\n" + shown if shown else "")


def where(doc: dict[str, Any], again: dict[str, Any] | None = None) -> str:
    """Where the step's time goes and how near the peak it came, read from ``doc``'s step
    times, with the profiles of ``again`` (a second run of the same commands) for the rows
    ``doc`` did not profile: the second run's profile says where that run's step went, which
    is evidence for the first's where the two runs agree."""
    seen = _profiles(doc, again)
    extra = [t for t in (waiting(doc, seen), eager_busy(doc, seen), peak_goal(doc, seen)) if t]
    profiled = any(r.get("profile") for r in [*doc["rows"], *(again or {"rows": []})["rows"]])
    return "\n\n".join(
        [*(["Where the time goes, read from the step times and the profiles:\n\n"
            + "\n".join(extra)] if extra else []),
         *([profiles(doc, seen)] if profiled else [])])


Seen = dict[Key, tuple[dict[str, Any], str]]  # a row's profile, and which run it came from


def _profiles(doc: dict[str, Any], again: dict[str, Any] | None) -> Seen:
    """Each row's profile: its own, else the same row's in ``again`` (said "run 2")."""
    seen: Seen = {}
    for run, source in ((again or {"rows": []}, "run 2's profile"), (doc, "the profiler")):
        for key, row in by_key(run).items():
            if p := profile_of(row):
                seen[key] = (p, source)
    return seen


def profiles(doc: dict[str, Any], seen: Seen | None = None) -> str:
    """Every profiled variant's step, and the top kernels of each group's fastest profiled
    variant, in a block that opens; a row ``doc`` did not profile shows the profile ``seen``
    holds for it from a second run of the same commands (``_profiles``), so marked."""
    mine, rows, names = by_key(doc), [], {}
    for r, name in zip(doc["rows"], labels(doc), strict=True):
        # A group's later eager rows (one per command) have no twin: run 2's is its first's.
        twin = (seen or {}).get(row_key(r)) if mine.get(row_key(r)) is r else None
        if not r.get("profile") and twin:
            r, name = {**r, "profile": twin[0]}, f"{name} (run 2)"
        rows.append(r)
        names[id(r)] = name  # eager rows of several commands, told apart by what ran beside

    def label(row: dict[str, Any]) -> str:
        return names.get(id(row), row_label(row))

    labelled, failed = render.profiled(rows, label)
    fastest = []
    for model, bs in groups(doc):
        timed = [r for r in rows if (r["model"], r["batch_size"]) == (model, bs)
                 and r["status"] in LEARNS and step_median(r) and profile_of(r)]
        if timed:
            best = min(timed, key=step_median)
            fastest.append((f"{label(best)}, the fastest profiled", profile_of(best)))
    first = "Model · batch · variant"
    split = render.kernel_classes(labelled, first)
    body = "\n\n".join(t for t in (
        render.profile_table(labelled, first, "step") if labelled else "", "\n".join(failed),
        "What each step's kernel time is spent on:\n\n" + split if split else "",
        render.top_kernels(fastest, "step"), render.annotation_note(fastest)) if t)
    # The steps each variant was profiled for, as the profiles themselves count them: a file
    # joined from several commands keeps the settings of its first.
    steps = sorted({p["calls"] for _, p in labelled})
    counted = " or ".join(map(str, steps)) if steps else "a few"
    return render.details(f"Where each step's time goes (torch.profiler, {counted} steps of each "
                          "variant after the timing)", body)


# A compiled step this many times longer than the same graphs replayed as CUDA graphs is said
# to wait on the host: well past the few percent by which the two can differ on the GPU.
WAITS = 1.2


def waiting(doc: dict[str, Any], seen: Seen | None = None) -> str:
    """How much of a compiled step is the host: `reduce-overhead` runs the graphs `model`
    compiles, replayed as CUDA graphs, so its step is at least the GPU's time for them, and
    whatever `model` takes beyond it the GPU spent waiting for the host to launch the work. The
    same step at a larger batch says it again: a step bound by the host barely lengthens."""
    rows, out = by_key(doc), []
    seen = _profiles(doc, None) if seen is None else seen
    for model, bs in groups(doc):
        plain, graphs = rows.get((model, bs, "model")), rows.get((model, bs, "reduce-overhead"))
        if not (plain and graphs and plain["status"] in LEARNS and graphs["status"] in LEARNS
                and step_median(plain) and step_median(graphs)):
            continue
        t, g = step_median(plain), step_median(graphs)
        if plain.get("part", 0) != graphs.get("part", 0):
            # A host-bound step moves with the host's speed from one command to the next, so
            # only steps timed in the same rounds are set against each other.
            out.append(f"- {model} at batch {bs}: `model` and `reduce-overhead` were timed in "
                       "different commands, so their steps are not set against each other.")
            continue
        if t < WAITS * g:
            out.append(f"- {model} at batch {bs}: `model` takes {render.ms(t)} ms a step and "
                       f"`reduce-overhead` {render.ms(g)} ms: the step is the GPU's work, not "
                       "the host's.")
            continue
        larger = [(b, step_median(r)) for (m, b, v), r in rows.items()
                  if m == model and v == "model" and b > bs and r["status"] in LEARNS
                  and step_median(r)]
        grows = _idle(seen.get((model, bs, "model")), seen.get((model, bs, "reduce-overhead")))
        if larger:
            b, t2 = min(larger)
            grows += (f"; at batch {b}, {b / bs:.0f} times the samples, `model`'s step takes "
                     f"{t2 / t:.2f} times as long")
        out.append(f"- {model} at batch {bs}: `model` takes {render.ms(t)} ms a step and "
                   f"`reduce-overhead`, the same graphs replayed as CUDA graphs, {render.ms(g)} "
                   f"ms: at least {render.ms(t - g)} ms ({(t - g) / t:.0%}) of `model`'s step "
                   f"the GPU waits for the host to launch its work{grows}.")
    return "\n".join(out)


def _gpu(seen: tuple[dict[str, Any], str] | None) -> tuple[dict[str, Any], str] | None:
    ok = seen and seen[0].get("device_type") == "cuda" and seen[0]["idle_fraction"] is not None
    return seen if ok else None


def _idle(plain: tuple[dict[str, Any], str] | None,
          graphs: tuple[dict[str, Any], str] | None) -> str:
    """`` (the profiler finds the GPU idle 84% of it, between 356 kernels a step, and 56% of
    the replayed step)``: the two steps' idle shares, from GPU profiles; empty without."""
    plain, graphs = _gpu(plain), _gpu(graphs)
    if not plain:
        return ""
    p, source = plain
    text = (f" ({source} finds the GPU idle {p['idle_fraction']:.0%} of it, between "
            f"{p['kernels_per_call']:.0f} kernels a step")
    if graphs:
        text += f", and {graphs[0]['idle_fraction']:.0%} of the replayed step"
    return text + ")"


# An eager step whose GPU is idle less than this share of it is bound by its kernels, not the host.
KERNEL_BOUND = 0.25


def eager_busy(doc: dict[str, Any], seen: Seen) -> str:
    """For each group whose eager step keeps the GPU busy (a GPU profile idle under
    ``KERNEL_BOUND``): eager's longest kernels and their shares of its step, which is the work
    a compiled step can shorten there, since the host does not hold it back."""
    out = []
    for model, bs in groups(doc):
        got = _gpu(seen.get((model, bs, "eager")))
        if not got or got[0]["idle_fraction"] >= KERNEL_BOUND:
            continue
        p, source = got
        top = [k for k in p.get("top", []) if render.ANNOTATION not in k["name"]][:3]
        longest = ", ".join(f"`{k['name']}` ({100 * (k['share'] or 0):.0f} %)" for k in top)
        out.append(f"- {model} at batch {bs}: eager's step keeps the GPU busy "
                   f"{1 - p['idle_fraction']:.0%} of the time ({source}); its longest kernels "
                   f"are {longest}.")
    return "\n".join(out)


# The training goals this guide set itself (record, do not assert): at the largest batch, the
# best variant that learns like eager reaches this share of the bf16 peak measured in the run.
PEAK_GOALS = {"resnet50": 35.0, "transformer": 40.0}


def _why_short(seen: tuple[dict[str, Any], str] | None) -> str:
    """Where a step that fell short of its goal spent its time, from its GPU profile: how long
    the GPU sat idle, what its kernel time went to where the profile splits it, and how thin
    its longest kernel's share is."""
    if not seen or seen[0].get("device_type") != "cuda" or not seen[0].get("top"):
        return ""
    p, source = seen
    idle = (f"the GPU idle {p['idle_fraction']:.0%} of the step, "
            if p["idle_fraction"] is not None else "")
    split = p.get("by_class") or {}
    total = sum(split.values())
    spent = (f"matrix products and convolutions {split['matmul'] / total:.0%} of the kernel "
             "time, the rest in kernels that move memory, " if total and "matmul" in split
             else "")
    top = next((k for k in p["top"] if render.ANNOTATION not in k["name"]), None)
    longest = (f"the longest of its {p['kernels_per_call']:.0f} kernels, `{top['name']}`, "
               f"{100 * (top['share'] or 0):.0f} % of the step" if top else "")
    return f" {source.capitalize()}: {idle}{spent}{longest} (the top kernels are below)."


def peak_goal(doc: dict[str, Any], seen: Seen | None = None) -> str:
    """Per model with a goal, at its largest batch: the best variant's share of the peak."""
    if doc["provenance"].get("device_type") != "cuda":
        return ""
    out, seen = [], _profiles(doc, None) if seen is None else seen
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
        why = _why_short(seen.get(row_key(best))) if pct < goal else ""
        out.append(f"- {model} at batch {bs}, goal {goal:g} % of the measured bf16 peak: "
                   f"{verdict}; the best variant, `{best['variant']}`, reaches "
                   f"{pct:.1f} % ({render.num(best.get('tflops'), '.3g')} TFLOP/s).{why}")
    return "\n".join(out)


# ---- two runs of the same commands ------------------------------------------------------------

# Two runs "agree" on a speedup when they differ by at most this fraction of the first run's.
AGREE = 0.05


def agreement(doc: dict[str, Any], again: dict[str, Any]) -> str:
    """Every compiled speedup of one run beside the same row of a second run of the same
    commands, and which differ by more than ``AGREE``. A row the first file took from a command
    run after the second run (one that measured it again) is marked "later": its pair is not
    two consecutive runs."""
    first, second = by_key(doc), by_key(again)
    last = max((command_date(again, r) for r in again["rows"]), default="")
    later = {k for k, r in first.items() if k in second and command_date(doc, r) > last}
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
                apart.append((key, diff))
        body.append([_marked(row, later), render.num(a, ".2f"), render.num(b, ".2f"),
                     render.num(100 * diff if diff is not None else None, "+.1f")])
    # Short heads, so that the table fits a phone: the sentence under it says they are speedups.
    head = ("Model · batch · variant", "Run 1", "Run 2", "Apart %")
    named = ", ".join(f"`{k[2]}` ({k[0]} · {k[1]}{', later' if k in later else ''}, {d:+.0%})"
                      for k, d in apart)
    verdict = ("Each row is a compiled variant's speedup over eager in each run, and how far "
               f"run 2's is from run 1's. {both - len(apart)} of {both} compiled speedups "
               f"agree within {AGREE:.0%}"
               + (f"; apart: {named}." if apart else "."))
    if paired := [k for k in later if k[2] != "eager"]:
        dates = sorted({command_date(doc, first[k])[:16].replace("T", " ") for k in paired})
        verdict += (" Rows marked later hold, as run 1, a command run after run 2 "
                    f"({', '.join(dates)} "
                    "UTC) that measured them again; the results table shows that command's rows, "
                    "and these pairs are two runs, but not consecutive ones.")
    return "\n\n".join([render.markdown_table(head, body), verdict,
                         *([moved(doc, again, [k for k, _ in apart], later)] if apart else [])])


def command_date(doc: dict[str, Any], row: dict[str, Any]) -> str:
    """When the command that measured ``row`` started (ISO 8601, so strings order as dates):
    its part's date in a file joined from several commands, else the file's."""
    prov = doc["provenance"]
    parts, part = prov.get("parts") or [], row.get("part", 0)
    return (parts[part] if part < len(parts) else prov).get("date", "")


def _marked(row: dict[str, Any], later: set[Key]) -> str:
    return row_label(row) + (" (later)" if row_key(row) in later else "")


def moved(doc: dict[str, Any], again: dict[str, Any], keys: list[Key],
          later: set[Key] = frozenset()) -> str:
    """For speedups that moved between two runs: which of the two steps moved, the variant's
    or eager's, and how fast the host ran each time (the host canary, a fixed piece of CPU work
    timed beside the rounds). A step the host bounds moves with the host; a replayed CUDA graph
    barely does."""
    first, second, body, eager_more = by_key(doc), by_key(again), [], 0
    for key in keys:
        a, b = first[key], second[key]
        ea, eb = own_eager(doc, a), own_eager(again, b)
        change = [abs(step_median(y) / step_median(x) - 1) if step_median(x) and step_median(y)
                  else None for x, y in ((ea, eb), (a, b))]
        eager_more += None not in change and change[0] > change[1]
        canary = [r.get("host_canary_us") for r in (a, b)]
        body.append([_marked(a, later), _then(*(render.ms(step_median(r)) for r in (ea, eb))),
                     _then(*(render.ms(step_median(r)) for r in (a, b))),
                     _then(*(render.num(c, ".0f") for c in canary))])
    head = ("Model · batch · variant", "Eager ms", "Variant ms", "Canary µs")
    return ("What moved, for each speedup that differs by more than "
            f"{AGREE:.0%}: eager's step and the variant's, and the host canary (a fixed piece "
            "of CPU work; higher is a slower host), run 1 → run 2:\n\n"
            + render.markdown_table(head, body)
            + f"\n\nIn {eager_more} of {len(keys)}, eager's step moved more than the variant's.")


def _then(first: str, second: str) -> str:
    return f"{first} → {second}"
