"""Results files, the JSON every number on the site comes from: the one way to make, check and
read them."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import torch

from snippets.core import machine, parts, rows

ROOT = Path(__file__).resolve().parents[2]
NUM = (float, int, type(None))
STATUSES = tuple(s.value for s in rows.Status)
# Every measured kind records these; "settings" holds the run's config and backend switches.
PROVENANCE_FIELDS = ("device", "device_type", "driver", "cuda", "torch", "torchvision", "triton",
                     "python", "date", "commit", "host_cpu", "cpu_count", "settings")

# How a run was made where its settings cannot say (two runs at once on one host, say).
NOTE_ENV = "SNIPPETS_RUN_NOTE"


class ResultsError(ValueError):
    """A results file that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Kind:
    """A kind of results document, declared once by its topic: schema, row fields, and the
    fields that hold a row's variant and timing (``typed_rows``)."""

    name: str
    schema: str
    row_fields: Mapping[str, tuple[type, ...]] = field(default_factory=dict)
    variant: str | None = None  # None: its rows are not of variants (a log, a count)
    timing: str | None = None  # None: no one timing per row (or none at all)
    measured: bool = True  # False: counts or logs (a live section records them), not timed


# Each topic declares its kinds when imported; the core knows none (``snippets.site.topics``).
KINDS: dict[str, Kind] = {}


def declare(kind: Kind) -> Kind:
    """Register ``kind`` and return it; a taken name or schema is a programming error."""
    taken = KINDS.get(kind.name) or next(
        (k for k in KINDS.values() if k.schema == kind.schema), None)
    if taken is not None and taken != kind:
        raise ValueError(f"{kind.name!r} declared twice")
    KINDS[kind.name] = kind
    return kind


def kind_of(doc: dict[str, Any]) -> Kind | None:
    """The kind a document declares, where its schema is that kind's; else None."""
    kind = KINDS.get(str(doc.get("kind")))
    return kind if kind is not None and doc.get("schema") == kind.schema else None


# ---- provenance -----------------------------------------------------------------------------

def package_version(dist: str) -> str | None:
    """The installed version of a distribution, or None."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


COMMIT_FILE = "COMMIT"  # what the site's download of the code names its commit in


def git_commit(root: Path = ROOT) -> str | None:
    """The checkout's commit, ``-dirty`` if code differs; without git, the ``COMMIT`` file's."""
    named = root / COMMIT_FILE
    if not (root / ".git").exists() and named.is_file():
        # Not git's word: an unzipped copy may have been edited since, which no file can tell.
        return named.read_text().strip() or None
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            # Results files, and the live sections' records, are what runs write, not what
            # measures: a run that has already written one file still runs the committed code.
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--", ".",
             ":(exclude)docs/results", ":(exclude)live-sections"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        return out + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def provenance(device: torch.device, settings: dict[str, Any], *,
               commit: str | None = None) -> dict[str, Any]:
    """Where, when and with what a run was made; ``commit`` None asks git."""
    prov: dict[str, Any] = {
        "device": machine.device_name(device), "device_type": device.type, "driver": None,
        # The CUDA version only where CUDA ran: a CUDA build of torch on a CPU run names one too.
        "cuda": torch.version.cuda if device.type == "cuda" else None,
        "torch": torch.__version__, "torchvision": package_version("torchvision"),
        "triton": package_version("triton") or package_version("pytorch-triton"),
        "python": platform.python_version(),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "commit": commit or git_commit(), "host_cpu": machine.cpu_name(),
        "cpu_count": machine.usable_cores(), "settings": settings,
    }
    if device.type == "cpu":  # which CPU rows apply to a reader's own (bf16, AMX)
        prov["cpu_capability"] = machine.cpu_capability()
    if device.type == "cuda":
        index = machine.cuda_index(device)
        smi = machine.nvidia_smi(machine.gpu_uuid(device), index)
        prov["device_index"] = index
        prov["driver"] = smi.get("driver_version")
        prov["gpu_power_limit"] = smi.get("power.limit")
        prov["gpu_clocks"] = {k: smi[k] for k in ("clocks.sm", "clocks.max.sm", "clocks.mem")
                              if k in smi}
    if os.environ.get(NOTE_ENV):
        prov["note"] = os.environ[NOTE_ENV]
    return prov


def new_document(kind: str, prov: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """An empty document of ``kind``."""
    return {"schema": KINDS[kind].schema, "kind": kind, "provenance": prov, "complete": False,
            "rows": [], **extra}


# ---- files ----------------------------------------------------------------------------------

def write_atomic(path: Path, doc: dict[str, Any]) -> None:
    """Replace ``path`` with ``doc`` in one rename: a reader sees the old file or the new one."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1, allow_nan=False)
            f.write("\n")
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a results file is for every reader
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_writable(path: Path) -> None:
    """Fail before a run starts, not after its first row, if ``path`` cannot be written."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise ResultsError(f"--output {path} is a directory")
    if not parent.is_dir():
        raise ResultsError(f"--output {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ResultsError(f"--output {path} is not writable")


def _row_problem(kind: Kind, row: Any) -> str | None:
    if not isinstance(row, dict):
        return "is not an object"
    for key, types in kind.row_fields.items():
        if key not in row:
            return f"lacks {key!r}"
        value = row[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return f"field {key!r} has the wrong type"
    if "status" in kind.row_fields and row["status"] not in STATUSES:
        return f"status {row['status']!r} is not one of {', '.join(STATUSES)}"
    for key in ("latency_ms", "eager_ms", "compiled_ms", "step_ms"):
        lat = row.get(key)
        if isinstance(lat, dict) and not all(k in lat for k in ("median", "iqr", "samples")):
            return f"{key} needs median, iqr and samples"
    return None


def validate(doc: Any, source: str = "results", kind: str | None = None) -> dict[str, Any]:
    """Check a document against ``kind``'s schema (else its own); ResultsError names the problem."""
    if not isinstance(doc, dict):
        raise ResultsError(f"{source}: not a results document")
    found = kind_of(doc)
    if kind is not None and (found is None or found.name != kind):
        raise ResultsError(f"{source}: expected {KINDS[kind].schema!r}")
    if found is None:
        raise ResultsError(f"{source}: unknown schema {doc.get('schema')!r}")
    prov = doc.get("provenance")
    if not isinstance(prov, dict) or any(k not in prov for k in PROVENANCE_FIELDS):
        raise ResultsError(f"{source}: provenance must hold {PROVENANCE_FIELDS}")
    rows = doc.get("rows")
    if not isinstance(rows, list):
        raise ResultsError(f"{source}: rows not a list")
    for i, row in enumerate(rows):
        if (problem := _row_problem(found, row)) is not None:
            raise ResultsError(f"{source}: row {i} {problem}")
    return doc


def load(path: str | Path, kind: str | None = None) -> dict[str, Any]:
    """Read and validate a results file; any failure is a one-line ResultsError."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file") from None
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{path}: not valid JSON (line {exc.lineno})") from None
    return validate(doc, str(path), kind)


def device_type_of(doc: dict[str, Any]) -> str:
    """``cuda`` or ``cpu``: where the document's run was made."""
    return doc["provenance"]["device_type"]


def typed_rows(doc: dict[str, Any]) -> list[rows.Row]:
    """Every row of a validated document as a ``rows.Row``, as its kind declares."""
    kind, device = kind_of(doc), device_type_of(doc)
    return [rows.row(r, device, variant=kind.variant, timing=kind.timing) for r in doc["rows"]]


def check_joinable(old: dict[str, Any], prov: dict[str, Any], settings: tuple[str, ...]) -> None:
    """ResultsError where a run of ``prov`` cannot ``--append`` to ``old``: another device,
    torch, or value of one of ``settings``."""
    theirs = old["provenance"]
    pairs = [(key, prov.get(key), theirs.get(key)) for key in ("device", "torch")] + [
        (f"setting {key}", prov["settings"].get(key), theirs["settings"].get(key))
        for key in settings]
    for name, a, b in pairs:
        if a != b:
            raise ResultsError(f"--append: {name} is {a!r} here, {b!r} in the file")


def join(old: dict[str, Any], new: dict[str, Any], key: Callable[[dict[str, Any]], tuple], *,
         ran: tuple[str, ...], measured: tuple[str, ...] = (),
         group: Callable[[dict[str, Any]], tuple] = lambda r: (r.get("model"), r.get("batch_size")),
         ) -> dict[str, Any]:
    """``old`` with ``new``'s rows added as a part of their own: how ``--append`` joins files.

    A group's rows (one model and batch) from one command are a block, its ratios against that
    block's baseline. A new block replaces an old one of its group only where it measured every
    ``key`` the old holds, so rows never move between blocks (``rows.in_runs``)."""
    prov, part = parts.add_part(old["provenance"], new["provenance"], ran=ran, measured=measured)
    added = [{**r, "part": part} for r in new["rows"]]
    measured_again: dict[tuple, set[tuple]] = {}
    for r in added:
        measured_again.setdefault(group(r), set()).add(key(r))
    kept = [{"part": 0, **r} for r in old["rows"]]
    blocks: dict[tuple, set[tuple]] = {}
    for r in kept:
        blocks.setdefault((group(r), r["part"]), set()).add(key(r))
    replaced = {b for b, keys in blocks.items() if keys <= measured_again.get(b[0], set())}
    rows = [r for r in kept if (group(r), r["part"]) not in replaced] + added
    prov["parts"], complete = parts.complete_parts(old, new, prov["parts"], part, rows)
    return {**old, "provenance": prov, "rows": rows, "complete": complete}
