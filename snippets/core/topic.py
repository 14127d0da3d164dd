"""A topic's one record (its kinds, producers, findings and tables), written in its ``topic``
module and gathered by ``snippets.site.topics``; the core knows no topic."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from snippets.core.results import Kind


@dataclass(frozen=True)
class Findings:
    """``of`` takes the newest document of each of ``kinds`` (None but for the first)."""

    of: Callable[..., Any]
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class Producer:
    """What ``snippets.site.produce`` runs for a kind: ``on(device)`` on each of ``devices``."""

    devices: tuple[str, ...]
    on: Callable[[str], Callable[..., dict[str, Any]]]


@dataclass(frozen=True)
class Topic:
    name: str
    kinds: tuple[Kind, ...]
    producers: Mapping[str, Producer] = field(default_factory=dict)  # by kind
    findings: Mapping[str, Findings] = field(default_factory=dict)  # by the name pages use
    # How the Results page draws a file of each kind: the tables its own page shows.
    tables: Mapping[str, Callable[[dict[str, Any]], str]] = field(default_factory=dict)


def gather(topics: tuple[Topic, ...], part: str) -> dict[str, Any]:
    """One part (``producers``, ``findings`` or ``tables``) of every topic, by name."""
    out: dict[str, Any] = {}
    for t in topics:
        for name, value in getattr(t, part).items():
            if name in out:
                raise ValueError(f"{part} {name!r} is claimed twice")
            out[name] = value
    return out
