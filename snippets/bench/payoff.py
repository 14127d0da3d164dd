"""When compiling pays back its cost: compile time cold and warm, and the calls needed to recoup it.

Pure rendering over recorded bench runs. Two runs made back to back on one fresh machine are the
evidence: the first compiled on a machine no benchmark had run on, the second could find the first
one's artifacts on disk (the cache is on by default, under /tmp unless TORCHINDUCTOR_CACHE_DIR
says otherwise), what a restarted process sees. Both predate the benchmark's count of the cache,
so their files say its state is unknown; the page says what the run's log adds.
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
    """The table of the two processes, then why a row needs more calls in the second, if any
    does. The runs predate the count of Inductor's cache (their cache state is unknown), so the
    columns name the process, not the cache."""
    cold_rows, warm_rows = rows_by_key(cold), rows_by_key(warm)
    head = ("Model · batch · mode", "Compile s, first process", "Compile s, next process",
            "Calls to break even, first", "Calls to break even, next")
    body = []
    for key, row in cold_rows.items():
        if key[2] == "eager" or row.get("compile_s") is None:
            continue
        body.append([" · ".join(map(str, key)), f"{row['compile_s']:.1f}",
                     render.num((warm_rows.get(key) or {}).get("compile_s"), ".1f"),
                     _calls(cold_rows, key), _calls(warm_rows, key)])
    why = slower_to_pay(cold_rows, warm_rows)
    return render.markdown_table(head, body) + ("\n\n" + why if why else "")


def _eager_ms(rows: dict[tuple[str, int, str], dict[str, Any]], key: tuple[str, int, str]
              ) -> tuple[float, str]:
    eager = rows[(key[0], key[1], "eager")]
    return eager["latency_ms"]["median"], eager["status"]


def slower_to_pay(cold_rows: dict[tuple[str, int, str], dict[str, Any]],
                  warm_rows: dict[tuple[str, int, str], dict[str, Any]]) -> str:
    """A sentence per row that compiled faster in the next process yet needs more calls there:
    the calls divide by the time each call saves against eager *of the same run*, so an eager
    median inflated by a slow spell of the host makes the first process's saving look larger."""
    out = []
    for key in cold_rows:
        first, nxt = compile_and_calls(cold_rows, key), compile_and_calls(warm_rows, key)
        if key[2] == "eager" or not first or not nxt or first[1] is None or nxt[1] is None:
            continue
        if nxt[1] <= first[1] or nxt[0] > first[0]:
            continue
        (e1, s1), (e2, s2) = _eager_ms(cold_rows, key), _eager_ms(warm_rows, key)
        saved1 = e1 - cold_rows[key]["latency_ms"]["median"]
        saved2 = e2 - warm_rows[key]["latency_ms"]["median"]
        out.append(f"- {' · '.join(map(str, key))} compiled faster in the next process but "
                   f"needs more calls there: each call saved {saved1:.3f} ms against eager in "
                   f"the first process and {saved2:.3f} ms in the next, because eager's median "
                   f"was {e1:.3g} ms in the first (its row marked {s1}) and {e2:.3g} ms in the "
                   f"next ({s2}). A slow spell of the host during the first run's eager rounds "
                   "would do this; the saving of the next process is the one to plan with.")
    return "\n".join(out)


def cold_warm_stamp(cold: dict[str, Any], warm: dict[str, Any]) -> str:
    return (f"{results.stamp(cold, 'recorded')} (first benchmark process on a fresh machine); "
            f"next process {warm['provenance']['date']}, same machine")


def tiny_work(doc: dict[str, Any]) -> str:
    """The graph-breaks page's small blocks, eager against compiled: how many ran slower
    compiled, and how long eager took on them, computed from a ``graph-breaks`` document."""
    rows = doc["rows"]
    head = ("Block: written as", "Eager ms", "Compiled ms", "Speedup")
    body = [(f"{r['cause']}: {r['variant']}", render.ms(r["eager_ms"]["median"]),
             render.ms(r["compiled_ms"]["median"]), f"{r['speedup']:.2f}x") for r in rows]
    slower = sum(r["speedup"] < 1 for r in rows)
    faster = [f"{r['cause']}: {r['variant']}" for r in rows if r["speedup"] >= 1]
    eager = [r["eager_ms"]["median"] for r in rows]
    rest = f" The others: {'; '.join(faster)}." if faster else ""
    return (f"{slower} of {len(rows)} blocks ran slower compiled than eager; eager took "
            f"{render.span(eager, '.3g', ' ms')} per call on them.{rest}\n\n"
            + render.markdown_table(head, body))
