"""The live sections' records and the plots' cache: what a build reads instead of executing.

A record (``live-sections/<name>.json``, committed) holds a live section's value, written by
``python -m snippets.site.produce`` with the key of what made it: the name, the producer's
configuration, the source of its module and of every ``snippets`` module that imports, torch and
the device type. A build renders a record whatever its key; ``python -m snippets.site.live
--check`` names the stale ones. Plots are drawn once per documents, code and matplotlib release.
"""

from __future__ import annotations

import ast
import datetime as dt
import functools
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import torch

from snippets.core import config, machine
from snippets.site.build import Build

ROOT = Path(__file__).resolve().parents[2]


def device_type() -> str:  # what ``auto`` resolves to here: a record is keyed by it
    return config.resolve_device("auto")


def device_name() -> str:
    return machine.device_name(torch.device(device_type()))


# A serve rebuild asks again for every block: parse each file once per version of it.
@functools.lru_cache(maxsize=256)
def _imports(path: Path, _mtime_ns: int, _size: int) -> frozenset[str]:
    """Names of the ``snippets`` modules a file imports, at top level or inside functions."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "snippets":
            # ``from snippets.core import measure``: the package and each name that is a module
            # (names that are not, a function say, have no file and are skipped).
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("snippets.")}
    return frozenset(found)


def _module_files(names: set[str]) -> dict[str, Path]:
    """The files of these snippets modules and of every snippets module they import, in turn."""
    files: dict[str, Path] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        base = ROOT / Path(*name.split("."))
        path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if name in files or not path.is_file():
            continue
        files[name] = path
        todo += _imports(path, path.stat().st_mtime_ns, path.stat().st_size)
    return files


def _callables(obj: Any) -> list[Callable[..., Any]]:
    """The functions a producer is made of: itself, or a partial's function and its arguments."""
    if isinstance(obj, functools.partial):
        return [*_callables(obj.func), *(c for a in (*obj.args, *obj.keywords.values())
                                        for c in _callables(a))]
    return [obj] if callable(obj) else []


def _describe(obj: Any) -> Any:
    """A producer's configuration without memory addresses: a partial's function and
    arguments, a function's name, any other value's repr."""
    if isinstance(obj, functools.partial):
        return {"call": _describe(obj.func), "args": [_describe(a) for a in obj.args],
                "kwargs": {k: _describe(v) for k, v in sorted(obj.keywords.items())}}
    if callable(obj):
        return f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', repr(obj))}"
    return repr(obj)


def _code_digest(produce: Callable[[], Any]) -> str:
    """Hash of the source of the modules defining ``produce`` and of every snippets module they
    import (a module outside ``snippets``, a test's, by its own file)."""
    h = hashlib.sha256()
    modules: set[str] = set()
    for fn in _callables(produce):
        mod = sys.modules.get(getattr(fn, "__module__", None) or "")
        file = getattr(mod, "__file__", None)
        if not file:  # a builtin: its name, in the configuration, is all there is
            h.update(repr(fn).encode())
            continue
        modules.add(mod.__name__)
        if not mod.__name__.startswith("snippets."):
            h.update(Path(file).read_bytes())
    for name, path in sorted(_module_files(modules).items()):
        h.update(name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _key(name: str, produce: Callable[..., Any], **where: str) -> str:
    parts = {"name": name, "config": _describe(produce), "code": _code_digest(produce),
             "torch": metadata.version("torch"), **where}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def record_key(name: str, produce: Callable[..., Any]) -> str:
    """The key of a record: the code, its configuration and the torch release, on the device
    type, not the device's name, so that a record made on one CPU model is current on another."""
    return _key(name, produce, device_type=device_type())


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower())


def record_path(name: str, build: Build) -> Path:
    return build.records_dir / f"{_slug(name)}.json"


def read_record(name: str, build: Build) -> tuple[Any, dict[str, Any]] | None:
    """The value and metadata recorded under ``name``, current or stale; None where there is
    none (as Quarto's ``freeze``: a build renders what was executed and committed)."""
    try:
        entry = json.loads(record_path(name, build).read_text())
    except FileNotFoundError:
        return None
    return entry["value"], entry["meta"]


def is_current(name: str, produce: Callable[..., Any], build: Build) -> bool:
    """Whether the record of ``name`` was made by this code, configuration and torch release."""
    found = read_record(name, build)
    return found is not None and found[1].get("record_key") == record_key(name, produce)


def record(name: str, produce: Callable[..., Any], build: Build,
           commit: str | None) -> dict[str, Any]:
    """Execute ``produce`` and write its value as the repository's record of ``name``."""
    value, meta = _executed(name, produce)
    meta |= {"record_key": record_key(name, produce), "device_type": device_type(),
             "commit": commit}
    path = record_path(name, build)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write(path, value, meta)
    return meta


def _executed(name: str, produce: Callable[[], Any]) -> tuple[Any, dict[str, Any]]:
    """``produce()`` and the metadata every entry carries: where, when and how long."""
    t0 = time.perf_counter()
    value = produce()
    return value, {"name": name, "device": device_name(), "torch": torch.__version__,
                   "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                   "seconds": round(time.perf_counter() - t0, 2)}  # what an entry saves a build


def _write(path: Path, value: Any, meta: dict[str, Any]) -> None:
    """The entry written whole or not at all: a reader never sees half of one."""
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"meta": meta, "value": value}, indent=1, allow_nan=False) + "\n")
    os.replace(tmp, path)


def memo(name: str, produce: Callable[[], Any], build: Build) -> Any:
    """``produce()``'s value, from the build's cache folder where the same code and configuration
    made it before: a ``mkdocs serve`` rebuild after a prose edit draws nothing."""
    key = _key(name, produce, device_type="any")
    path = build.cache_dir / f"{_slug(name)}-{key[:20]}.json"
    if path.exists():
        return json.loads(path.read_text())["value"]
    value, meta = _executed(name, produce)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write(path, value, {**meta, "key": key})
    return value
