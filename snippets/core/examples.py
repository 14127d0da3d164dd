"""A model's example input and its output, as real models have them."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import torch
from torch import nn

from snippets.core import measure

Example = Any  # a Tensor, a tuple or list of them, or a dict of keyword arguments


class ExampleError(ValueError):
    """An example the tools cannot use; the message is one line."""


def check(example: Example) -> None:
    """Raise ExampleError unless ``example`` is a tensor, a tuple/list or a dict holding one."""
    if isinstance(example, Mapping):
        bad = [k for k in example if not isinstance(k, str)]
        if bad:
            raise ExampleError(f"example key {bad[0]!r} is not a name")
    elif not isinstance(example, (torch.Tensor, tuple, list)):
        raise ExampleError(f"example is a {type(example).__name__}, not Tensor/tuple/dict")
    if not tensors(example):
        raise ExampleError("example holds no tensor")


def call(model: Callable[..., Any], example: Example) -> Any:
    """``model`` on ``example``: a tensor is one argument, a tuple several, a dict keywords."""
    args, kwargs = split(example)
    return model(*args, **kwargs)


def split(example: Example) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The positional and keyword arguments an example stands for."""
    if isinstance(example, torch.Tensor):
        return (example,), {}
    if isinstance(example, Mapping):
        return (), dict(example)
    return tuple(example), {}


def clone(value: Any) -> Any:
    """``value`` with every tensor copied, containers (a ``ModelOutput`` too) of their class."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: clone(getattr(value, f.name))
                                             for f in dataclasses.fields(value) if f.init})
    if isinstance(value, Mapping):
        return type(value)({k: clone(v) for k, v in value.items()})
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple
        return type(value)(*(clone(v) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(clone(v) for v in value)
    return value


def call_form(example: Example) -> str:
    """How a call passes the example, as code: ``x``, ``*x`` (a tuple) or ``**x`` (a dict)."""
    if isinstance(example, torch.Tensor):
        return "x"
    return "**x" if isinstance(example, Mapping) else "*x"


def device(example: Example) -> torch.device:
    """The device of the example's first tensor (where its model runs)."""
    return tensors(example)[0].device


def bind(model: Callable[..., Any], example: Example) -> Callable[[], Any]:
    """A no-argument callable that runs ``model`` on ``example`` (what the timers take)."""
    return lambda: call(model, example)


def _map(example: Example, fn: Callable[[torch.Tensor], torch.Tensor]) -> Example:
    if isinstance(example, torch.Tensor):
        return fn(example)
    if isinstance(example, Mapping):
        return {k: _map(v, fn) for k, v in example.items()}
    if isinstance(example, (tuple, list)):
        return type(example)(_map(v, fn) for v in example)
    return example


def place(example: Example, device: torch.device | str, dtype: torch.dtype | None = None, *,
          channels_last: bool = False) -> Example:
    """``example`` on ``device``, float tensors in ``dtype`` (channels_last when 4-D); token ids
    and masks keep theirs."""

    def move(t: torch.Tensor) -> torch.Tensor:
        if not t.is_floating_point():
            return t.to(device)
        t = t.to(device, dtype) if dtype is not None else t.to(device)
        if channels_last and t.dim() == 4:
            t = t.contiguous(memory_format=torch.channels_last)
        return t

    return _map(example, move)


def tensors(example: Example) -> list[torch.Tensor]:
    """Every tensor of an example or output, in a fixed order."""
    return list(_leaves(example))


def _leaves(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, Mapping):  # dicts and transformers' ModelOutput (an OrderedDict)
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _leaves(v)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _leaves(getattr(value, f.name))
    # anything else (a KV-cache object, None, a number) holds no leaf to compare


def floating(output: Any) -> list[torch.Tensor]:
    """The floating-point leaves of an output: what the correctness check compares."""
    return [t for t in _leaves(output) if t.is_floating_point()]


def reference(output: Any) -> list[torch.Tensor]:
    """Eager's output kept for the check: each floating-point leaf as an fp32 copy."""
    return [t.detach().float().clone() for t in floating(output)]


def relative_error(output: Any, ref: list[torch.Tensor]) -> float:
    """The largest ``measure.relative_error`` over the floating-point leaves; inf where they
    differ from the reference's in number or shape."""
    leaves = floating(output)
    if len(leaves) != len(ref) or any(a.shape != b.shape for a, b in zip(leaves, ref, strict=True)):
        return math.inf
    return max((measure.relative_error(a, b) for a, b in zip(leaves, ref, strict=True)),
               default=0.0)


def loss_gap(losses: list[float | None], reference: list[float | None]) -> float:
    """The largest gap between two loss curves over the reference's first loss (each step's own
    would blow up near zero); inf where a loss was None."""
    pairs = list(zip(losses, reference, strict=False))
    if not pairs or any(a is None or b is None for a, b in pairs):
        return math.inf
    return max(abs(a - b) for a, b in pairs) / abs(reference[0]) if reference[0] else math.inf


def has_image(example: Example) -> bool:
    """Whether a floating-point input is 4-D (an image batch, which channels_last would lay out)."""
    return any(t.is_floating_point() and t.dim() == 4 for t in tensors(example))


def nbytes(value: Any) -> int:
    """Bytes of every tensor of an example or output."""
    return sum(t.numel() * t.element_size() for t in tensors(value))


def batch_size(example: Example) -> int | None:
    """The leading dimension shared by the example's tensors, or None if they disagree."""
    sizes = {t.shape[0] for t in tensors(example) if t.dim() > 0}
    return sizes.pop() if len(sizes) == 1 else None


def mark_dynamic(example: Example, dim: int = 0) -> None:
    """Mark ``dim`` dynamic on every tensor input that has it (the batch, by default)."""
    for t in tensors(example):
        if t.dim() > dim:
            torch._dynamo.mark_dynamic(t, dim)


def parameter_bytes(model: nn.Module) -> int:
    """Bytes of the model's weights and buffers (what a forward reads at least once)."""
    return sum(t.numel() * t.element_size() for t in (*model.parameters(), *model.buffers()))
