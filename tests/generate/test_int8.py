"""snippets.generate.int8: the int8 layer's error against its source, the swap, the bytes held.

The tolerances are the rounding's own bounds, not a guess: each weight is rounded to the nearest
multiple of its channel's scale, so it moves by at most half a scale, and an output channel by at
most half its scale times the sum of the input's magnitudes. In bf16 the layer also rounds its
product, its scale and its result to bf16 (each within 2^-8 of the value); 2^-6 of the output
covers the three."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from snippets.generate import int8, weight_bytes
from snippets.generate import model as M


def _linear(dtype: torch.dtype, fan_in: int = 256, fan_out: int = 96) -> nn.Linear:
    torch.manual_seed(0)
    return nn.Linear(fan_in, fan_out, bias=False).to(dtype).requires_grad_(False)


def _rounding(lin: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    """Half of each channel's scale (as the layer computes it, in fp32) times ``|x|``'s sum."""
    scales = lin.weight.float().abs().amax(dim=1) / 127
    return scales / 2 * x.float().abs().sum(-1, keepdim=True)


def test_each_weight_moves_by_at_most_half_its_channel_s_scale():
    lin = _linear(torch.float32)
    q = int8.Int8Linear(lin)
    assert q.weight.dtype == torch.int8 and q.scales.dtype == torch.float32
    assert int(q.weight.abs().max()) == 127  # the channel's largest magnitude maps to 127
    back = q.weight.float() * q.scales[:, None]
    assert bool(((back - lin.weight).abs() <= q.scales[:, None] / 2 * (1 + 1e-6)).all())


def test_the_fp32_layer_agrees_with_its_source_within_the_rounding_bound():
    lin = _linear(torch.float32)
    x = torch.randn(5, 256, generator=torch.Generator().manual_seed(1))
    err = (int8.Int8Linear(lin)(x) - lin(x)).abs()
    # fp32's own sums add a few ulps of the output: 1e-5 of the bound covers them
    assert bool((err <= _rounding(lin, x) * (1 + 1e-5)).all())
    assert float(err.max()) > 0  # it did round


def test_the_bf16_layer_agrees_with_its_bf16_source_within_the_rounding_bound():
    lin = _linear(torch.bfloat16)
    x = torch.randn(5, 256, generator=torch.Generator().manual_seed(1)).to(torch.bfloat16)
    q = int8.Int8Linear(lin)
    assert q.scales.dtype == torch.bfloat16  # gpt-fast's scales are bf16 beside bf16 weights
    exact = x.float() @ lin.weight.float().T  # the bf16 source, multiplied without rounding
    bound = _rounding(lin, x)
    err = (q(x).float() - exact).abs()
    assert bool((err <= bound + 2**-6 * (exact.abs() + bound)).all())


def test_quantize_swaps_every_linear_but_the_head_and_counts_what_it_holds():
    m = M.build("tiny", "cpu", torch.float32)
    s = m.shape
    dense = weight_bytes.held_bytes(m)
    int8.quantize(m)
    assert isinstance(m.output, nn.Linear) and not isinstance(m.output, int8.Int8Linear)
    layer = m.layers[0]
    assert isinstance(layer.attention.wqkv, int8.Int8Linear)
    assert isinstance(layer.feed_forward.w2, int8.Int8Linear)
    # each swapped weight: a byte per entry and a 4-byte scale per output channel
    kv = s.kv_heads * s.head_dim
    outs = (s.dim + 2 * kv) + s.dim + 2 * s.ffn + s.dim
    swapped = s.layers * (s.dim * (s.dim + 2 * kv) + s.dim * s.dim + 3 * s.dim * s.ffn)
    assert weight_bytes.held_bytes(m) == dense - 3 * swapped + 4 * s.layers * outs
    whole = int8.quantize(M.build("tiny", "cpu", torch.float32), keep=())
    assert isinstance(whole.output, int8.Int8Linear)


def test_an_int8_decoder_generates_from_plain_tensors():
    m = M.build("tiny", "cpu", torch.float32)
    int8.quantize(m)
    assert all(type(t) in (torch.Tensor, nn.Parameter) for t in m.state_dict().values())
    m.setup_cache(1, 24)
    prompt = torch.randint(0, m.shape.vocab, (1, 8), generator=torch.Generator().manual_seed(0))
    assert M.generate(m, prompt, 4).shape == (1, 4)


@pytest.mark.skipif(__import__("importlib").util.find_spec("torchao") is not None,
                    reason="torchao is installed here")
def test_torchao_missing_is_one_line_that_says_how_to_install_it():
    with pytest.raises(int8.Unsupported) as exc:
        int8.torchao_int8(M.build("tiny", "cpu", torch.float32), unwrap=True)
    assert "\n" not in str(exc.value) and "pip install '.[llm]'" in str(exc.value)
