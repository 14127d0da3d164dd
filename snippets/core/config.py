"""Per-device defaults, kept once: a tool's config leaves a field None to mean "the default for the
device it runs on", and ``resolve`` fills it from the tool's one table. Command-line help is written
from the same table, so the help cannot say one default while the code uses another.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

import torch

DEVICE_TYPES = ("cuda", "cpu")
C = TypeVar("C")


def resolve_device(text: str) -> str:
    """``auto`` becomes ``cuda`` where a CUDA device is present, else ``cpu``; others stay."""
    if text == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return text


def device_type(device: str) -> str:
    return "cuda" if device.startswith("cuda") else "cpu"


def resolve(cfg: C, defaults: dict[str, dict[str, Any]]) -> C:
    """``cfg`` with its device resolved and every None field taken from ``defaults[type]``."""
    device = resolve_device(cfg.device)  # type: ignore[attr-defined]
    table = defaults[device_type(device)]
    filled = {name: value for name, value in table.items() if getattr(cfg, name) is None}
    return dataclasses.replace(cfg, device=device, **filled)  # type: ignore[type-var]


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return ",".join(_show(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return f"{value:.0f}"
    return str(value)


def help_default(defaults: dict[str, dict[str, Any]], name: str, unit: str = "") -> str:
    """``(default: 100 on CUDA, 10 on CPU)`` for a field of a per-device defaults table."""
    values = {kind: _show(defaults[kind][name]) for kind in DEVICE_TYPES}
    if len(set(values.values())) == 1:
        return f"(default: {values['cpu']}{unit})"
    return f"(default: {values['cuda']}{unit} on CUDA, {values['cpu']}{unit} on CPU)"
