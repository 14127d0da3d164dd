"""The common causes of graph breaks, each as a small broken module beside its fix.

Every example is the same small block (a linear layer up, a GELU, a linear layer down) with one
cause of a break placed between the two layers, where it splits what Inductor could have fused.
``CAUSES`` lists them for ``snippets.explain``, which counts their graphs and breaks and times them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

# The block and the vendor routine: breaks.WIDTH, breaks.Block, as the examples use them.
from snippets.explain.block import WIDTH, Block, vendor_calibrate  # noqa: F401


# --8<-- [start:item_broken]
from snippets.explain.block import Block


class ItemBranch(Block):
    def middle(self, h):
        # .item() copies a value to Python: the trace stops here.
        if h.mean().item() > 0:
            return h * 2
        return -h
# --8<-- [end:item_broken]


# --8<-- [start:item_where]
import torch

from snippets.explain.block import Block


class WhereBranch(Block):
    def middle(self, h):
        # Both sides are computed and selected on the device: no value ever
        # reaches Python.
        return torch.where(h.mean() > 0, h * 2, -h)
# --8<-- [end:item_where]


# --8<-- [start:item_cond]
import torch

from snippets.explain.block import Block


class CondBranch(Block):
    def middle(self, h):
        # torch.cond traces both branches into the graph and runs only the one
        # it picks.
        return torch.cond(h.mean() > 0, lambda h: h * 2, lambda h: -h, (h,))
# --8<-- [end:item_cond]


# --8<-- [start:print_broken]
from snippets.explain.block import Block


class PrintInForward(Block):
    def middle(self, h):
        # A side effect Dynamo cannot put in a graph.
        print("hidden", tuple(h.shape))
        return h
# --8<-- [end:print_broken]


# --8<-- [start:print_guarded]
from snippets.explain.block import Block


class PrintGuarded(Block):
    # A constant to Dynamo: the branch below is dropped at trace time.
    debug = False

    def middle(self, h):
        if self.debug:
            print("hidden", tuple(h.shape))
        return h
# --8<-- [end:print_guarded]


# --8<-- [start:numpy_broken]
import numpy as np

from snippets.explain.block import Block


class NumpyClip(Block):
    def middle(self, h):
        # The 99th percentile computed in NumPy, brought back as a number.
        high = np.percentile(h.detach().cpu().numpy(), 99).item()
        return h.clamp(max=high)
# --8<-- [end:numpy_broken]


# --8<-- [start:numpy_torch]
import torch

from snippets.explain.block import Block


class TorchClip(Block):
    def middle(self, h):
        flat = h.flatten()
        # The 99th percentile as the k-th smallest value (nearest rank; NumPy
        # interpolates between two neighbours). torch.quantile traces as one
        # graph on torch 2.14, but broke the graph on the CPU under 2.11.
        high = torch.kthvalue(flat, max(1, round(0.99 * flat.numel()))).values
        return torch.minimum(h, high)  # the limit stays a tensor on the device
# --8<-- [end:numpy_torch]


# --8<-- [start:numpy_array]
import numpy as np
import torch

from snippets.explain.block import Block


class NumpyArrayClip(Block):
    def middle(self, h):
        # Dynamo translates the NumPy call into torch ops; only a Python number
        # would break.
        high = np.percentile(h.detach().cpu().numpy(), 99)
        return torch.minimum(h, torch.as_tensor(high).to(h.device))
# --8<-- [end:numpy_array]




# --8<-- [start:vendor_broken]
import torch

from snippets.explain.block import Block, vendor_calibrate


class VendorOp(Block):
    def middle(self, h):
        out = vendor_calibrate(h.detach().cpu().numpy())
        return torch.from_numpy(out).to(h.device)
# --8<-- [end:vendor_broken]


# --8<-- [start:vendor_disabled]
import torch

from snippets.explain.block import Block, vendor_calibrate


# One explicit break around the call, not a failed trace inside it.
@torch.compiler.disable
def calibrate_eagerly(h: torch.Tensor) -> torch.Tensor:
    out = vendor_calibrate(h.detach().cpu().numpy())
    return torch.from_numpy(out).to(h.device)


class VendorDisabled(Block):
    def middle(self, h):
        return calibrate_eagerly(h)
# --8<-- [end:vendor_disabled]


# --8<-- [start:vendor_custom_op]
import torch

from snippets.explain.block import Block, vendor_calibrate


@torch.library.custom_op("snippets::calibrate", mutates_args=())
def calibrate(h: torch.Tensor) -> torch.Tensor:
    out = vendor_calibrate(h.detach().cpu().numpy())
    return torch.from_numpy(out).to(h.device)


@calibrate.register_fake
def _(h):
    # Shape and dtype are all the compiler needs to know.
    return torch.empty_like(h)


class VendorCustomOp(Block):
    def middle(self, h):
        return calibrate(h)  # an opaque node inside one graph: no break
# --8<-- [end:vendor_custom_op]


# --8<-- [start:container_broken]
import torch.nn.functional as F

from snippets.explain.block import Block


class SumParts(Block):
    def forward(self, x, parts):
        h = F.gelu(self.up(x))
        for p in parts:  # called with a generator: Dynamo cannot wrap it
            h = h + p
        return self.down(h)
# --8<-- [end:container_broken]


def _chunks(x: torch.Tensor) -> list[torch.Tensor]:
    return list(torch.ones(3, 4 * WIDTH, device=x.device, dtype=x.dtype).unbind(0))


# --8<-- [start:container_calls]
def generator_args(x, chunks):
    # What the model is called with. The generator holds an iterator over
    # chunks (a list_iterator), made here, outside the trace.
    return x, (c for c in chunks)


def list_args(x, chunks):
    # A plain list: Dynamo traces it, and guards on its length.
    return x, list(chunks)
# --8<-- [end:container_calls]


@dataclass(frozen=True)
class Variant:
    """One way of writing the block; ``model(*args(x))`` is what a caller runs per step."""

    name: str
    module: type[Block]
    args: Callable[[torch.Tensor], tuple] = lambda x: (x,)  # fresh each call: a generator is spent
    breaks_expected: bool = False  # True where the fix keeps one explicit, deliberate break
    numpy: bool = False  # True where the block hands the tensor to NumPy (which Dynamo translates)


@dataclass(frozen=True)
class Cause:
    name: str
    title: str
    broken: Variant
    fixes: tuple[Variant, ...]

    def variants(self) -> tuple[tuple[str, Variant], ...]:
        """("broken", the broken variant), then ("fixed", each fix): a row's kind, its variant."""
        return (("broken", self.broken), *(("fixed", f) for f in self.fixes))


def _parts(make: Callable) -> Callable[[torch.Tensor], tuple]:
    return lambda x: make(x, _chunks(x))


CAUSES: tuple[Cause, ...] = (
    Cause("item", "Data-dependent control flow", Variant("if .item()", ItemBranch),
          (Variant("torch.where", WhereBranch), Variant("torch.cond", CondBranch))),
    Cause("print", "Printing in forward", Variant("print", PrintInForward),
          (Variant("guarded by a flag", PrintGuarded),)),
    Cause("numpy", ".numpy() in forward", Variant("NumPy percentile", NumpyClip, numpy=True),
          (Variant("torch.kthvalue", TorchClip),
           Variant("NumPy, no Python number", NumpyArrayClip, numpy=True))),
    Cause("vendor", "Unsupported third-party op", Variant("called inline", VendorOp),
          (Variant("torch.compiler.disable", VendorDisabled, breaks_expected=True),
           Variant("custom_op", VendorCustomOp))),
    Cause("container", "Generators and unusual containers",
          Variant("generator argument", SumParts, _parts(generator_args)),
          (Variant("list argument", SumParts, _parts(list_args)),)),
)


def example_input(batch: int = 8, device: str | torch.device = "cpu",
                  dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(batch, WIDTH, device=device, dtype=dtype)
