"""The cross-check's tables, for the noise page: the harness's median beside
``torch.utils.benchmark.Timer``'s and a wall clock's, per row, and what they show, computed from
the rows. Rendering only; ``snippets.bench.crosscheck`` measures.
"""

from __future__ import annotations

from typing import Any

from snippets.core import render


def crosscheck(doc: dict[str, Any]) -> str:
    """The harness's median beside torch.utils.benchmark.Timer's and a wall clock's, per row; the
    Timer held to the harness's block length where the run measured it."""
    from snippets.bench import crosscheck as cc

    checked = [r for r in doc["rows"] if cc.ratios(r)]
    # The Timer held to the harness's blocks, then also given its threads: columns only where
    # the run measured them.
    extra = [(k, name) for k, name in (("timer_harness_blocks_ms", "Timer, long blocks ms"),
                                       ("timer_harness_threads_ms", "Timer, + threads ms"))
             if any(r["crosscheck"].get(k) for r in checked)]
    # Milliseconds only, so that the table fits the page: the findings above it give the ratios.
    head = ("Model · batch · mode", "Harness ms", "Timer ms", *(name for _, name in extra),
            "Wall ms")
    rows = []
    for r in checked:
        rows.append((f"{r['model']} · {r['batch_size']} · {r['mode']}",
                     render.ms(r["latency_ms"]["median"]),
                     render.ms(r["crosscheck"]["timer_ms"]["median"]),
                     *(render.ms((r["crosscheck"].get(k) or {}).get("median"))
                       for k, _ in extra),
                     render.ms(r["crosscheck"]["wall_ms"]["median"])))
    return render.markdown_table(head, rows)


def crosscheck_findings(doc: dict[str, Any]) -> str:
    """What the cross-check shows, computed from its rows: the CUDA-graph rows (the device sets
    their time) against the 3 % bar, and the others' spread."""
    from snippets.bench import crosscheck as cc

    rows = [r for r in doc["rows"] if cc.ratios(r)]
    graphs = [r for r in rows if r["mode"] == "reduce-overhead"]
    out = []
    if graphs:
        wall = [cc.ratios(r)[1] for r in graphs]
        timer = [cc.ratios(r)[0] for r in graphs]
        worst = max(abs(w - 1) for w in wall)
        verdict = "within" if worst <= cc.AGREE_WITHIN else "outside"
        out.append(f"- CUDA-graph rows: the wall clock reads {min(wall):.3f} to {max(wall):.3f} "
                   f"of the harness's median, {verdict} the {cc.AGREE_WITHIN:.0%} bar; "
                   f"`blocked_autorange` reads {min(timer):.3f} to {max(timer):.3f}.")
        long_blocks = [r["crosscheck"].get("timer_harness_blocks_ms") for r in graphs]
        if max(timer) - 1 > cc.AGREE_WITHIN and not all(long_blocks):
            # What is known of the gap, and what is not: the rows hold no block length of the
            # Timer's and no timing of it held to the harness's, so they cannot say which of its
            # differences from the wall clock (same calls, same callables) causes it.
            out.append("- On those rows `blocked_autorange` reads more than the "
                       "wall clock, although both time the same callables back to back after "
                       "the harness. This run does not say why: it recorded neither the block "
                       "length the Timer chose nor the Timer held to the harness's block "
                       "length. What differs is the Timer's own way of running the calls (its "
                       "block length, a device synchronize at each clock reading, torch's "
                       "thread count set to one while it measures); runs made with "
                       "`--crosscheck` now record both, and the Timer given the harness's "
                       "thread count too, which separate the block length and the threads "
                       "from the rest.")
        if all(long_blocks):
            held = [b["median"] / r["latency_ms"]["median"]
                    for b, r in zip(long_blocks, graphs, strict=True)]
            own = [r["crosscheck"]["timer_block_calls"] for r in graphs]
            harness = [r["calls_per_sample"] for r in graphs]
            out.append(f"- The same Timer held to the harness's block length reads "
                       f"{min(held):.3f} to {max(held):.3f} of the harness on those rows (its "
                       f"own blocks held {_calls(own)}, the harness's {_calls(harness)}).")
        out += [line for line in (_with_threads(graphs, "those rows"),) if line]
    others = [r for r in rows if r["mode"] != "reduce-overhead"]
    if others and graphs:
        wall = [cc.ratios(r)[1] for r in others]
        noisy = [r for r in others if r["status"] == "noisy"]
        out.append(f"- The other rows: the wall clock reads {min(wall):.3f} to {max(wall):.3f} of "
                   f"the harness; {len(noisy)} of {len(others)} are marked noisy, the host-bound "
                   "ones whose time moves with the host's spells (above), measured minutes apart "
                   "by the three timers.")
        out += [line for line in (_with_threads(others, "the other rows"),) if line]
    elif others:  # a CPU's run: every row is the host's work, none is a CUDA graph
        timer, wall = ([cc.ratios(r)[i] for r in others] for i in (0, 1))
        out.append(f"- Every row: the wall clock reads {min(wall):.3f} to {max(wall):.3f} of the "
                   f"harness, `blocked_autorange` {min(timer):.3f} to {max(timer):.3f}.")
        out += [line for line in (_with_threads(others, "every row"),) if line]
    return "\n".join(out)


def _with_threads(rows: list[dict[str, Any]], which: str) -> str:
    """The Timer held to the harness's block length and given its thread count, against the
    harness: the Timer runs on one thread unless told otherwise, and what this reading leaves
    of a gap is not the thread count."""
    held = [(r["crosscheck"]["timer_harness_threads_ms"]["median"] / r["latency_ms"]["median"],
             r["crosscheck"]["harness_threads"]) for r in rows
            if r["crosscheck"].get("timer_harness_threads_ms")]
    if not held:
        return ""
    ratio, threads = [h[0] for h in held], sorted({h[1] for h in held})
    return (f"- Held to the harness's block length and given its {'/'.join(map(str, threads))} "
            f"threads (the Timer's default is one), the Timer reads {min(ratio):.3f} to "
            f"{max(ratio):.3f} of the harness on {which}.")


def report(doc: dict[str, Any]) -> str:
    """The findings, then the table they are read from, under one stamp."""
    return crosscheck_findings(doc) + "\n\n" + crosscheck(doc)


def _calls(counts: list[int]) -> str:
    """Calls per block, as a range only where the blocks differ: "1 call", "14 to 87 calls"."""
    lo, hi = min(counts), max(counts)
    return f"{lo} call{'s' if lo != 1 else ''}" if lo == hi else f"{lo} to {hi} calls"
