"""The decode loop, two ways: as gpt-fast's ``generate.py`` writes it (``decode_n_tokens``, the
position a tensor on the device moved in place, each token sampled inside the compiled step), and
as it is often first written (``generate_naive``, the host waiting for every step); and the least
N tokens must read. ``python -m snippets.generate.loop`` times both beside the step alone.
"""

from __future__ import annotations

from snippets.generate import weight_bytes
from snippets.generate import model as M


# --8<-- [start:loop]
import torch

from snippets.generate.model import prefill


def decode_n_tokens(model, token, pos, n, step):
    """``n`` tokens after ``token``, as gpt-fast's loop runs: the position
    a tensor on the device, moved in place, and each token sampled inside
    the compiled ``step``. Nothing here waits for the device."""
    tokens = []
    for _ in range(n):
        # a CUDA graph's output is overwritten by its next replay: clone
        token = step(model, token, pos).clone()
        pos += 1
        tokens.append(token)
    return tokens


def generate(model, prompt, n, step, first=prefill):
    """``n`` greedy tokens per sequence: the prompt's, then ``n - 1``."""
    token = first(model, prompt).clone()
    pos = torch.tensor([prompt.size(1)], device=prompt.device)
    tokens = decode_n_tokens(model, token, pos, n - 1, step)
    return torch.cat([token, *tokens], dim=1)
# --8<-- [end:loop]


# --8<-- [start:naive]
import torch

from snippets.generate.model import prefill


def generate_naive(model, prompt, n, step, first=prefill):
    """The same tokens, the loop as often first written: a position made
    in Python each step, each token read back to the host and sent again.
    The host waits for every step before it queues the next."""
    ids = first(model, prompt).tolist()  # [[token] per sequence]
    out = [ids]
    for i in range(n - 1):
        pos = torch.tensor([prompt.size(1) + i], device=prompt.device)
        token = torch.tensor(ids, device=prompt.device)
        ids = step(model, token, pos).tolist()  # the host waits here
        out.append(ids)
    return torch.tensor(out).squeeze(-1).T  # (batch, n), on the host
# --8<-- [end:naive]


def loop_bytes(model: M.Decoder, batch: int, prompt: int, n: int) -> int:
    """The least ``n`` tokens must read: the weights once per forward (the prompt's and ``n - 1``
    steps') and the cache up to each forward's last position."""
    return sum(weight_bytes.step_bytes(model, batch, p) for p in range(prompt - 1, prompt + n - 1))
