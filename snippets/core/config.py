"""Per-device defaults, kept once: a config field left None is filled by ``resolve`` from the
tool's table, and the help is written from the same table."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

import torch

DEVICE_TYPES = ("cuda", "cpu")
C = TypeVar("C")


def resolve_device(text: str) -> str:
    """``auto``: ``cuda`` where there is one, else ``cpu``."""
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


def shown(value: Any) -> str:
    if isinstance(value, tuple):
        return ",".join(shown(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return f"{value:.0f}"
    return str(value)


def help_default(defaults: dict[str, dict[str, Any]], name: str, unit: str = "") -> str:
    """``(default: 100 on CUDA, 10 on CPU)`` for a field of a per-device defaults table."""
    values = {kind: shown(defaults[kind][name]) for kind in DEVICE_TYPES}
    if len(set(values.values())) == 1:
        return f"(default: {values['cpu']}{unit})"
    return f"(default: {values['cuda']}{unit} on CUDA, {values['cpu']}{unit} on CPU)"


class ConfigError(ValueError):
    """A value a config cannot take; ``name`` is its field, for the CLI to name its flag."""

    def __init__(self, name: str | None, message: str) -> None:
        super().__init__(message)
        self.name = name


@dataclasses.dataclass(frozen=True)
class Rule:
    """What a field's value (each item, for a tuple) may be, and how its flag reads it."""

    choices: tuple[str, ...] = ()
    what: str = ""  # the noun of an item in messages: "unknown mode 'x'"
    every: bool = False  # the one value "all" stands for every choice
    hint: str = ""  # added after the choices in the message
    positive: bool = False
    zero: bool = False  # with positive: 0 is allowed too
    unit: str = ""  # " MB": in the help's default and in the message
    flag: str = ""  # the flag where it is not the field's name: "--timeout"
    parse: Callable[[str], Any] | None = None  # the flag's text to an item, where not by type
    # Only the flag holds to the choices: the config takes others too (a pkg.module:factory).
    flag_only: bool = False


RULE = "snippets.rule"


def option(default: Any = dataclasses.MISSING, **rule: Any) -> Any:
    """A config field whose values ``check`` holds to ``Rule(**rule)``."""
    return dataclasses.field(default=default, metadata={RULE: Rule(**rule)})


def rule_of(f: dataclasses.Field) -> Rule:
    return f.metadata.get(RULE) or Rule()


def wrong(r: Rule, value: Any, many: bool) -> str | None:
    """What is wrong with ``value`` (an item, where ``many``) by ``r``; None where nothing is."""
    if r.choices and value not in r.choices:
        if not many:  # the wording argparse's choices= had
            return f"invalid choice: {value!r} (choose from {', '.join(map(repr, r.choices))})"
        return (f"unknown {r.what} {value!r}; choose from {', '.join(r.choices)}"
                + (" or all" if r.every else "") + r.hint)
    if r.positive and not value > 0 and not (r.zero and value == 0):
        if r.unit:
            return f"{shown(value)}{r.unit} is not a positive size"
        return f"{shown(value)} is not a positive number" + (" or 0" if r.zero else "")
    return None


def check(cfg: Any) -> None:
    """Hold each field of ``cfg`` to its rule (None passes), ``("all",)`` made every choice;
    called from ``__post_init__``."""
    for f in dataclasses.fields(cfg):
        r, value = rule_of(f), getattr(cfg, f.name)
        if value is None or r == Rule():
            continue
        many = isinstance(value, tuple)
        if r.every and value == ("all",):
            object.__setattr__(cfg, f.name, r.choices)  # frozen: the dataclasses idiom
            continue
        if r.flag_only:
            continue
        for item in value if many else (value,):
            if (message := wrong(r, item, many)) is not None:
                raise ConfigError(f.name, message)
