"""The growing cache the first trap measures: keys and values concatenated one position per
token, so every decode step has a new shape. The trap's fix is the static cache of
``model.py``."""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn

from snippets.generate import model as M


class GrowingCache(nn.Module):
    """Keys and values that grow by one position per token: a new shape
    every step."""

    def __init__(self, like: M.KVCache) -> None:
        super().__init__()
        b, h, _, d = like.k.shape
        empty = like.k.new_zeros(b, h, 0, d)
        self.k, self.v = empty, empty.clone()

    def update(self, pos, k, v):
        self.k = torch.cat([self.k, k], dim=2)
        self.v = torch.cat([self.v, v], dim=2)
        return self.k, self.v


class GrowingAttention(M.Attention):
    """``model.Attention`` over a growing cache: the mask cut to the positions the cache holds."""

    def forward(self, x, table, mask, pos):
        b, t, _ = x.shape
        kv = self.kv_heads * self.head_dim
        q, k, v = self.wqkv(x).split([self.heads * self.head_dim, kv, kv], dim=-1)
        q = M.rotate(q.view(b, t, self.heads, self.head_dim), table).transpose(1, 2)
        k = M.rotate(k.view(b, t, self.kv_heads, self.head_dim), table).transpose(1, 2)
        v = v.view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        k, v = self.cache.update(pos, k, v)
        group = self.heads // self.kv_heads
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[..., :k.size(2)])
        return self.wo(y.transpose(1, 2).reshape(b, t, -1))


def growing(base: M.Decoder) -> M.Decoder:
    """A copy of ``base`` whose layers keep a growing cache (the same weights; each attention
    module's class swapped for the one above, which differs only in its mask)."""
    m = copy.deepcopy(base)
    for layer in m.layers:
        layer.attention.__class__ = GrowingAttention
        layer.attention.cache = GrowingCache(layer.attention.cache)
    return m
