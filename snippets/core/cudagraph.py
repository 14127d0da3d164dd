"""An eager model captured in one CUDA graph by hand, without a compiler: fewer launches, the
same kernels.

The recipe of PyTorch's CUDA-graph notes (https://docs.pytorch.org/docs/stable/notes/cuda.html,
"CUDA Graphs"): static input buffers, a few warm-up calls on a side stream (so the allocator and
cuDNN settle before the capture), one capture under ``torch.cuda.graph``, and each later call a
copy of the new inputs into the static buffers and a replay. The replay writes into the same
output tensors every time: a caller that keeps an output past the next call gets a copy
(``keep_outputs``). A graph is captured for one set of shapes; an input of another shape is
refused, never copied into a buffer that does not fit.

``graph_api`` is ``torch.cuda`` everywhere but in tests, where a stand-in with the same five
names (``Stream``, ``stream``, ``current_stream``, ``CUDAGraph``, ``graph``) checks the contract
on a machine without CUDA.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import torch

from snippets.core import examples, measure

WARMUP = 3  # the notes warm up on a side stream before capturing; three calls, as their example


class ShapeChanged(ValueError):
    """An input whose shapes or dtypes differ from the captured ones; the message says which."""


class Graphed:
    """``fn`` (an eager model, say) captured for ``example``: call it with an example of the same
    structure, shapes and dtypes, or with none to replay on the inputs already in its buffers."""

    def __init__(self, fn: Callable[..., Any], example: examples.Example, *,
                 warmup: int = WARMUP, keep_outputs: bool = True,
                 graph_api: ModuleType | Any = torch.cuda) -> None:
        self.keep_outputs = keep_outputs
        # the buffers every replay reads: copies, so the caller's tensors stay the caller's
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
            raise ShapeChanged(f"captured with {len(self._inputs)} input tensors, "
                               f"called with {len(new)}")
        for i, (buf, t) in enumerate(zip(self._inputs, new, strict=True)):
            if buf.shape != t.shape or buf.dtype != t.dtype:
                raise ShapeChanged(
                    f"input {i} is {tuple(t.shape)} {t.dtype}; the graph was captured for "
                    f"{tuple(buf.shape)} {buf.dtype}: capture another graph for this shape")
        for buf, t in zip(self._inputs, new, strict=True):
            buf.copy_(t)


def capture_timed(fn: Callable[..., Any], example: examples.Example, device: torch.device
                  ) -> tuple[Callable[[], Any], Any, float]:
    """``fn`` captured for ``example`` as a variant's first call: the call that copies the
    example in and replays (as a caller with new data would, and as reduce-overhead's CUDA-graph
    trees do for every input that is not a parameter), the first answer, and the seconds the
    warm-up, capture and first replay took."""
    made: dict[str, Graphed] = {}

    def first() -> Any:
        made["graph"] = Graphed(fn, example, keep_outputs=False)
        return made["graph"]()
    out, seconds = measure.time_first_call(first, device)
    return (lambda: made["graph"](example)), out, seconds
