"""A Llama-shaped decoder with a static KV cache: the model the generation page measures."""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from snippets.core import backends


@dataclass(frozen=True)
class Shape:
    """The sizes of a decoder; ``params`` and ``weight_bytes`` follow from them."""

    vocab: int
    dim: int
    layers: int
    heads: int
    kv_heads: int
    ffn: int

    @property
    def head_dim(self) -> int:
        return self.dim // self.heads

    @property
    def params(self) -> int:
        """Every weight: the embedding, the layers, the final norm and the output head."""
        d, kv = self.dim, self.kv_heads * self.head_dim
        layer = d * (d + 2 * kv) + d * d + 3 * d * self.ffn + 2 * d
        return 2 * self.vocab * d + self.layers * layer + d

    @property
    def matmul_params(self) -> int:
        """The weights a token multiplies by: all but the embedding table, which it only indexes."""
        return self.params - self.vocab * self.dim

    def cache_bytes(self, batch: int, length: int, itemsize: int) -> int:
        """Keys and values of every layer for ``length`` positions of ``batch`` sequences."""
        return 2 * self.layers * batch * self.kv_heads * length * self.head_dim * itemsize


# The sizes by name. ``tiny`` runs the tests and the CPU page in seconds. ``1b`` is Llama 3.2
# 1B's body (dim 2048, 16 layers, 32 query and 8 key-value heads, MLP 8192) with a 32,000-token
# vocabulary and an untied output head: about 1.1 B parameters, 2.2 GB in bf16, all read once per
# decoded token, which is what makes decode bandwidth-bound.
# ``7b`` is Llama 2 7B's shape, gpt-fast's headline model (32 layers, dim 4096, 32 heads each
# with its own keys and values, MLP 11008, 32,000 tokens): 6.7 B parameters, 13.5 GB in bf16.
# ``8b`` is Llama 3 8B's (8 key-value heads, MLP 14336, 128,256 tokens): 8.0 B, 16.1 GB, of
# which its output head is 1.05 GB. Both keep this decoder's rotary base (10,000; Llama 3 uses
# 500,000), which changes the angles, not the work.
SIZES: dict[str, Shape] = {
    "tiny": Shape(vocab=512, dim=64, layers=2, heads=4, kv_heads=2, ffn=176),
    "small": Shape(vocab=8192, dim=512, layers=4, heads=8, kv_heads=2, ffn=1408),
    "1b": Shape(vocab=32000, dim=2048, layers=16, heads=32, kv_heads=8, ffn=8192),
    "7b": Shape(vocab=32000, dim=4096, layers=32, heads=32, kv_heads=32, ffn=11008),
    "8b": Shape(vocab=128256, dim=4096, layers=32, heads=32, kv_heads=8, ffn=14336),
}


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps, self.weight = eps, nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # In fp32, as Llama does: a bf16 mean of squares loses the small ones.
        xf = x.float()
        normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return normed.type_as(x) * self.weight


def rope_table(length: int, head_dim: int, base: float = 10000.0) -> torch.Tensor:
    """``(length, head_dim / 2, 2)``: the cosine and sine of each position's rotation angles."""
    freqs = 1.0 / base ** (torch.arange(0, head_dim, 2).float() / head_dim)
    angles = torch.outer(torch.arange(length).float(), freqs)
    return torch.stack([angles.cos(), angles.sin()], dim=-1)


def rotate(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """Rotary embedding of ``x`` (batch, tokens, heads, head_dim) by its positions' ``table``."""
    xs = x.float().reshape(*x.shape[:-1], -1, 2)
    t = table.view(1, xs.size(1), 1, xs.size(3), 2)
    out = torch.stack([xs[..., 0] * t[..., 0] - xs[..., 1] * t[..., 1],
                       xs[..., 1] * t[..., 0] + xs[..., 0] * t[..., 1]], dim=-1)
    return out.flatten(3).type_as(x)


class KVCache(nn.Module):
    """Keys and values of one layer, ``(batch, kv_heads, length, head_dim)``, written in place."""

    def __init__(self, batch: int, kv_heads: int, length: int, head_dim: int,
                 dtype: torch.dtype) -> None:
        super().__init__()
        shape = (batch, kv_heads, length, head_dim)
        self.register_buffer("k", torch.zeros(shape, dtype=dtype), persistent=False)
        self.register_buffer("v", torch.zeros(shape, dtype=dtype), persistent=False)

    def update(self, pos: torch.Tensor, k: torch.Tensor,
               v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.k[:, :, pos] = k
        self.v[:, :, pos] = v
        return self.k, self.v


class Attention(nn.Module):
    def __init__(self, s: Shape) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = s.heads, s.kv_heads, s.head_dim
        self.wqkv = nn.Linear(s.dim, (s.heads + 2 * s.kv_heads) * s.head_dim, bias=False)
        self.wo = nn.Linear(s.dim, s.dim, bias=False)
        self.cache: KVCache | None = None
        # False: each key-value head is repeated for its group of query heads before attention,
        # as gpt-fast and most ports do; True: scaled_dot_product_attention is told the heads
        # are grouped (``enable_gqa``, torch 2.5 and later) and reads each one once.
        self.gqa = False

    def forward(self, x: torch.Tensor, table: torch.Tensor, mask: torch.Tensor,
                pos: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        kv = self.kv_heads * self.head_dim
        q, k, v = self.wqkv(x).split([self.heads * self.head_dim, kv, kv], dim=-1)
        q = rotate(q.view(b, t, self.heads, self.head_dim), table).transpose(1, 2)
        k = rotate(k.view(b, t, self.kv_heads, self.head_dim), table).transpose(1, 2)
        v = v.view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        assert self.cache is not None, "call Decoder.setup_cache first"
        k, v = self.cache.update(pos, k, v)
        if self.gqa:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
        else:
            group = self.heads // self.kv_heads
            k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.wo(y.transpose(1, 2).reshape(b, t, -1))


class MLP(nn.Module):
    def __init__(self, s: Shape) -> None:
        super().__init__()
        self.w1 = nn.Linear(s.dim, s.ffn, bias=False)
        self.w3 = nn.Linear(s.dim, s.ffn, bias=False)
        self.w2 = nn.Linear(s.ffn, s.dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, s: Shape) -> None:
        super().__init__()
        self.attention_norm, self.attention = RMSNorm(s.dim), Attention(s)
        self.ffn_norm, self.feed_forward = RMSNorm(s.dim), MLP(s)

    def forward(self, x: torch.Tensor, table: torch.Tensor, mask: torch.Tensor,
                pos: torch.Tensor) -> torch.Tensor:
        h = x + self.attention(self.attention_norm(x), table, mask, pos)
        return h + self.feed_forward(self.ffn_norm(h))


class Decoder(nn.Module):
    """Tokens ``(batch, t)`` at positions ``pos`` ``(t,)`` to logits ``(batch, t, vocab)``."""

    def __init__(self, s: Shape) -> None:
        super().__init__()
        self.shape = s
        self.tok_embeddings = nn.Embedding(s.vocab, s.dim)
        self.layers = nn.ModuleList(Block(s) for _ in range(s.layers))
        self.norm = RMSNorm(s.dim)
        self.output = nn.Linear(s.dim, s.vocab, bias=False)
        self.length = 0

    def setup_cache(self, batch: int, length: int) -> None:
        """A zeroed cache of ``length`` positions for ``batch`` sequences, on the weights'
        device and in their dtype, with the rotary table and causal mask of that length."""
        w = self.output.weight
        s = self.shape
        for layer in self.layers:
            layer.attention.cache = KVCache(batch, s.kv_heads, length, s.head_dim,
                                            w.dtype).to(w.device)
        self.register_buffer("table", rope_table(length, s.head_dim).to(w.device),
                             persistent=False)
        causal = torch.ones(length, length, dtype=torch.bool, device=w.device).tril()
        self.register_buffer("causal", causal, persistent=False)
        self.length = length

    def set_gqa(self, on: bool) -> None:
        for layer in self.layers:
            layer.attention.gqa = on

    def forward(self, idx: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        mask = self.causal[None, None, pos]  # (1, 1, t, length): a query sees its past
        table = self.table[pos]
        x = self.tok_embeddings(idx)
        for layer in self.layers:
            x = layer(x, table, mask, pos)
        return self.output(self.norm(x))


def build(size: str | Shape, device: torch.device | str, dtype: torch.dtype,
          seed: int = 0) -> Decoder:
    """A decoder of a named size with seeded random weights, without gradients, made where it
    runs and in its dtype: a 7 B decoder made in fp32 first would take 27 GB on the way."""
    s = SIZES[size] if isinstance(size, str) else size
    torch.manual_seed(seed)
    # floating-point tensors made in the block, the parameters too, are ``dtype``
    with torch.device(device), backends.swapped(torch.get_default_dtype, torch.set_default_dtype,
                                                dtype):
        model = Decoder(s)
    # An embedding's default init is N(0, 1), a linear's is uniform with std 1/sqrt(3 fan_in):
    # the logits then spread over a few units, so greedy argmax is not decided by a tie.
    return model.eval().requires_grad_(False)


def sibling(model: Decoder) -> Decoder:
    """A copy of ``model`` with the same weight tensors (a 7 B decoder's held once) and a cache
    of its own; safe, as nothing writes a weight in place (quantizing swaps a layer)."""
    return copy.deepcopy(model, memo={id(p): p for p in model.parameters()})


# --8<-- [start:steps]
import torch


def prefill(model, prompt: torch.Tensor) -> torch.Tensor:
    """The whole prompt at once; the first new token, ``(batch, 1)``."""
    pos = torch.arange(prompt.size(1), device=prompt.device)
    logits = model(prompt, pos)
    return logits[:, -1:].argmax(-1)


def decode_step(model, token: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    """One token per sequence at ``pos``: the next greedy token, sampled
    inside the step, so a compiled step never hands logits to Python."""
    return model(token, pos)[:, -1:].argmax(-1)
# --8<-- [end:steps]


# --8<-- [start:compile]
import torch

from snippets.generate.model import decode_step


def compile_step(step=decode_step):
    """A step compiled as gpt-fast compiles its decode step: whole, CUDA
    graphs replaying it, one static graph per batch size."""
    return torch.compile(step, mode="reduce-overhead", fullgraph=True,
                         dynamic=False)
# --8<-- [end:compile]

def generate(model: Decoder, prompt: torch.Tensor, steps: int, step=decode_step,
             first=prefill) -> torch.Tensor:
    """Greedy tokens ``(batch, steps)``: the prefill's token, then ``steps - 1`` decode steps.
    A compiled ``step`` under CUDA graphs returns a buffer its next replay overwrites, so each
    token is cloned before the next step runs."""
    token = first(model, prompt).clone()
    out = [token]
    for i in range(steps - 1):
        pos = torch.tensor([prompt.size(1) + i], device=prompt.device)
        token = step(model, token, pos).clone()
        out.append(token)
    return torch.cat(out, dim=1)


def logit_gap(model: Decoder, prompt: torch.Tensor, tokens: torch.Tensor, at: int) -> float:
    """The gap between the best and second-best logit eager saw at step ``at`` of ``tokens``
    (its own greedy tokens, replayed after the prompt): how close a tie rounding had to flip."""
    model.setup_cache(prompt.size(0), model.length)
    seq = torch.cat([prompt, tokens[:, :at]], dim=1)
    logits = model(seq, torch.arange(seq.size(1), device=seq.device))[:, -1].float()
    top = logits.topk(2, dim=-1).values
    return float((top[:, 0] - top[:, 1]).min())


def first_diff(a: torch.Tensor, b: torch.Tensor) -> int | None:
    """The first step at which two ``(batch, steps)`` token tensors differ, or None."""
    differs = (a.cpu() != b.cpu()).any(0).nonzero()
    return int(differs[0]) if len(differs) else None
