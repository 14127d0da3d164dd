"""Bring recorded results files to the one schema the code reads, so that no reader needs a
branch for what an older file lacks. It lives with the site, which gathers every topic's kinds
(``topics``): it reads files of every kind."""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snippets.bench.kinds import BENCH
from snippets.core import config, results
from snippets.explain.kinds import FASTPATH, GRAPH_BREAKS
from snippets.site import topics  # noqa: F401  every kind a file here is of, declared
from snippets.site.build import parse
from snippets.speed.kinds import FREEZING, SETTINGS
from snippets.train.kinds import TRAIN

# The names the migrations are recorded under in the files (from when this module sat in the
# core): fixed, as every name a file records is.
NAME = "snippets.core.migrate/1"

# Schema names a kind's files were first recorded under, and the kind's name where the file
# carries none (the benchmark's first files said only their schema).
RENAMED = {(GRAPH_BREAKS.name, "snippets.explain/1"), (FASTPATH.name, "snippets.explain/1")}
# The kinds whose runs count Inductor's cache as they start (``core.runs.document``).
COUNTS_CACHE = tuple(k.name for k in (BENCH, SETTINGS, FREEZING, TRAIN))
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
    """The device type from the device's recorded name (a CPU's says ``CPU: ``); the host's
    CPU and core count, never measured, as None."""
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
    none."""
    if doc.get("kind") != TRAIN.name:
        return False
    changed = False
    for row in doc["rows"]:
        if "graph_pool_mb" not in row:
            row["graph_pool_mb"] = None
            row.setdefault("graph_pool_shared_with", [])
            changed = True
    return changed


def retimed_by_profiler(doc: dict[str, Any]) -> bool:
    """An autotuned convolution, both of whose kernel times the profiler read, says so
    (``retimed_by``) as the ladder's records now do."""
    changed = False
    for op in _dicts(doc["rows"]):
        lib, tmpl = op.get("library"), op.get("template")
        if (isinstance(lib, dict) and isinstance(tmpl, dict) and "retimed_by" not in op
                and lib.get("name") in PROFILED_BY_INDUCTOR and lib.get("kernel_ms")
                and tmpl.get("kernel_ms")):
            op["retimed_by"] = "profiler"
            changed = True
    return changed


def _profiles(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every profile a document holds (``core.profile.summarize``'s dict), wherever it sits."""
    return (d for d in _dicts(doc["rows"]) if isinstance(d.get("top"), list)
            and "busy_us_per_call" in d)


def annotations_named(doc: dict[str, Any]) -> bool:
    """A profile names the ``record_function`` ranges (``Optimizer.step#AdamW.step``) it
    counted among its kernels, as the profiler once drew them on the GPU's timeline; its top
    kernels show which."""
    changed = False
    for p in _profiles(doc):
        if "annotations" not in p:
            p["annotations"] = sorted({k["name"] for k in p["top"] if "#" in k["name"]})
            changed = True
    return changed


Step = Callable[[dict[str, Any]], bool]
STEPS: tuple[Step, ...] = (
    kind_named, schema_renamed, host_fields, cache_uncounted, graph_pool_unmeasured,
    retimed_by_profiler)
# Each migration, in the order they apply, by the name a file's provenance records.
MIGRATIONS: tuple[tuple[str, tuple[Step, ...]], ...] = (
    (NAME, STEPS),
    ("snippets.core.migrate/2", (annotations_named,)),
)


def migrate(doc: dict[str, Any], day: str) -> bool:
    """Apply, in place, every migration ``doc`` does not name yet, naming each in its provenance
    with the steps that changed it; False where it names them all."""
    prov = doc["provenance"]
    done = {m.get("name") for m in prov.get("migrations", [])}
    todo = [(name, steps) for name, steps in MIGRATIONS if name not in done]
    for name, steps in todo:
        changed = [step.__name__ for step in steps if step(doc)]
        prov["migrations"] = [*prov.get("migrations", []),
                              {"name": name, "date": day, "changed": changed}]
    return bool(todo)


PROG = "python -m snippets.site.migrate"


@dataclass(frozen=True, kw_only=True)
class MigrateConfig:
    """The folder to migrate.

    Attributes:
        folder: a results folder, e.g. docs/results
    """

    folder: Path = config.option(flag="FOLDER")


def main(argv: list[str] | None = None) -> int:
    cfg = parse(PROG, MigrateConfig, __doc__, argv)
    day = dt.datetime.now(dt.timezone.utc).date().isoformat()
    for path in sorted(cfg.folder.rglob("*.json")):
        doc = json.loads(path.read_text())
        if migrate(doc, day):
            results.validate(doc, str(path))  # the current schema, before it replaces the file
            results.write_atomic(path, doc)
            print(f"{path}: {', '.join(doc['provenance']['migrations'][-1]['changed']) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
