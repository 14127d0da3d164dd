"""A topic's one record: the results kinds it declares, what the site's produce step runs for
each kind it measures there, the findings its pages ask for by name, and the tables the Results
page draws each kind's files with.

Each topic package writes its record once, in its ``topic`` module; the site gathers them
(``snippets.site.topics``). The core defines the record and knows no topic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from snippets.core.results import Kind


@dataclass(frozen=True)
class Findings:
    """Where a page's findings come from: ``of`` takes the newest document of each of ``kinds``
    on the device (None for a kind with no run, except the first, without which there are no
    findings)."""

    of: Callable[..., Any]
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class Producer:
    """What ``python -m snippets.site.produce`` runs for a kind: ``on(device)`` returns the
    producer of its document, on each of ``devices`` (device types)."""

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
    """One part (``producers``, ``findings`` or ``tables``) of every topic, by name; a name two topics
    both claim is a programming error."""
    out: dict[str, Any] = {}
    for t in topics:
        for name, value in getattr(t, part).items():
            if name in out:
                raise ValueError(f"{part} {name!r} is claimed twice")
            out[name] = value
    return out
