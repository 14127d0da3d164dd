"""When compiling pays back its cost: compile time cold and warm, and the calls needed to recoup it.

The evidence is two runs made back to back on one fresh machine: the second could find the first
one's artifacts in Inductor's on-disk cache, as a restarted process does. Both predate the
benchmark's count of the cache, so their files say its state is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snippets.bench.stability import Key, by_key
from snippets.core import render, stamps
from snippets.core.findings import Span

Rows = dict[Key, dict[str, Any]]


@dataclass(frozen=True)
class SlowerToPay:
    """A row that compiled faster in the next process yet needs more calls there: an eager
    median inflated by a slow spell of the host makes a run's saving per call look larger."""

    model: str
    batch: int
    mode: str
    saved_first: float  # ms a call saves against eager, first process
    saved_next: float
    eager_first: float  # eager's median ms, first process
    eager_next: float
    status_first: str  # eager's row status ("ok", "noisy")
    status_next: str


@dataclass(frozen=True)
class TinyWork:
    """The graph-breaks page's small blocks: how many ran slower compiled, eager's times, and
    the blocks (``cause: variant``) that did not run slower."""

    blocks: int
    slower: int
    eager_ms: Span
    faster: tuple[str, ...]
    mode: str = "default"  # the compile mode the blocks ran under: a verdict holds for it only
    failed: tuple[str, ...] = ()  # blocks whose compiled side failed (CUDA graph capture, say)


def break_even_calls(compile_s: float, eager_ms: float, compiled_ms: float) -> float | None:
    """Calls after which the time saved per call has paid for the compile; None if none do."""
    saved_ms = eager_ms - compiled_ms
    return compile_s * 1e3 / saved_ms if saved_ms > 0 else None


def compile_and_calls(rows: Rows, key: Key) -> tuple[float, float | None] | None:
    """(compile s, calls to break even) of one row against eager's median of the same run (never
    another run's); None where either was not timed, calls None where it never breaks even."""
    row = rows.get(key) or {}
    eager = (rows.get((key[0], key[1], "eager")) or {}).get("latency_ms")
    if not eager or not row.get("latency_ms") or row.get("compile_s") is None:
        return None
    return row["compile_s"], break_even_calls(row["compile_s"], eager["median"],
                                              row["latency_ms"]["median"])


def _calls(rows: Rows, key: Key) -> str:
    got = compile_and_calls(rows, key)
    if got is None:
        return "–"
    return "never" if got[1] is None else f"{got[1]:,.0f}"


def first_two(results_dir: Path) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The first two benchmark runs on one fresh H200 machine, one process after the other."""
    from snippets.bench import stability

    runs = dict(stability.recorded_gpu_runs(results_dir))
    cold, warm = runs.get("noise/first-1"), runs.get("noise/first-2")
    return (cold, warm) if cold and warm else None


def cold_warm_markdown(cold: dict[str, Any], warm: dict[str, Any]) -> str:
    """The two processes' table, and one of the rows ``slower_to_pay``. The columns name the
    process, not the cache: the runs predate its count."""
    cold_rows, warm_rows = by_key(cold), by_key(warm)
    head = ("Model · batch · mode", "Compile s, first process", "Compile s, next process",
            "Calls to break even, first", "Calls to break even, next")
    body = []
    for key, row in cold_rows.items():
        if key[2] == "eager" or row.get("compile_s") is None:
            continue
        body.append([" · ".join(map(str, key)), f"{row['compile_s']:.1f}",
                     render.num((warm_rows.get(key) or {}).get("compile_s"), ".1f"),
                     _calls(cold_rows, key), _calls(warm_rows, key)])
    slower = slower_to_pay(cold, warm)
    return render.markdown_table(head, body) + ("\n\n" + render.markdown_table(
        ("Model · batch · mode", "Saved ms, first", "Saved ms, next", "Eager ms, first",
         "Eager ms, next"),
        [(f"{f.model} · {f.batch} · {f.mode}", f"{f.saved_first:.3f}", f"{f.saved_next:.3f}",
          f"{f.eager_first:.3g} ({f.status_first})", f"{f.eager_next:.3g} ({f.status_next})")
         for f in slower]) if slower else "")


def _eager_ms(rows: Rows, key: Key) -> tuple[float, str]:
    eager = rows[(key[0], key[1], "eager")]
    return eager["latency_ms"]["median"], eager["status"]


def slower_to_pay(cold: dict[str, Any], warm: dict[str, Any]) -> tuple[SlowerToPay, ...]:
    """Every row that compiled faster in the next process yet needs more calls there."""
    cold_rows, warm_rows = by_key(cold), by_key(warm)
    out = []
    for key in cold_rows:
        first, nxt = compile_and_calls(cold_rows, key), compile_and_calls(warm_rows, key)
        if key[2] == "eager" or not first or not nxt or first[1] is None or nxt[1] is None:
            continue
        if nxt[1] <= first[1] or nxt[0] > first[0]:
            continue
        (e1, s1), (e2, s2) = _eager_ms(cold_rows, key), _eager_ms(warm_rows, key)
        out.append(SlowerToPay(*key, e1 - cold_rows[key]["latency_ms"]["median"],
                               e2 - warm_rows[key]["latency_ms"]["median"], e1, e2, s1, s2))
    return tuple(out)


def cold_warm_stamp(cold: dict[str, Any], warm: dict[str, Any]) -> str:
    """The first process's stamp and the next one's date (same machine, same settings)."""
    return (f"{stamps.stamp(cold, 'recorded, first process')}; "
            f"next process: {(warm['provenance'].get('date') or '')[:10]}")


def tiny(doc: dict[str, Any]) -> TinyWork:
    """What the graph-breaks page's small blocks show, from a ``graph-breaks`` document."""
    timed = [r for r in doc["rows"] if r["speedup"] is not None]
    return TinyWork(len(timed), sum(r["speedup"] < 1 for r in timed),
                    Span.of([r["eager_ms"]["median"] for r in doc["rows"]]),
                    tuple(_block(r) for r in timed if r["speedup"] >= 1),
                    doc["provenance"]["settings"].get("mode", "default"),
                    tuple(_block(r) for r in doc["rows"] if r["speedup"] is None))


def _block(row: dict[str, Any]) -> str:
    return f"{row['cause']}: {row['variant']}"


def tiny_work(doc: dict[str, Any]) -> str:
    """The graph-breaks page's small blocks, eager against compiled."""
    head = ("Block: written as", "Eager ms", "Compiled ms", "Speedup")
    return render.markdown_table(head, [
        (_block(r), render.ms(r["eager_ms"]["median"]),
         *((render.ms(r["compiled_ms"]["median"]), f"{r['speedup']:.2f}x")
           if r["compiled_ms"] is not None else ("–", r.get("status", "error"))))
        for r in doc["rows"]])
