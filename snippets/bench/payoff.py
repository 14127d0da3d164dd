"""When compiling pays back its cost: compile time cold and warm, and the calls needed to recoup it.

Pure rendering over recorded bench runs. Two runs made back to back on one fresh machine are the
evidence: the first compiled with an empty Inductor cache, the second found the first one's
artifacts on disk (the cache is on by default, under /tmp unless TORCHINDUCTOR_CACHE_DIR says
otherwise), exactly what a restarted process sees.
"""

from __future__ import annotations

from typing import Any

from snippets.core import results


def break_even_calls(compile_s: float, eager_ms: float, compiled_ms: float) -> float | None:
    """Calls after which the time saved per call has paid for the compile; None if none do."""
    saved_ms = eager_ms - compiled_ms
    return compile_s * 1e3 / saved_ms if saved_ms > 0 else None


def cold_warm_markdown(cold: dict[str, Any], warm: dict[str, Any]) -> str:
    warm_rows = {(r["model"], r["batch_size"], r["mode"]): r for r in warm["rows"]}
    cold_rows = {(r["model"], r["batch_size"], r["mode"]): r for r in cold["rows"]}
    head = ["Model", "Batch", "Mode", "Compile s, cold cache", "Compile s, warm cache",
            "Calls to break even, cold", "Calls to break even, warm"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i < 3 else "--:" for i in range(len(head))) + "|"]
    for key, row in cold_rows.items():
        if key[2] == "eager" or row.get("compile_s") is None:
            continue
        eager = (cold_rows.get((key[0], key[1], "eager")) or {}).get("latency_ms")
        w = warm_rows.get(key, {})
        cells = [key[0], str(key[1]), key[2], f"{row['compile_s']:.1f}",
                 "–" if w.get("compile_s") is None else f"{w['compile_s']:.1f}"]
        for r in (row, w):
            calls = None
            if eager and r.get("latency_ms") and r.get("compile_s") is not None:
                calls = break_even_calls(r["compile_s"], eager["median"], r["latency_ms"]["median"])
            cells.append("never" if calls is None else f"{calls:,.0f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cold_warm_stamp(cold: dict[str, Any], warm: dict[str, Any]) -> str:
    return (f"{results.stamp(cold, 'recorded')} (first benchmark process on a fresh machine); "
            f"warm run {warm['provenance']['date']}, same machine, next process")
