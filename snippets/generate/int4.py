"""int4 weights in the manner of gpt-fast's ``WeightOnlyInt4Linear`` (``quantize.py`` there): 4-bit
weights in groups along the input, a scale and a zero per group, packed for the tinygemm kernel
that ships with torch (``aten._weight_int4pack_mm``; its CPU twin ``_weight_int4pack_mm_for_cpu``).
A quarter of bf16's bytes; one library kernel per product, which Inductor calls as it is."""

from __future__ import annotations

# --8<-- [start:int4]
import torch
from torch import nn


def fits(linear: nn.Linear, group: int) -> bool:
    """Whether tinygemm takes this layer: whole groups along the input,
    an input a multiple of 32 and an output a multiple of 8."""
    n, k = linear.weight.shape
    return k % group == 0 and k % 32 == 0 and n % 8 == 0 and linear.bias is None


class Int4Linear(nn.Module):
    """``linear`` with 4-bit weights: in each group of ``group`` inputs,
    the smallest weight maps to 0 and the largest to 15. Packed once, for
    the device the layer is on; the product runs in the input's dtype."""

    def __init__(self, linear: nn.Linear, group: int = 128) -> None:
        super().__init__()
        w = linear.weight.detach().float()
        (n, k), dev = w.shape, w.device
        g = w.reshape(n, k // group, group)
        low, high = g.amin(-1, keepdim=True), g.amax(-1, keepdim=True)
        scales = (high - low).clamp(min=1e-6) / 15
        q = ((g - low) / scales).round().clamp(0, 15)
        q = q.to(torch.int32).reshape(n, k)
        # tinygemm reads a weight back as (q - 8) * scale + zero
        zeros = low + 8 * scales
        sz = torch.cat([scales, zeros], dim=-1).transpose(0, 1).contiguous()
        tiles = next(t for t in (8, 4, 2) if k % (16 * t) == 0)
        aten = torch.ops.aten
        if dev.type == "cpu":
            packed = aten._convert_weight_to_int4pack_for_cpu(q, tiles)
        else:  # two 4-bit values per byte, as the CUDA packer takes them
            pairs = (q[:, ::2] << 4 | q[:, 1::2]).to(torch.uint8)
            packed = aten._convert_weight_to_int4pack(pairs, tiles)
        self.register_buffer("weight", packed)
        self.register_buffer("scales_and_zeros", sz.to(linear.weight.dtype))
        self.group, self.out_features, self.on_cpu = group, n, dev.type == "cpu"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mm = (torch.ops.aten._weight_int4pack_mm_for_cpu if self.on_cpu
              else torch.ops.aten._weight_int4pack_mm)
        flat = x.reshape(-1, x.shape[-1])
        y = mm(flat, self.weight, self.group, self.scales_and_zeros.to(x.dtype))
        return y.reshape(*x.shape[:-1], self.out_features)


def quantize(model: nn.Module, keep: tuple[str, ...] = ("output",),
             group: int = 128):
    """Every ``nn.Linear`` tinygemm takes swapped for an ``Int4Linear``, in
    place, but those named in ``keep`` (the output head stays bf16)."""
    for name, parent in list(model.named_modules()):
        for child, layer in list(parent.named_children()):
            path = f"{name}.{child}" if name else child
            if (isinstance(layer, nn.Linear) and path not in keep
                    and fits(layer, group)):
                setattr(parent, child, Int4Linear(layer, group))
    return model
# --8<-- [end:int4]
