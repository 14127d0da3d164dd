"""An eager model captured in one CUDA graph by hand, without a compiler: fewer launches, the
same kernels. The recipe of PyTorch's CUDA-graph notes
(https://docs.pytorch.org/docs/stable/notes/cuda.html): static input buffers, warm-up on a side
stream (the allocator and cuDNN settle), one capture, then copy-in and replay. Replays reuse the
output tensors (``keep_outputs`` copies them); an input of another shape is refused.
``graph_api`` is ``torch.cuda`` but in tests, which stand in for it without CUDA."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import torch

from snippets.core import examples, measure

WARMUP = 3  # the notes warm up on a side stream before capturing; three calls, as their example


class ShapeChanged(ValueError):
    """An input whose shapes or dtypes differ from the captured ones."""


class Graphed:
    """``fn`` captured for ``example``: call it with one of the same shapes, or none to replay."""

    def __init__(self, fn: Callable[..., Any], example: examples.Example, *,
                 warmup: int = WARMUP, keep_outputs: bool = True,
                 graph_api: ModuleType | Any = torch.cuda) -> None:
        self.keep_outputs = keep_outputs
        # copies: the caller's tensors stay the caller's
        self.static = examples.clone(example)
        self._inputs = examples.tensors(self.static)
        side = graph_api.Stream()
        side.wait_stream(graph_api.current_stream())
        with graph_api.stream(side):
            for _ in range(warmup):
                examples.call(fn, self.static)
        graph_api.current_stream().wait_stream(side)
        self.graph = graph_api.CUDAGraph()
        with graph_api.graph(self.graph):
            self.outputs = examples.call(fn, self.static)

    def __call__(self, example: examples.Example = None) -> Any:
        if example is not None:
            self._copy_in(examples.tensors(example))
        self.graph.replay()
        return examples.clone(self.outputs) if self.keep_outputs else self.outputs

    def _copy_in(self, new: list[torch.Tensor]) -> None:
        if len(new) != len(self._inputs):
            raise ShapeChanged(f"captured with {len(self._inputs)} inputs, got {len(new)}")
        for i, (buf, t) in enumerate(zip(self._inputs, new, strict=True)):
            if buf.shape != t.shape or buf.dtype != t.dtype:
                raise ShapeChanged(f"input {i} is {tuple(t.shape)} {t.dtype}, captured for "
                                   f"{tuple(buf.shape)} {buf.dtype}")
        for buf, t in zip(self._inputs, new, strict=True):
            buf.copy_(t)


def capture_timed(fn: Callable[..., Any], example: examples.Example, device: torch.device
                  ) -> tuple[Callable[[], Any], Any, float]:
    """``fn`` captured as a variant's first call: the call that copies the example in and
    replays (as reduce-overhead does for every input not a parameter), the first answer, and the
    seconds warm-up, capture and first replay took."""
    made: dict[str, Graphed] = {}

    def first() -> Any:
        made["graph"] = Graphed(fn, example, keep_outputs=False)
        return made["graph"]()
    out, seconds = measure.time_first_call(first, device)
    return (lambda: made["graph"](example)), out, seconds
