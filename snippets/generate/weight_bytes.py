"""The bytes a decode step reads, counted from the tensors a model holds as they are held:
int8 or packed int4 weights at their own size, a tensor subclass by the plain tensors inside it.
``bounds.decode_bytes`` counts the same from a shape alone, for dense weights."""

from __future__ import annotations

import torch

from snippets.generate.model import Decoder


def tensor_bytes(t: torch.Tensor) -> int:
    """The bytes a tensor holds; a tensor subclass (torchao's int8 weight) counted by the plain
    tensors inside it (its int8 data and its scales)."""
    if type(t) in (torch.Tensor, torch.nn.Parameter) or not hasattr(t, "__tensor_flatten__"):
        return t.numel() * t.element_size()
    names, _ = t.__tensor_flatten__()
    return sum(tensor_bytes(getattr(t, n)) for n in names)


def held_bytes(model: Decoder) -> int:
    """The weights a step multiplies by, as held: the state dict (the cache, rotary table and
    mask are not persistent), the embedding table apart (only indexed)."""
    return sum(tensor_bytes(t) for n, t in model.state_dict(keep_vars=True).items()
               if not n.startswith("tok_embeddings"))


def step_bytes(model: Decoder, batch: int, position: int) -> int:
    """``bounds.decode_bytes`` with the weights counted as they are held (``held_bytes``)."""
    itemsize = model.tok_embeddings.weight.element_size()
    return held_bytes(model) + model.shape.cache_bytes(batch, position + 1, itemsize)


def parameter_bytes(model: torch.nn.Module) -> int:
    """Bytes of the model's parameters alone (its caches, held as buffers, apart)."""
    return sum(p.numel() * p.element_size() for p in model.parameters())
