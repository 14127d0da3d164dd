"""How each rank wraps and compiles its copy of the model: the code the page shows."""

from __future__ import annotations

import functools

import torch
from torch import nn

from snippets.train import train_step

STRATEGIES = ("single", "ddp", "fsdp2")  # single: one process, no wrapper (the reference)
VARIANTS = ("eager", "compiled", "per-block", "per-block-inplace", "compiled-autograd")


class NoBlocks(ValueError):
    """A model with no block this guide knows how to shard or compile on its own."""


def _residual_blocks() -> tuple[type, ...]:
    from torchvision.models.resnet import BasicBlock, Bottleneck

    return Bottleneck, BasicBlock


def blocks(model: nn.Module) -> list[tuple[nn.Module, str]]:
    """``(parent, name)`` of each block: every entry of a ``ModuleList`` (a transformer's
    layers) and ResNet's residual blocks, compiled or not; nothing inside one."""
    residual, found = _residual_blocks(), []

    def walk(parent: nn.Module) -> None:
        for name, child in parent.named_children():
            if isinstance(parent, nn.ModuleList) or isinstance(
                    getattr(child, "_orig_mod", child), residual):
                found.append((parent, name))
            else:
                walk(child)

    walk(model)
    return found


# --8<-- [start:ddp]
DDP_BUCKET_MB = 25.0  # DDP's own default bucket_cap_mb


def wrap_ddp(model, device, bucket_cap_mb=DDP_BUCKET_MB):
    """Every rank keeps all the weights; gradients are averaged across ranks
    in buckets of ``bucket_cap_mb``, each sent as soon as it is ready."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    ids = [device] if device.type == "cuda" else None
    return DDP(model, device_ids=ids, bucket_cap_mb=bucket_cap_mb)
# --8<-- [end:ddp]


# --8<-- [start:fsdp2]
def wrap_fsdp2(model, mesh):
    """Each block's weights sharded across the ranks, gathered whole just
    before the block runs and freed after it; then the root, which takes
    what no block holds (the stem, the head)."""
    from torch.distributed.fsdp import fully_shard

    from snippets.scale.wrap import blocks  # each block, found by its type

    for parent, name in blocks(model):
        fully_shard(getattr(parent, name), mesh=mesh)
    fully_shard(model, mesh=mesh)
    return model
# --8<-- [end:fsdp2]


# --8<-- [start:prepare]
import torch

from snippets.scale.wrap import DDP_BUCKET_MB, blocks, wrap_ddp, wrap_fsdp2


def prepare(model, strategy, variant, device, mesh=None,
            bucket_cap_mb=DDP_BUCKET_MB):
    """The model wrapped for ``strategy`` and compiled as ``variant``."""
    if variant == "per-block":
        # Compiled before wrapping: FSDP's hooks go on the wrappers
        # torch.compile returns, outside the compiled code.
        for parent, name in blocks(model):
            block = getattr(parent, name)
            parent.register_module(name, torch.compile(block))
    if variant == "compiled-autograd" and strategy == "ddp":
        # DDP then leaves its gradient hooks to compiled autograd to trace;
        # read when DDP is built, so set before it.
        torch._dynamo.config.optimize_ddp = "python_reducer"
    if strategy == "ddp":
        model = wrap_ddp(model, device, bucket_cap_mb)
    elif strategy == "fsdp2":
        model = wrap_fsdp2(model, mesh)
    if variant == "per-block-inplace":
        for parent, name in blocks(model):
            getattr(parent, name).compile()  # its hooks are compiled with it
    if variant in ("compiled", "compiled-autograd"):
        model = torch.compile(model)
    return model
# --8<-- [end:prepare]


def check_blocks(model: nn.Module, variant: str) -> None:
    """Raise NoBlocks where the variant compiles blocks and the model has none."""
    if variant.startswith("per-block") and not blocks(model):
        raise NoBlocks(f"no blocks in {type(model).__name__}")


def compiled_autograd_missing() -> str | None:
    """Why the installed torch cannot run the compiled-autograd variant, or None."""
    name = "maybe_enable_compiled_autograd"
    if not hasattr(torch._dynamo.utils, name):
        return f"torch {torch.__version__} lacks {name}"
    return None


def make_step(variant: str, model: nn.Module, optimizer: torch.optim.Optimizer,
              amp_dtype: torch.dtype | None):
    """``step(x, y)``: the training page's step, its backward compiled for compiled-autograd."""
    step = functools.partial(train_step, model, optimizer, amp_dtype=amp_dtype)
    if variant != "compiled-autograd":
        return step

    def with_compiled_backward(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        # A private Dynamo helper, as torchtitan uses it: the backward run inside the block is
        # traced by compiled autograd and compiled with Inductor, whole (fullgraph=True,
        # dynamic=True, fixed by the helper). The documented switch,
        # torch._dynamo.config.compiled_autograd = True, acts only on a backward inside a
        # torch.compile'd function, and this step (loss.backward() included) stays eager.
        with torch._dynamo.utils.maybe_enable_compiled_autograd(True):
            return step(x, y)

    return with_compiled_backward
