"""The training step the page shows, and what each measured variant compiles of it."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

# The variants, in the order a run measures them; "eager" is the reference for the others.
VARIANTS = ("eager", "model", "model+optimizer", "step", "reduce-overhead",
            "max-autotune-no-cudagraphs", "max-autotune")
MODES = VARIANTS[4:]  # the variants that compile the model in a mode other than the default
CUDA_GRAPHS = ("reduce-overhead", "max-autotune")  # the variants that replay CUDA graphs
# What each compiles, as the page's tables and help text say it.
COMPILES = {
    "eager": "nothing",
    "model": "the model",
    "model+optimizer": "the model, and the optimizer's step apart",
    "step": "the whole step",
    "reduce-overhead": "the model, mode reduce-overhead (CUDA graphs)",
    "max-autotune-no-cudagraphs": "the model, mode max-autotune-no-cudagraphs",
    "max-autotune": "the model, mode max-autotune (autotuning and CUDA graphs)",
}
Step = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


# --8<-- [start:step]
def train_step(model, optimizer, x, y, amp_dtype=None):
    """One step on a batch ``x`` with labels ``y``; returns the loss."""
    import torch
    import torch.nn.functional as F

    optimizer.zero_grad(set_to_none=True)
    # Autocast runs matmuls and convolutions in amp_dtype (bf16 on a GPU);
    # the weights, their gradients and the optimizer's state stay fp32.
    amp = amp_dtype is not None
    with torch.autocast(x.device.type, dtype=amp_dtype, enabled=amp):
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach()
# --8<-- [end:step]


# --8<-- [start:variants]
def make_step(variant, model, optimizer, amp_dtype=None):
    """``step(x, y)`` for one variant, on this model and optimizer."""
    import functools

    import torch

    from snippets.train.step import MODES, train_step

    step = train_step
    if variant == "model":
        model = torch.compile(model)
    elif variant == "model+optimizer":
        model = torch.compile(model)
        # PyTorch's recipe for a compiled optimizer: its step, compiled.
        optimizer.step = torch.compile(optimizer.step)
    elif variant == "step":
        step = torch.compile(train_step)  # forward, backward and optimizer
    elif variant in MODES:
        model = torch.compile(model, mode=variant)
    return functools.partial(step, model, optimizer, amp_dtype=amp_dtype)
# --8<-- [end:variants]


def optimizer_for(model: nn.Module, lr: float) -> torch.optim.Optimizer:
    """AdamW, as most training recipes use; its default implementation for the device (the
    multi-tensor ``foreach`` one on CUDA, a loop over the parameters on the CPU)."""
    return torch.optim.AdamW(model.parameters(), lr=lr)
