"""mark_dynamic(min=, max=, specialize_on=) on the installed torch (2.14.1), with a counting
backend: one Dynamo graph for the range, one backend compile for it and one per specialized
size, and a marked size outside the range raises."""

from __future__ import annotations

import inspect

import pytest
import torch
from torch._dynamo.utils import counters

from snippets.dynamic import ranges


def _attend(x):
    return torch.softmax(x @ x.transpose(-1, -2), dim=-1)


def test_the_signature_is_keyword_only_min_max_specialize_on():
    params = inspect.signature(torch._dynamo.mark_dynamic).parameters
    assert all(params[p].kind is inspect.Parameter.KEYWORD_ONLY
               for p in ("min", "max", "specialize_on"))


def test_one_trace_a_generic_compile_and_one_per_specialized_size():
    torch._dynamo.reset()
    counters.clear()
    compiled_for: list[object] = []

    def backend(gm, inputs):
        compiled_for.append(inputs[0])  # the length: a symbol, or the specialized int
        return gm.forward

    fn = torch.compile(_attend, backend=backend)
    for n in (40, 128, 256, 300):
        x = ranges.mark_lengths(torch.randn(2, n, 8))
        torch.testing.assert_close(fn(x), _attend(x))
    assert counters["stats"]["unique_graphs"] == 1
    assert [s for s in compiled_for if isinstance(s, int)] == [128, 256]
    assert len(compiled_for) == 3  # the generic one for 40 and 300, then 128 and 256
    with pytest.raises(torch.fx.experimental.symbolic_shapes.ConstraintViolationError):
        fn(ranges.mark_lengths(torch.randn(2, 600, 8)))
    torch._dynamo.reset()
