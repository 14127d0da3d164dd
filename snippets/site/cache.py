"""The results cache: what a build executed, kept so an unchanged snippet is not executed again.

An entry is keyed by a hash of: the result's name, the producer's configuration (a partial's
arguments), the source of the module defining the producer and of every ``snippets`` module it
imports (a user's model file too), the torch version, the device and the build mode. Entries live
in the build's cache folder; a build with ``refresh`` ignores them (``snippets.site.build``).
The value cached is what the producer returned, not its rendering: a change to how a table is
drawn is seen at the next build without measuring again.
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
import functools
import hashlib
import inspect
import json
import marshal
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


def device_type() -> str:
    """The device type this build measures on: the one ``auto`` resolves to."""
    return config.resolve_device("auto")


def device_name() -> str:
    return machine.device_name(torch.device(device_type()))


def _snippets_imports(path: Path) -> set[str]:
    """Names of the ``snippets`` modules a file imports, at top level or inside functions."""
    stat = path.stat()
    return _parse_imports(path, stat.st_mtime_ns, stat.st_size)


# A serve rebuild asks again for every block: parse each file once per version of it.
@functools.lru_cache(maxsize=256)
def _parse_imports(path: Path, _mtime_ns: int, _size: int) -> frozenset[str]:
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
        todo += _snippets_imports(path)
    return files


def _callables(obj: Any) -> list[Callable[..., Any]]:
    """The functions a producer is made of: itself, or a partial's function and its arguments."""
    if isinstance(obj, functools.partial):
        return [*_callables(obj.func), *(c for a in (*obj.args, *obj.keywords.values())
                                        for c in _callables(a))]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [c for f in dataclasses.fields(obj) for c in _callables(getattr(obj, f.name))]
    if isinstance(obj, (tuple, list)):
        return [c for x in obj for c in _callables(x)]
    if not callable(obj):
        return []
    return [obj, *(c for cell in _cells(obj) if cell is not obj for c in _callables(cell))]


def _cells(fn: Any) -> list[Any]:
    """The configuration a closure captured (``produce_on("cuda")`` returning an inner function,
    say): values that cannot change (numbers, strings, tuples, frozen dataclasses) and functions.
    A mutable capture (a list the producer appends to) is state, not configuration."""
    out = []
    for cell in getattr(fn, "__closure__", None) or ():
        value = cell.cell_contents
        frozen = dataclasses.is_dataclass(value) and getattr(
            getattr(value, "__dataclass_params__", None), "frozen", False)
        if isinstance(value, (int, float, str, bytes, tuple, frozenset, Path)) or frozen or (
                callable(value) and not isinstance(value, type)):
            out.append(value)
    return out


def _describe(obj: Any) -> Any:
    """A stable description of a producer's configuration (no memory addresses in it)."""
    if isinstance(obj, functools.partial):
        return {"call": _describe(obj.func), "args": [_describe(a) for a in obj.args],
                "kwargs": {k: _describe(v) for k, v in sorted(obj.keywords.items())}}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {type(obj).__qualname__: {f.name: _describe(getattr(obj, f.name))
                                         for f in dataclasses.fields(obj)}}
    if isinstance(obj, (tuple, list)):
        return [_describe(x) for x in obj]
    if callable(obj):
        name = f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', repr(obj))}"
        captured = [c for c in _cells(obj) if c is not obj]  # a recursive inner function
        return {name: [_describe(c) for c in captured]} if captured else name
    return repr(obj)


def _code_digest(produce: Callable[[], Any]) -> str:
    """Hash of the code behind ``produce``: the source of the modules defining it and of every
    snippets module those import; for a function with no file (an exec block's), its bytecode."""
    h = hashlib.sha256()
    modules: set[str] = set()
    for fn in _callables(produce):
        mod = sys.modules.get(getattr(fn, "__module__", None) or "")
        file = getattr(mod, "__file__", None)
        if file:
            modules.add(mod.__name__)
            if not mod.__name__.startswith("snippets."):  # a user's model file counts too
                h.update(Path(file).read_bytes())
            continue
        code = getattr(fn, "__code__", None)  # defined where no file is: in an exec block
        h.update(marshal.dumps(code) if code is not None else repr(fn).encode())
        modules |= {v.__name__ for v in getattr(fn, "__globals__", {}).values()
                    if inspect.ismodule(v) and v.__name__.startswith("snippets.")}
    for name, path in sorted(_module_files(modules).items()):
        h.update(name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _key(name: str, produce: Callable[..., Any], **where: str) -> str:
    parts = {"name": name, "config": _describe(produce), "code": _code_digest(produce),
             "torch": metadata.version("torch"), **where}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def cache_key(name: str, produce: Callable[..., Any], mode: str) -> str:
    return _key(name, produce, device=device_name(), build=mode)


def record_key(name: str, produce: Callable[..., Any]) -> str:
    """The key of a recorded entry (``recorded``): the code, its configuration and the torch
    release, on the device type, not the device's name, so that a record made on one CPU model
    serves a build on another, stamped with the one it ran on."""
    return _key(name, produce, device_type=device_type())


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower())


def _entry(name: str, produce: Callable[..., Any], build: Build) -> tuple[str, Path]:
    key = cache_key(name, produce, build.mode)
    return key, build.cache_dir / f"{_slug(name)}-{key[:20]}.json"


def entry_path(name: str, produce: Callable[..., Any], build: Build) -> Path:
    """Where ``produce``'s entry under ``name`` is kept for this build."""
    return _entry(name, produce, build)[1]


def record_path(name: str, build: Build) -> Path:
    return build.records_dir / f"{_slug(name)}.json"


def recorded(name: str, produce: Callable[..., Any],
             build: Build) -> tuple[Any, dict[str, Any]] | None:
    """``produce``'s value as recorded in the repository (``snippets.site.live`` writes it), where
    the record was made by the same code, configuration and torch release on this device type;
    None otherwise, and in a fresh or refreshing build, which executes everything it shows.

    Quarto's ``freeze`` does the same for a book's computations: a build from a fresh clone
    then renders what an author executed and committed, and executes only what changed."""
    if build.mode != "recorded" or build.refresh:
        return None
    try:
        entry = json.loads(record_path(name, build).read_text())
    except FileNotFoundError:
        return None
    if entry["meta"].get("record_key") != record_key(name, produce):
        return None
    return entry["value"], {**entry["meta"], "hit": True}


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


def _executed(name: str, produce: Callable[..., Any],
              **call: Any) -> tuple[Any, dict[str, Any]]:
    """``produce(**call)`` and the metadata every entry carries: where, when and how long."""
    t0 = time.perf_counter()
    value = produce(**call)
    return value, {"name": name, "device": device_name(), "torch": torch.__version__,
                   "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                   "seconds": round(time.perf_counter() - t0, 2)}  # what an entry saves a build


def _write(path: Path, value: Any, meta: dict[str, Any]) -> None:
    """The entry written whole or not at all: a reader never sees half of one."""
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"meta": meta, "value": value}, indent=1, allow_nan=False) + "\n")
    os.replace(tmp, path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


# How long a process waits for an entry another live process holds before executing it itself:
# longer than any live section takes on a busy 2-core machine, so only a holder that hangs (or a
# process that reused a dead holder's pid) is overtaken.
WAIT_S = 900.0


def _claim(path: Path, build: Build) -> Path | None:
    """Take the entry's lock, or wait while another process (the build's prefetcher) holds it and
    return None once that process is gone: its entry is then there, or the caller computes it."""
    lock = path.with_suffix(".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    waited_since = time.monotonic()
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            try:
                holder = int(lock.read_text() or "0")
            except (OSError, ValueError):
                holder = 0  # written between our open and its write: look again
            overdue = time.monotonic() - waited_since > WAIT_S
            if (holder and not _alive(holder)) or overdue:  # a killed or hung holder: take over
                lock.unlink(missing_ok=True)
                continue
            if path.exists() and not build.refresh:
                return None
            time.sleep(0.1)
            continue
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        return lock


def cached(name: str, produce: Callable[..., Any], build: Build,
           **call: Any) -> tuple[Any, dict[str, Any]]:
    """``produce(**call)``'s value from the cache, executing it only when its key is new (or in
    a build with ``refresh``). ``call`` (the build's commit, say) is not part of the key: it
    says where a result was made, not what was made. Returns the value and the entry's metadata
    (when, where, hit). While one process executes an entry, another asking for it waits for
    it rather than executing it twice (the prefetcher and the pages of one build)."""
    key, path = _entry(name, produce, build)
    lock = None
    while not (path.exists() and not build.refresh):
        lock = _claim(path, build)
        if lock is not None:
            break
    if lock is None:
        entry = json.loads(path.read_text())
        return entry["value"], {**entry["meta"], "hit": True}
    try:
        if path.exists() and not build.refresh:  # written while we waited for the lock
            entry = json.loads(path.read_text())
            return entry["value"], {**entry["meta"], "hit": True}
        value, meta = _executed(name, produce, **call)
        meta["key"] = key
        _write(path, value, meta)
        return value, {**meta, "hit": False}
    finally:
        lock.unlink(missing_ok=True)
