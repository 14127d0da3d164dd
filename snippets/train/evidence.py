"""Where a training step's time goes, and whether two runs of the same commands agree: the
tables under the training page's results, drawn from its findings (``snippets.train.where``,
``snippets.train.repeat``)."""

from __future__ import annotations

from typing import Any

from snippets.core import render
from snippets.core.profile import profile_of
from snippets.train import repeat
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
from snippets.train.where import Seen, profiles_seen


def report(doc: dict[str, Any]) -> str:
    """``results``, then the profiles (``profiles``), under one stamp."""
    shown = profiles(doc) if any(r.get("profile") for r in doc["rows"]) else ""
    return results(doc) + ("\n\n" + shown if shown else "")


def where(doc: dict[str, Any], again: dict[str, Any] | None = None) -> str:
    """The profiles of ``doc``, with those of ``again`` (a second run of the same commands) for
    the rows ``doc`` did not profile; empty where neither run profiled any row."""
    profiled = any(r.get("profile") for r in [*doc["rows"], *(again or {"rows": []})["rows"]])
    return profiles(doc, profiles_seen(doc, again)) if profiled else ""


def profiles(doc: dict[str, Any], seen: Seen | None = None) -> str:
    """Every profiled variant's step, and the top kernels of each group's fastest profiled
    variant, in a block that opens; a row ``doc`` did not profile shows the profile ``seen``
    holds for it from a second run of the same commands, so marked."""
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


# ---- two runs of the same commands ------------------------------------------------------------

def _label(key: Key, later: bool) -> str:
    return f"{key[0]} · {key[1]} · {key[2]}" + (" (later)" if later else "")


def agreement(doc: dict[str, Any], again: dict[str, Any]) -> str:
    """Every compiled speedup of one run beside the same row of a second run of the same
    commands, and, for the pairs apart by more than ``repeat.AGREE``, what moved (``moved``).
    A row the first file took from a command run after the second run is marked "later"."""
    agreed = repeat.agreement(doc, again)
    body = [[_label(p.key, p.later), render.num(p.first, ".2f"), render.num(p.second, ".2f"),
             render.num(100 * p.apart if p.apart is not None else None, "+.1f")]
            for p in agreed.pairs]
    # Short heads, so that the table fits a phone: the page says they are speedups.
    head = ("Model · batch · variant", "Run 1", "Run 2", "Apart %")
    return "\n\n".join([render.markdown_table(head, body),
                        *([moved(agreed)] if agreed.moved else [])])


def moved(agreed: repeat.Agreement) -> str:
    """For the speedups that moved between two runs: eager's step and the variant's, and the
    host canary (a fixed piece of CPU work timed beside the rounds), run 1 → run 2."""
    body = [[_label(m.key, m.later), _then(*map(render.ms, m.eager_ms)),
             _then(*map(render.ms, m.variant_ms)),
             _then(*(render.num(c, ".0f") for c in m.canary_us))] for m in agreed.moved]
    return render.markdown_table(("Model · batch · variant", "Eager ms", "Variant ms",
                                  "Canary µs"), body)


def _then(first: str, second: str) -> str:
    return f"{first} → {second}"
