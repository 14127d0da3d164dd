"""Bring recorded results files to the one schema the code reads, so that no reader needs a
branch for what an older file lacks.

``python -m snippets.core.migrate docs/results`` rewrites every ``*.json`` under the folder in
place (through ``results.write_atomic``) and names this migration in the file's provenance
(``provenance["migrations"]``: its name, the day it ran, and which of its steps changed the
file). It is idempotent: a file that already names it is left as it is.

A step changes only what the schema says a file holds, never a sample or a recorded provenance
value. A field the file lets one derive is filled in (the kind from the schema name, the device
type from the device's name); a field the run never measured is written as ``None``, which the
readers take as "not measured" wherever a new run may also leave it so.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from snippets.core import results

NAME = "snippets.core.migrate/1"

# Schema names a kind's files were first recorded under, and the kind's name where the file
# carries none (the benchmark's first files said only their schema).
RENAMED = {("graph-breaks", "snippets.explain/1"), ("transformer-fastpath", "snippets.explain/1")}
# The kinds whose runs count Inductor's cache as they start (``core.runs.document``).
COUNTS_CACHE = ("bench", "speed-settings", "speed-freezing", "train")
# Library calls whose kernel time Inductor's re-timing read from the profiler before the ladder
# swapped the timer for every call (``speed.autotune``): those without an out= variant.
PROFILED_BY_INDUCTOR = ("convolution",)


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    """Every dict inside ``value``, itself included, depth first."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _dicts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _dicts(v)


def kind_named(doc: dict[str, Any]) -> bool:
    """A document without a kind takes the one whose schema it names."""
    if doc.get("kind"):
        return False
    found = next((k.name for k in results.KINDS.values() if k.schema == doc.get("schema")), None)
    if found is None:
        return False
    doc["kind"] = found
    return True


def schema_renamed(doc: dict[str, Any]) -> bool:
    """A kind recorded under another kind's schema name takes its own."""
    if (doc.get("kind"), doc.get("schema")) not in RENAMED:
        return False
    doc["schema"] = results.KINDS[doc["kind"]].schema
    return True


def host_fields(doc: dict[str, Any]) -> bool:
    """The device type from the device's recorded name (a CPU's says ``CPU: ``); the host's CPU
    and core count, never measured by such a run, as None."""
    prov, changed = doc["provenance"], False
    if "device_type" not in prov:
        prov["device_type"] = "cpu" if str(prov.get("device")).startswith("CPU") else "cuda"
        changed = True
    for key in ("host_cpu", "cpu_count"):
        if key not in prov:
            prov[key] = None
            changed = True
    return changed


def cache_uncounted(doc: dict[str, Any]) -> bool:
    """A run that did not count Inductor's cache as it started says so: ``inductor_cache`` None."""
    settings = doc["provenance"].get("settings")
    if doc.get("kind") not in COUNTS_CACHE or not isinstance(settings, dict) \
            or "inductor_cache" in settings:
        return False
    settings["inductor_cache"] = None
    return True


def graph_pool_unmeasured(doc: dict[str, Any]) -> bool:
    """A training row from before the CUDA graphs' pool was measured: pool None, shared with
    none, as a row whose variant replays no graph says it."""
    if doc.get("kind") != "train":
        return False
    changed = False
    for row in doc["rows"]:
        if "graph_pool_mb" not in row:
            row["graph_pool_mb"] = None
            row.setdefault("graph_pool_shared_with", [])
            changed = True
    return changed


def retimed_by_profiler(doc: dict[str, Any]) -> bool:
    """An autotuned operator both of whose kernel times the profiler read, as a convolution's
    were, says so (``retimed_by``) as the ladder's records now do."""
    changed = False
    for op in _dicts(doc["rows"]):
        lib, tmpl = op.get("library"), op.get("template")
        if (isinstance(lib, dict) and isinstance(tmpl, dict) and "retimed_by" not in op
                and lib.get("name") in PROFILED_BY_INDUCTOR and lib.get("kernel_ms")
                and tmpl.get("kernel_ms")):
            op["retimed_by"] = "profiler"
            changed = True
    return changed


STEPS: tuple[Callable[[dict[str, Any]], bool], ...] = (
    kind_named, schema_renamed, host_fields, cache_uncounted, graph_pool_unmeasured,
    retimed_by_profiler)


def migrate(doc: dict[str, Any], day: str) -> bool:
    """Apply every step to ``doc`` in place and name the migration in its provenance; False
    where the file already names it."""
    prov = doc["provenance"]
    if any(m.get("name") == NAME for m in prov.get("migrations", [])):
        return False
    changed = [step.__name__ for step in STEPS if step(doc)]
    prov["migrations"] = [*prov.get("migrations", []),
                          {"name": NAME, "date": day, "changed": changed}]
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a results folder, e.g. docs/results")
    args = parser.parse_args(argv)
    day = dt.datetime.now(dt.timezone.utc).date().isoformat()
    for path in sorted(args.folder.rglob("*.json")):
        doc = json.loads(path.read_text())
        if migrate(doc, day):
            results.validate(doc, str(path))  # the current schema, before it replaces the file
            results.write_atomic(path, doc)
            print(f"{path}: {', '.join(doc['provenance']['migrations'][-1]['changed']) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
