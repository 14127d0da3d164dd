"""When compiling pays back its cost: compile time cold and warm, and the calls needed to recoup it.

Pure rendering over recorded bench runs. Two runs made back to back on one fresh machine are the
evidence: the first compiled with an empty Inductor cache, the second found the first one's
artifacts on disk (the cache is on by default, under /tmp unless TORCHINDUCTOR_CACHE_DIR says
otherwise), exactly what a restarted process sees.
"""

from __future__ import annotations

from typing import Any

from snippets.core import render, results


def break_even_calls(compile_s: float, eager_ms: float, compiled_ms: float) -> float | None:
    """Calls after which the time saved per call has paid for the compile; None if none do."""
    saved_ms = eager_ms - compiled_ms
    return compile_s * 1e3 / saved_ms if saved_ms > 0 else None


def rows_by_key(doc: dict[str, Any]) -> dict[tuple[str, int, str], dict[str, Any]]:
    return {(r["model"], r["batch_size"], r["mode"]): r for r in doc["rows"]}


def compile_and_calls(rows: dict[tuple[str, int, str], dict[str, Any]],
                      key: tuple[str, int, str]) -> tuple[float, float | None] | None:
    """(compile s, calls to break even) of one row, against eager's median from the same run:
    each run's latencies are its own, taken in the same rounds, so they are compared only with
    each other. None where the row or its eager row was not timed; calls None where it never
    breaks even."""
    row = rows.get(key) or {}
    eager = (rows.get((key[0], key[1], "eager")) or {}).get("latency_ms")
    if not eager or not row.get("latency_ms") or row.get("compile_s") is None:
        return None
    return row["compile_s"], break_even_calls(row["compile_s"], eager["median"],
                                              row["latency_ms"]["median"])


def _calls(rows: dict[tuple[str, int, str], dict[str, Any]], key: tuple[str, int, str]) -> str:
    got = compile_and_calls(rows, key)
    if got is None:
        return "–"
    return "never" if got[1] is None else f"{got[1]:,.0f}"


def cold_warm_markdown(cold: dict[str, Any], warm: dict[str, Any]) -> str:
    cold_rows, warm_rows = rows_by_key(cold), rows_by_key(warm)
    head = ("Model · batch · mode", "Compile s, cold cache", "Compile s, warm cache",
            "Calls to break even, cold", "Calls to break even, warm")
    body = []
    for key, row in cold_rows.items():
        if key[2] == "eager" or row.get("compile_s") is None:
            continue
        body.append([" · ".join(map(str, key)), f"{row['compile_s']:.1f}",
                     render.num((warm_rows.get(key) or {}).get("compile_s"), ".1f"),
                     _calls(cold_rows, key), _calls(warm_rows, key)])
    return render.markdown_table(head, body)


def cold_warm_stamp(cold: dict[str, Any], warm: dict[str, Any]) -> str:
    return (f"{results.stamp(cold, 'recorded')} (first benchmark process on a fresh machine); "
            f"warm run {warm['provenance']['date']}, same machine, next process")
