"""snippets.core.examples: inputs and outputs as real models have them."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest
import torch

from snippets.core import examples
from tests import real_models


def test_place_casts_floating_tensors_only():
    ex = {"input_ids": torch.arange(6).view(2, 3), "mask": torch.ones(2, 3, dtype=torch.bool),
          "pixels": torch.randn(2, 3, 4, 4)}
    placed = examples.place(ex, "cpu", torch.bfloat16, channels_last=True)
    assert placed["input_ids"].dtype == torch.int64
    assert torch.equal(placed["input_ids"], ex["input_ids"])
    assert placed["mask"].dtype == torch.bool
    assert placed["pixels"].dtype == torch.bfloat16
    assert placed["pixels"].is_contiguous(memory_format=torch.channels_last)


def test_call_takes_a_tensor_a_tuple_or_keywords():
    def f(a, b=None):
        return a if b is None else a + b

    one, two = torch.ones(2), torch.full((2,), 2.0)
    assert torch.equal(examples.call(f, one), one)
    assert torch.equal(examples.call(f, (one, two)), one + two)
    assert torch.equal(examples.call(f, {"a": one, "b": two}), one + two)


@dataclass
class Out:
    logits: torch.Tensor
    ids: torch.Tensor
    extra: object = None


def test_error_compares_every_floating_leaf():
    ref_out = (torch.ones(4), {"b": Out(torch.full((2,), 2.0), torch.arange(2))})
    ref = examples.reference(ref_out)
    assert len(ref) == 2  # the integer leaf is not compared
    assert examples.relative_error(ref_out, ref) == 0.0
    off = (torch.ones(4), {"b": Out(torch.full((2,), 2.2), torch.arange(2))})
    assert examples.relative_error(off, ref) == pytest.approx(0.1)
    assert examples.relative_error((torch.ones(4),), ref) == math.inf  # a leaf went missing
    assert examples.relative_error((torch.ones(4), torch.ones(3)), ref) == math.inf  # a shape
    assert examples.relative_error((torch.ones(4), torch.tensor([2.0, math.nan])), ref) == math.inf


def test_batch_and_mark_dynamic_reach_every_tensor_input():
    ex = {"input_ids": torch.zeros(3, 5, dtype=torch.long), "mask": torch.ones(3, 5)}
    assert examples.batch_size(ex) == 3
    assert examples.batch_size((torch.zeros(3, 2), torch.zeros(4))) is None
    examples.mark_dynamic(ex)
    assert all(0 in t._dynamo_dynamic_indices for t in ex.values())


@pytest.mark.parametrize("bad, says", [
    ([1, 2], "holds no tensor"),
    ("text", "is a str"),
    ({1: torch.ones(1)}, "key 1 is not a name"),
])
def test_a_bad_example_is_one_line(bad, says):
    with pytest.raises(examples.ExampleError, match=".*") as err:
        examples.check(bad)
    assert says in str(err.value) and "\n" not in str(err.value)


def test_transformers_output_is_compared_leaf_by_leaf():
    pytest.importorskip("transformers")
    model, ids = real_models.gpt2(2)
    with torch.no_grad():
        out = examples.call(model, ids)
    assert type(out).__name__ == "CausalLMOutputWithCrossAttentions"
    ref = examples.reference(out)
    assert [t.shape for t in ref] == [torch.Size([2, real_models.SEQ, real_models.VOCAB])]
    assert examples.relative_error(out, ref) == 0.0


def test_clone_copies_every_tensor_and_keeps_the_output_class():
    transformers = pytest.importorskip("transformers")
    out = transformers.modeling_outputs.BaseModelOutput(last_hidden_state=torch.ones(2, 3))
    copy = examples.clone(out)
    assert type(copy) is type(out)
    assert copy.last_hidden_state.data_ptr() != out.last_hidden_state.data_ptr()
    assert torch.equal(copy.last_hidden_state, out.last_hidden_state)
    pair = examples.clone((torch.zeros(1), {"m": torch.ones(1)}))
    assert isinstance(pair, tuple) and isinstance(pair[1], dict)
