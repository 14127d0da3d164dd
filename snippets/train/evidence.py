"""The training page's tables of where a step's time goes and whether two runs agree, drawn from
its findings (``where``, ``repeat``)."""

from __future__ import annotations

from typing import Any

from snippets.core import render
from snippets.core.profile import profile_of
from snippets.train import findings, repeat
from snippets.train import where as reading
from snippets.train.tables import (
    LEARNS,
    Key,
    by_key,
    groups,
    labels,
    results,
    row_key,
    row_label,
    step_median,
)
from snippets.train.where import Pace, Seen, Source, profiles_seen


def report(doc: dict[str, Any]) -> str:
    """``results``, then the profiles (``profiles``), under one stamp."""
    shown = profiles(doc) if any(r.get("profile") for r in doc["rows"]) else ""
    return results(doc) + ("\n\n" + shown if shown else "")


def where(doc: dict[str, Any], again: dict[str, Any] | None = None) -> str:
    """The profiles of ``doc``, ``again``'s for rows it did not profile; "" for none."""
    profiled = any(r.get("profile") for r in [*doc["rows"], *(again or {"rows": []})["rows"]])
    return profiles(doc, profiles_seen(doc, again)) if profiled else ""


def profiles(doc: dict[str, Any], seen: Seen | None = None) -> str:
    """Every profiled step, and the top kernels of each group's fastest, in a block that
    opens; a row ``doc`` did not profile shows ``seen``'s from run 2, so marked."""
    mine, rows, names = by_key(doc), [], {}
    for r, name in zip(doc["rows"], labels(doc), strict=True):
        # A group's later eager rows (one per command) have no twin: run 2's is its first's.
        twin = (seen or {}).get(row_key(r)) if mine.get(row_key(r)) is r else None
        if not r.get("profile") and twin:
            r, name = {**r, "profile": twin[0]}, f"{name} (repeat run)"
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
        "**Kernel classes**\n\n" + split if split else "",
        render.top_kernels(fastest, "step"), render.annotations(fastest)) if t)
    # The steps each variant was profiled for, as the profiles themselves count them: a file
    # joined from several commands keeps the settings of its first.
    steps = sorted({p["calls"] for _, p in labelled})
    counted = " or ".join(map(str, steps)) if steps else "a few"
    return render.details(f"Profiled: {counted} steps each", body)


# ---- which variant pays, and where the time goes (from the findings) ----------------------------

def picks(doc: dict[str, Any]) -> str:
    """``findings.picks`` as a table."""
    body = [[f"{p.model} · {p.batch}", p.variant and f"`{p.variant}`" or p.winner.value,
             render.num(p.speedup, ".2f"), render.num(p.pays_after, ",.0f"),
             f"`{p.rival.variant}`" if p.rival else "–",
             render.num(p.rival and p.rival.speedup, ".2f"),
             _pct(p.rival and p.rival.hosts_apart)] for p in findings.picks(doc)]
    head = ("Model · batch", "Fastest", "× eager", "Pays back after", "Rival", "Rival × eager",
            "Hosts apart %")
    return render.markdown_table(head, body, align="llrrlrr")


def _pct(share: float | None) -> str:
    return render.num(None if share is None else 100 * share, ".0f")


def _at(model: str, batch: int, source: Source | None = None) -> str:
    """A row's label, marked where the reading took run 2's profile."""
    return f"{model} · {batch}" + (" (repeat run)" if source is Source.RUN_2 else "")


def readings(doc: dict[str, Any], again: dict[str, Any] | None = None) -> str:
    """One table per reading of ``where`` that has rows."""
    seen = profiles_seen(doc, again)
    waits, busy = reading.waiting(doc, seen), reading.busy(doc, seen)
    goals = reading.goals(doc, seen)
    idle = [(w, w.idle) for w in waits if w.idle]
    short = [(g, g.short) for g in goals if g.short]
    tables = {
        "`model` against its replay": (
            ("Model · batch", "Pace", "`model` ms", "Replayed ms", "Waits ms", "Waits %",
             "Larger batch", "Its step ×"),
            [[_at(w.model, w.batch), w.pace.value, render.ms(w.step_ms), render.ms(w.replayed_ms),
              render.ms(w.waits_ms if w.pace is Pace.HOST else None),
              _pct(w.waits_share if w.pace is Pace.HOST else None),
              w.larger.batch if w.larger else "–",
              render.num(w.larger and w.larger.time_ratio, ".2f")]
             for w in waits]),
        "The idle GPU in `model`'s profile": (
            ("Model · batch", "Idle %", "Kernels", "Replayed idle %"),
            [[_at(w.model, w.batch, i.source), _pct(i.share), f"{i.kernels:.0f}",
              _pct(i.replayed)] for w, i in idle]),
        "Eager steps that keep the GPU busy": (
            ("Model · batch", "Busy %", "Longest kernels (share %)"),
            [[_at(b.model, b.batch, b.source), _pct(b.busy),
              "<br>".join(f"`{k.name}` ({100 * k.share:.0f})" for k in b.longest)] for b in busy]),
        "The peak goals": (
            ("Model · batch", "Goal %", "Best", "% peak", "TFLOP/s", "Missed by", "Of goal %"),
            [[_at(g.model, g.batch), f"{g.goal:g}", f"`{g.variant}`", f"{g.pct:.1f}",
              render.num(g.tflops, ".3g"), render.num(None if g.reached else g.missed_by, ".1f"),
              _pct(None if g.reached else g.pct / g.goal)] for g in goals]),
        "What held a missed goal back": (
            ("Model · batch", "Idle %", "Matrix work %", "Kernels", "Longest kernel", "Its %"),
            [[_at(g.model, g.batch, s.source), _pct(s.idle), _pct(s.matmul), f"{s.kernels:.0f}",
              f"`{s.longest.name}`" if s.longest else "–", _pct(s.longest and s.longest.share)]
             for g, s in short]),
    }
    return "\n\n".join(f"**{name}**\n\n" + render.markdown_table(head, body)
                        for name, (head, body) in tables.items() if body)


# ---- two runs of the same commands ------------------------------------------------------------

def _label(key: Key, later: bool) -> str:
    return f"{key[0]} · {key[1]} · {key[2]}" + (" (later)" if later else "")


def agreement(doc: dict[str, Any], again: dict[str, Any]) -> str:
    """``repeat.agreement`` as a table, and what moved (``moved``)."""
    agreed = repeat.agreement(doc, again)
    body = [[_label(p.key, p.later), render.num(p.first, ".2f"), render.num(p.second, ".2f"),
             render.num(100 * p.apart if p.apart is not None else None, "+.1f")]
            for p in agreed.pairs]
    # Short heads, so that the table fits a phone: the page says they are speedups.
    head = ("Model · batch · variant", "Run 1", "Run 2", "Apart %")
    return "\n\n".join([render.markdown_table(head, body),
                        *([moved(agreed)] if agreed.moved else [])])


def moved(agreed: repeat.Agreement) -> str:
    """For the speedups that moved: eager's step, the variant's and the canary, run 1 → 2."""
    body = [[_label(m.key, m.later), _then(*map(render.ms, m.eager_ms)),
             _then(*map(render.ms, m.variant_ms)),
             _then(*(render.num(c, ".0f") for c in m.canary_us))] for m in agreed.moved]
    return render.markdown_table(("Model · batch · variant", "Eager ms", "Variant ms",
                                  "Canary µs"), body)


def _then(first: str, second: str) -> str:
    return f"{first} → {second}"
