"""Results files: the JSON every number on the site is rendered from.

A file holds the provenance of its run (where, when, with what) and one row per configuration with
the raw samples. It is written whole after every finished row, through a temporary file and an
atomic rename, so a run stopped at any moment leaves a valid file with every row it finished.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

import torch

SCHEMA = "snippets.bench/1"
STATUSES = ("ok", "noisy", "mismatch", "oom", "error")
ROOT = Path(__file__).resolve().parent.parent

ROW_FIELDS: dict[str, tuple[type, ...]] = {
    "model": (str,),
    "batch_size": (int,),
    "mode": (str,),
    "status": (str,),
    "message": (str,),
    "compile_s": (float, int, type(None)),
    "latency_ms": (dict, type(None)),
    "speedup": (float, int, type(None)),
    "rel_err": (float, int, type(None)),
    "peak_mem_mb": (float, int, type(None)),
    "flops": (int, float, type(None)),
    "tflops": (float, int, type(None)),
    "graph_count": (int, type(None)),
    "graph_breaks": (int, type(None)),
}
PROVENANCE_FIELDS = (
    "device", "driver", "cuda", "torch", "torchvision", "triton", "python", "date", "commit",
    "settings",
)


class ResultsError(ValueError):
    """A results file that cannot be used; the message names the file and the problem."""


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _git_commit() -> str | None:
    # A copy of the tree without .git (a GPU builder) passes the commit in explicitly.
    if os.environ.get("SNIPPETS_COMMIT"):
        return os.environ["SNIPPETS_COMMIT"]
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            # Results files are what runs write, not what measures: a fresh build that has
            # already written one section's file is still measuring with the committed code.
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--", ".",
             ":(exclude)docs/results"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        return out + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def _nvidia_smi() -> dict[str, str]:
    """Driver, power limit and clocks as nvidia-smi reports them; empty where it is absent."""
    fields = "driver_version,power.limit,clocks.sm,clocks.max.sm,clocks.mem"
    try:
        line = subprocess.run(
            ["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader", "--id=0"],
            capture_output=True, text=True, timeout=20, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {}
    return dict(zip(fields.split(","), (v.strip() for v in line.split(",")), strict=False))


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def provenance(device: torch.device, settings: dict[str, Any]) -> dict[str, Any]:
    """Where, when and with what a run was made."""
    prov: dict[str, Any] = {
        "device": None, "device_type": device.type, "driver": None,
        # The CUDA version only where CUDA ran: a CUDA build of torch on a CPU run names one too.
        "cuda": torch.version.cuda if device.type == "cuda" else None,
        "torch": torch.__version__, "torchvision": _version("torchvision"),
        "triton": _version("triton") or _version("pytorch-triton"),
        "python": platform.python_version(),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "commit": _git_commit(), "host_cpu": _cpu_name(), "cpu_count": os.cpu_count(),
        "settings": settings,
    }
    if device.type == "cuda":
        prov["device"] = torch.cuda.get_device_name(device)
        smi = _nvidia_smi()
        prov["driver"] = smi.get("driver_version")
        prov["gpu_power_limit"] = smi.get("power.limit")
        prov["gpu_clocks"] = {k: smi[k] for k in ("clocks.sm", "clocks.max.sm", "clocks.mem")
                              if k in smi}
    else:
        prov["device"] = f"CPU: {prov['host_cpu']}"
    return prov


def new_document(prov: dict[str, Any]) -> dict[str, Any]:
    return {"schema": SCHEMA, "provenance": prov, "complete": False, "rows": []}


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


def validate(doc: Any, source: str = "results") -> dict[str, Any]:
    """Check a parsed document against the schema; raise ResultsError naming the first problem."""
    if not isinstance(doc, dict):
        raise ResultsError(f"{source}: not a results document (top level is not an object)")
    if doc.get("schema") != SCHEMA:
        raise ResultsError(f"{source}: schema {doc.get('schema')!r}, expected {SCHEMA!r}")
    prov = doc.get("provenance")
    if not isinstance(prov, dict) or any(k not in prov for k in PROVENANCE_FIELDS):
        raise ResultsError(f"{source}: provenance must hold {', '.join(PROVENANCE_FIELDS)}")
    rows = doc.get("rows")
    if not isinstance(rows, list):
        raise ResultsError(f"{source}: rows must be a list")
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ResultsError(f"{source}: row {i} is not an object")
        for key, types in ROW_FIELDS.items():
            if key not in row:
                raise ResultsError(f"{source}: row {i} lacks {key!r}")
            if not isinstance(row[key], types) or isinstance(row[key], bool):
                raise ResultsError(f"{source}: row {i} field {key!r} has the wrong type")
        if row["status"] not in STATUSES:
            raise ResultsError(f"{source}: row {i} status {row['status']!r} is not one of "
                               f"{', '.join(STATUSES)}")
        lat = row["latency_ms"]
        if lat is not None and not all(k in lat for k in ("median", "iqr", "samples")):
            raise ResultsError(f"{source}: row {i} latency_ms needs median, iqr and samples")
    return doc


def load(path: str | Path) -> dict[str, Any]:
    """Read and validate a results file; every failure is a ResultsError with a one-line message."""
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
        raise ResultsError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    return validate(doc, str(path))
