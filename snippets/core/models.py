"""The models the guide measures, and loading a user's own model from ``pkg.module:factory``."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from snippets.core import config, examples

Factory = Callable[[int], tuple[nn.Module, examples.Example]]


class SpecError(ValueError):
    """A model spec that cannot be used; the message is one line."""


# --8<-- [start:models]
def resnet50(batch_size: int):
    import torch
    import torchvision

    # Random weights: speed does not depend on their values.
    model = torchvision.models.resnet50(weights=None)
    return model, torch.randn(batch_size, 3, 224, 224)


def transformer(batch_size: int):
    import torch
    from torch import nn

    layer = nn.TransformerEncoderLayer(
        d_model=512, nhead=8, dim_feedforward=2048, batch_first=True
    )
    # enable_nested_tensor=False: the inputs are unpadded, and it silences a
    # warning about it.
    model = nn.TransformerEncoder(
        layer, num_layers=6, enable_nested_tensor=False
    )
    return model, torch.randn(batch_size, 128, 512)  # sequence length 128
# --8<-- [end:models]


def count_flops(model: nn.Module, x: examples.Example) -> int:
    """FLOPs of one forward, the MHA fast path (which hides its matmuls) off while counting."""
    from torch.utils.flop_counter import FlopCounterMode

    fastpath = getattr(torch.backends, "mha", None)
    was = fastpath.get_fastpath_enabled() if fastpath else None
    try:
        if fastpath:
            fastpath.set_fastpath_enabled(False)
        with FlopCounterMode(display=False) as counter:
            examples.call(model, x)
        return int(counter.get_total_flops())
    finally:
        if fastpath:
            fastpath.set_fastpath_enabled(was)


def tiny_mlp(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    """A model whose whole forward is a few microseconds of work: where compile cannot pay."""
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    return model, torch.randn(batch_size, 64)


BUILTIN: dict[str, Factory] = {"resnet50": resnet50, "transformer": transformer}


def names(default: tuple[str, ...] | None, builtin: dict[str, Factory] = BUILTIN, *,
          flag_only: bool = False) -> Any:
    """A config's ``models`` field: names of ``builtin`` models (checked by the flag alone with
    ``flag_only``)."""
    return config.option(default, choices=tuple(builtin), what="model", flag_only=flag_only,
                         hint=", or --model pkg.module:factory")


def spec(text: str) -> str:
    """A built-in name, or a ``pkg.module:factory`` checked now, so that a typo fails at once."""
    if text in BUILTIN:
        return text
    try:
        load_factory(text)
    except SpecError as exc:
        raise ValueError(f"{exc}; built-in: {', '.join(BUILTIN)}") from None
    return text


def load_factory(spec: str) -> Factory:
    """Resolve ``pkg.module:factory`` to a callable, or raise SpecError."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise SpecError(f"{spec!r} is not of the form pkg.module:factory")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any import-time failure is the user's module, not ours
        raise SpecError(f"cannot import {module_name!r}: {exc}") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise SpecError(f"{module_name!r} has no callable {attr!r}")
    return factory


def build(factory: Factory, name: str, batch_size: int) -> tuple[nn.Module, examples.Example]:
    """Call a factory and check it returned ``(nn.Module, example)``."""
    try:
        made = factory(batch_size)
    except Exception as exc:
        raise SpecError(f"{name!r} failed: {type(exc).__name__}: {exc}") from None
    if not isinstance(made, tuple) or len(made) != 2 or not isinstance(made[0], nn.Module):
        raise SpecError(f"{name!r} must return (nn.Module, example), got {type(made).__name__}")
    try:
        examples.check(made[1])
    except examples.ExampleError as exc:
        raise SpecError(f"model {name!r}: {exc}") from None
    return made
