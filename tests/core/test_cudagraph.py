"""The hand capture's contract, checked with a stand-in for torch.cuda's graph API on a machine
without CUDA: the stand-in's replay runs the captured function again on the static buffers,
which is what a replay computes."""

from __future__ import annotations

import contextlib

import pytest
import torch

from snippets.core import cudagraph


class _Graph:
    def __init__(self) -> None:
        self.replays = 0
        self.fn = None

    def replay(self) -> None:
        self.replays += 1
        self.fn()


class _API:
    """torch.cuda's five names the capture uses; ``graph`` records what the block computes."""

    def __init__(self) -> None:
        self.calls = 0

    class Stream:
        def wait_stream(self, other) -> None:
            pass

    def current_stream(self):
        return _API.Stream()

    @contextlib.contextmanager
    def stream(self, s):
        yield

    CUDAGraph = _Graph

    @contextlib.contextmanager
    def graph(self, g):
        self.capturing = g
        yield


class _Model(torch.nn.Module):
    """Writes its answer into one output tensor, as a replay does."""

    def __init__(self) -> None:
        super().__init__()
        self.out = None
        self.calls = 0

    def forward(self, x, *, scale):
        self.calls += 1
        if self.out is None:
            self.out = torch.empty_like(x)
        return {"y": torch.mul(x, scale, out=self.out)}


def _graphed(keep_outputs=True):
    api, model = _API(), _Model()
    example = {"x": torch.ones(2, 3), "scale": torch.tensor(2.0)}
    g = cudagraph.Graphed(model, example, warmup=2, keep_outputs=keep_outputs, graph_api=api)
    # what the stand-in's replay runs: the captured call on the static buffers
    api.capturing.fn = lambda: model(**g.static)
    return g, model, example


def test_warm_up_then_one_capture():
    g, model, _ = _graphed()
    assert model.calls == 3  # two warm-up calls on the side stream, the capture
    assert torch.equal(g.outputs["y"], torch.full((2, 3), 2.0))


def test_new_inputs_are_copied_into_the_same_buffers():
    g, _, example = _graphed()
    buffers = [t.data_ptr() for t in (g.static["x"], g.static["scale"])]
    out = g({"x": torch.full((2, 3), 3.0), "scale": torch.tensor(2.0)})
    assert torch.equal(out["y"], torch.full((2, 3), 6.0))
    assert [t.data_ptr() for t in (g.static["x"], g.static["scale"])] == buffers
    assert torch.equal(example["x"], torch.ones(2, 3))  # the caller's tensors stay the caller's


def test_kept_outputs_survive_the_next_call_and_static_ones_do_not():
    g, _, _ = _graphed(keep_outputs=True)
    first = g({"x": torch.full((2, 3), 1.0), "scale": torch.tensor(2.0)})
    g({"x": torch.full((2, 3), 5.0), "scale": torch.tensor(2.0)})
    assert torch.equal(first["y"], torch.full((2, 3), 2.0))
    g, _, _ = _graphed(keep_outputs=False)
    first = g({"x": torch.full((2, 3), 1.0), "scale": torch.tensor(2.0)})
    g({"x": torch.full((2, 3), 5.0), "scale": torch.tensor(2.0)})
    assert torch.equal(first["y"], torch.full((2, 3), 10.0))  # overwritten by the replay


def test_another_shape_is_refused_before_any_copy():
    g, _, _ = _graphed()
    with pytest.raises(cudagraph.ShapeChanged, match=r"input 0 is \(4, 3\).*captured for \(2, 3\)"):
        g({"x": torch.ones(4, 3), "scale": torch.tensor(2.0)})
    with pytest.raises(cudagraph.ShapeChanged, match="captured with 2 inputs"):
        g({"x": torch.ones(2, 3)})
    assert torch.equal(g.static["x"], torch.ones(2, 3))
