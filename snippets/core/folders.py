"""Where runs live: a folder per device and torch release under the results folder, and the
newest recorded file of a name."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from snippets.core import results


def run_folder(prov: dict[str, Any]) -> str:
    """``nvidia-h200_torch-2.11.0``, ``cpu-amd-epyc_torch-2.14.1``: a CPU by vendor and family,
    torch without its build tag, so reruns land in one place."""
    device = prov.get("device") or "unknown device"
    if prov.get("device_type") == "cpu":
        name = re.sub(r"\((r|tm)\)", " ", device.removeprefix("CPU:"), flags=re.IGNORECASE)
        device = "cpu " + " ".join(re.findall(r"[a-z0-9]+", name.lower())[:2])
    return f"{_slug(device)}_torch-{_slug(str(prov.get('torch')).split('+')[0])}"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")


def recorded_runs(results_dir: Path, name: str) -> list[tuple[Path, dict[str, Any]]]:
    """Every ``<results_dir>/*/<name>.json``, newest run first."""
    found = [(p, results.load(p)) for p in Path(results_dir).glob(f"*/{name}.json")]
    return sorted(found, key=lambda pd: pd[1]["provenance"]["date"] or "", reverse=True)


def newest(results_dir: Path, name: str, device_type: str) -> dict[str, Any] | None:
    """The newest recorded ``<name>.json`` made on a device of this type, or None."""
    for _path, doc in recorded_runs(results_dir, name):
        if results.device_type_of(doc) == device_type:
            return doc
    return None
