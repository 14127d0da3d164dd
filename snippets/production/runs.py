"""A start-up file's runs per (model, path): each group reduced to the medians of its good
runs, with its failures, and the paths that failed in some runs only, as the start-up table
(``tables``) and the findings (``findings``) read them. Pure: nothing here measures, formats or
composes text.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

# The start-up paths in the order the page names them, with the label a table row and a
# sentence give each.
LABELS = {"eager": "eager", "compile-empty": "compile, empty cache",
          "compile-warm": "compile, warm local cache", "artifacts": "compile, cache artifacts",
          "regional": "regional compile, empty cache", "aot-build": "AOTInductor build",
          "aot-load": "AOTInductor package, empty cache",
          "aot-load-warm": "AOTInductor package, warm cache",
          "aot-load-trusted": "AOTInductor package, CPU check skipped",
          "precompile-build": "precompiled function build",
          "precompile-load": "precompiled function, empty cache",
          "precompile-load-warm": "precompiled function, build's cache folder"}
GOOD = ("ok", "noisy")  # the statuses of a run whose figures count


def _median(values: list[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return statistics.median(got) if got else None


def _any(values: list[bool | None]) -> bool | None:
    got = [v for v in values if v is not None]
    return any(got) if got else None


def _load(rows: list[dict[str, Any]], timed: str) -> float | None:
    """The median load (ready minus import) of the rows that recorded ``timed``."""
    return _median([r["ready_s"] - r["import_s"] for r in rows
                    if r.get("ready_s") is not None and r.get(timed) is not None])


def by_path(rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Rows grouped per (model, path), each group in the order given."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["model"], row["path"]), []).append(row)
    return groups


def ran(row: dict[str, Any]) -> str:
    """A row's sort key in run order: its command's start (sorting is stable within one)."""
    return row.get("date") or ""


def failure(row: dict[str, Any]) -> str:
    """A failed run's status and its message's first clause (a crash's frame follows ", File"
    and is left to the detail)."""
    return f"{row['status']}: {row['message'].split(', File')[0][:60]}"


@dataclass(frozen=True)
class PathRuns:
    """One (model, path) of a start-up file: the median over its good runs of each time, every
    good run's own per-call figure, Inductor's graph-cache misses, the package's load time
    (ready minus import), of that the CPU check and the load of the runs that timed it, and
    each failure's first clause."""

    model: str
    path: str
    label: str
    runs: int
    good: int
    first_s: float | None
    steady_s: float | None
    build_s: float | None
    ms: float | None
    ms_runs: tuple[float, ...]
    misses: float | None
    load_s: float | None
    isa_s: float | None
    isa_of_s: float | None
    short: tuple[str, ...]
    isa_checked: bool | None = None  # a precompiled function's load ran the CPU check (any run)
    # A precompiled function's import of Dynamo and Inductor, and the loading of the runs that
    # timed it (two figures of one set of runs, as for the CPU check)
    stack_s: float | None = None
    stack_of_s: float | None = None


def paths(doc: dict[str, Any]) -> dict[tuple[str, str], PathRuns]:
    """Every (model, path) of a start-up document, in the order the file first has them."""
    out = {}
    for (model, path), rows in by_path(doc["rows"]).items():
        good = [r for r in rows if r["status"] in GOOD]
        bad = [r for r in rows if r not in good]
        ms_runs = tuple(m for r in good if (m := (r["latency_ms"] or {}).get("median")) is not None)
        out[(model, path)] = PathRuns(
            model, path, LABELS.get(path, path), len(rows), len(good),
            first_s=_median([r["first_s"] for r in good]),
            steady_s=_median([r["steady_s"] for r in good]),
            build_s=_median([r["build_s"] for r in good]),
            ms=_median(list(ms_runs)), ms_runs=ms_runs,
            # Graphs Inductor compiled (its FX-graph cache missed): what regional compile saves
            # when blocks are identical, and what it does not when they differ.
            misses=_median([r.get("fx_cache_misses") for r in good]),
            load_s=_load(good, "import_s"),
            # The CPU check and the loading of the runs that timed it: two figures of one set
            # of runs.
            isa_s=_median([r.get("isa_check_s") for r in good]),
            isa_of_s=_load(good, "isa_check_s"),
            short=tuple(sorted({failure(r) for r in bad})),
            isa_checked=_any([r.get("isa_checked") for r in good]),
            stack_s=_median([r.get("compiler_import_s") for r in good]),
            stack_of_s=_load(good, "compiler_import_s"))
    return out


@dataclass(frozen=True)
class PartlyFailed:
    """A path that failed in some runs: ``fixed`` where every failure came before the first good
    run (a fault fixed between the two commits), else it fails now and then."""

    model: str
    label: str
    bad: int
    runs: int
    fixed: bool
    first_good: str


def partly_failed(doc: dict[str, Any]) -> list[PartlyFailed]:
    """Paths that failed in some runs and not in others, in run order."""
    parts = doc.get("provenance", {}).get("parts") or []

    def commit(row: dict[str, Any]) -> str:
        i = row.get("part")
        return (parts[i].get("commit") or "?")[:12] if i is not None and i < len(parts) else "?"

    out = []
    for (model, path), rows in by_path(sorted(doc["rows"], key=ran)).items():
        ok = [r["status"] in GOOD for r in rows]
        if all(ok) or not any(ok):
            continue
        bad = [r for r, good in zip(rows, ok, strict=True) if not good]
        since = ok.index(True)
        out.append(PartlyFailed(model, LABELS.get(path, path), len(bad), len(rows),
                                all(ok[since:]), commit(rows[since])))
    return out
