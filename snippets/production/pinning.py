"""Pinning: compiled artifacts are stored with the stamp of what made them, and refused
elsewhere."""

from __future__ import annotations

from importlib import metadata

import torch

from snippets.core import machine

# --8<-- [start:pin]
import json
from pathlib import Path

FIELDS = ("torch", "triton", "device")


class StampMismatch(ValueError):
    """A pinned file made under another torch, Triton or device; the message
    is one line."""


def stamp_path(path: Path) -> Path:
    return Path(path).with_name(Path(path).name + ".stamp.json")


def write(path: Path, data: bytes | None, stamp: dict) -> None:
    """Store ``data`` (or a file already at ``path``) with its stamp."""
    if data is not None:
        Path(path).write_bytes(data)
    stamp_path(path).write_text(json.dumps(stamp, indent=1) + "\n")


def check(path: Path, stamp: dict) -> None:
    """Refuse a pinned file whose stamp is not ``stamp``, in one line."""
    try:
        made = json.loads(stamp_path(path).read_text())
    except (OSError, ValueError):
        raise StampMismatch(f"{path}: no readable stamp beside it") from None
    differ = [f"{k} {made.get(k)} (here {stamp[k]})" for k in FIELDS
              if made.get(k) != stamp[k]]
    if differ:
        raise StampMismatch(f"{path} was made under " + ", ".join(differ)
                            + ": compile it again here")
# --8<-- [end:pin]


def _triton() -> str | None:
    for dist in ("triton", "pytorch-triton"):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None


def current(device: torch.device) -> dict[str, str | None]:
    """This process's stamp for ``device``."""
    return {"torch": torch.__version__, "triton": _triton(),
            "device": machine.device_name(device)}


def read(path: Path, stamp: dict) -> bytes:
    """The bytes of a pinned file, once its stamp is checked."""
    check(path, stamp)
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise StampMismatch(f"{path}: cannot read: {exc.strerror}") from None
