"""int8 weights, two ways: a linear layer of plain tensors in the manner of gpt-fast's
``WeightOnlyInt8Linear`` (``quantize.py`` there), and torchao's ``Int8WeightOnlyConfig``. Both
read half the bytes of bf16; the layer here is three traced operations Inductor fuses, while
torchao's weight is a tensor subclass AOTAutograd takes apart (at every call of the compiled
graph, unless ``torchao.utils.unwrap_tensor_subclass`` unwraps it first)."""

# --8<-- [start:int8]
import torch
import torch.nn.functional as F
from torch import nn


class Int8Linear(nn.Module):
    """``linear`` with int8 weights and one scale per output channel:
    the channel's largest magnitude maps to 127. Plain tensors, no
    subclass; the product runs in the input's dtype."""

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        w = linear.weight.detach().float()
        scales = w.abs().amax(dim=1).clamp(min=1e-8) / 127
        q = torch.round(w / scales[:, None]).clamp(-127, 127)
        self.register_buffer("weight", q.to(torch.int8))
        self.register_buffer("scales", scales.to(linear.weight.dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight.to(x.dtype)) * self.scales


def quantize(model: nn.Module, keep: tuple[str, ...] = ("output",)):
    """Every ``nn.Linear`` in ``model`` swapped for an ``Int8Linear``, in
    place, but those named in ``keep`` (the output head stays bf16)."""
    for name, parent in list(model.named_modules()):
        for child, layer in list(parent.named_children()):
            path = f"{name}.{child}" if name else child
            if isinstance(layer, nn.Linear) and path not in keep:
                setattr(parent, child, Int8Linear(layer))
    return model
# --8<-- [end:int8]


class Unsupported(Exception):
    """What a configuration needs is not here (CUDA graphs on a CPU, torchao): its row says
    why, and the run goes on."""


def torchao_int8(model: nn.Module, *, unwrap: bool = False) -> nn.Module:
    """torchao's int8 weight-only quantization of every linear layer, the output head included
    (``quantize_``'s default filter), in place. ``unwrap``: then
    ``torchao.utils.unwrap_tensor_subclass``, which hands each quantized weight to the compiler
    as plain tensors behind a parametrization, as torchao asks before ``torch.export``."""
    try:
        from torchao.quantization import Int8WeightOnlyConfig, quantize_
    except Exception as exc:  # noqa: BLE001 (missing, or built for another torch)
        raise Unsupported(f"torchao unavailable ({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else ''}); "
                          "pip install '.[llm]'") from None
    quantize_(model, Int8WeightOnlyConfig())
    if unwrap:
        try:
            from torchao.utils import unwrap_tensor_subclass
        except ImportError as exc:
            raise Unsupported(f"this torchao has no unwrap_tensor_subclass ({exc})") from None
        unwrap_tensor_subclass(model)
    return model
