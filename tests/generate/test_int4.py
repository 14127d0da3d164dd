"""snippets.generate.int4: the int4 layer's error against its source, the swap, the compile.

The tolerance is the rounding's own bound: each weight is rounded to the nearest of 16 levels
spaced by its group's scale, so it moves by at most half a scale, and an output by at most the
sum over groups of half the group's scale times the group's input magnitudes."""

from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

from snippets.generate import int4, loop, weight_bytes
from snippets.generate import model as M


def _linear(fan_in: int = 256, fan_out: int = 96) -> nn.Linear:
    torch.manual_seed(0)
    return nn.Linear(fan_in, fan_out, bias=False).requires_grad_(False)


def _bound(lin: nn.Linear, x: torch.Tensor, group: int) -> torch.Tensor:
    n, k = lin.weight.shape
    w = lin.weight.float().reshape(n, k // group, group)
    half = (w.amax(-1) - w.amin(-1)) / 15 / 2  # (n, groups)
    mags = x.float().abs().reshape(*x.shape[:-1], k // group, group).sum(-1)
    return mags @ half.T


def test_the_fp32_layer_agrees_with_its_source_within_the_rounding_bound():
    lin, x = _linear(), torch.randn(3, 5, 256)
    q = int4.Int4Linear(lin, group=32)
    y, ref = q(x), x @ lin.weight.T
    assert y.shape == ref.shape and y.dtype == torch.float32
    assert bool(((y - ref).abs() <= _bound(lin, x, 32) * (1 + 1e-4) + 1e-5).all())
    assert weight_bytes.held_bytes(q) < lin.weight.numel() * 4 / 4  # a quarter of fp32, and less


def test_the_swap_keeps_the_head_and_every_layer_tinygemm_does_not_take():
    m = M.build("tiny", torch.device("cpu"), torch.float32)
    int4.quantize(m, group=32)
    swapped = {n for n, layer in m.named_modules() if isinstance(layer, int4.Int4Linear)}
    kept = {n for n, layer in m.named_modules() if isinstance(layer, nn.Linear)}
    assert "output" in kept and swapped and all(not n.startswith("output") for n in swapped)
    # the tiny MLP's down projection has 176 inputs, not whole groups of 32: it stays dense
    assert all(m.get_submodule(n).weight.shape[1] % 32 for n in kept if n != "output")
    assert not int4.fits(nn.Linear(64, 8, bias=True), 32)  # tinygemm has no bias


def test_the_loop_s_int4_weights_quantize_the_tiny_decoder_and_compile():
    base = M.build("tiny", torch.device("cpu"), torch.float32)
    m = loop.weigh("int4", base)
    assert any(isinstance(layer, int4.Int4Linear) for layer in m.modules())
    assert weight_bytes.held_bytes(m) < weight_bytes.held_bytes(base)
    layer = next(x for x in m.modules() if isinstance(x, int4.Int4Linear))
    x = torch.randn(2, 1, 64)
    compiled = torch.compile(layer, fullgraph=True)
    assert torch.allclose(compiled(x), layer(x), rtol=1e-5, atol=1e-5)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_on_a_gpu_the_packed_layer_agrees_within_the_bound_in_bf16():
    lin, x = _linear(), torch.randn(4, 256)
    ref = x @ lin.weight.T
    # a copy: Module.cuda() moves in place, and the bound below reads the CPU weights
    q = int4.Int4Linear(copy.deepcopy(lin).cuda().to(torch.bfloat16), group=32)
    y = q(x.cuda().to(torch.bfloat16)).float().cpu()
    # the bound of the bf16 weights, plus bf16's rounding of the inputs and the result (2^-6)
    bound = _bound(lin, x, 32) + 2 ** -6 * (x.abs() @ lin.weight.abs().T + ref.abs())
    assert bool(((y - ref).abs() <= bound).all())
