"""The least a step of the decoder must do, the bounds the generation page reads its times
against: a prefill's multiply-adds, at the measured matmul rate, and a decode step's bytes, at the
measured copy bandwidth. Pure arithmetic on a decoder's ``Shape``.
"""

from __future__ import annotations

from snippets.generate.model import Shape


def flops(s: Shape, batch: int, tokens: int, context: int) -> int:
    """Multiply-adds times two of ``tokens`` new tokens per sequence attending to ``context``
    positions: the projections and MLP by their weights, attention's two products by the
    context. The lower bound a prefill is read against, at the measured matmul rate."""
    dense = 2 * s.matmul_params * batch * tokens
    attention = 2 * 2 * s.layers * batch * tokens * context * s.dim
    return dense + attention


def decode_bytes(s: Shape, batch: int, position: int, itemsize: int) -> int:
    """The least a decode step at ``position`` must read: every weight a token multiplies by
    and the cache up to the position (the static cache's masked tail is read too, but need
    not be). The bound a decode step is read against, at the measured copy bandwidth."""
    return s.matmul_params * itemsize + s.cache_bytes(batch, position + 1, itemsize)


def copy_share(moved: float, us: float, copy_gbps: float) -> float:
    """``moved`` bytes read in ``us`` microseconds, as a % of the copy bandwidth (GB/s)."""
    return 100 * moved / (us * 1e-6) / (copy_gbps * 1e9)
