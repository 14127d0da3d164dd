"""The corpus's cases written after PyTorch's Dynamo tests (``test/dynamo/*.py``), registered
with ``cases.case`` after the cases written after its documentation. Their lines are what the
page's table of agreement shows for them: an edit above a case moves the numbers of every case
below it."""

from __future__ import annotations

import io
import unittest
from typing import Any

import torch
from torch import nn

from snippets.explain import cases
from snippets.explain.cases import case


# ---- tests: test/dynamo/test_error_messages.py ------------------------------------------------

@case(cases.ERRORS, "test_unsupported_builtin", args=tuple)
def print_only():
    print("abc")


@case(cases.ERRORS, "test_dynamo_graph_break_fn_with_msg")
def break_with_message(x):
    x = x + 1
    torch._dynamo.graph_break(msg="a reason of my own")
    return x * 3


@case(cases.ERRORS, "test_skipfile_call")
def calls_skipped_file(x):
    unittest.skip("not traced")
    return x + 1


@case(cases.ERRORS, "test_data_dependent_operator2")
def equal_is_data_dependent(x):
    if torch.equal(x, x):
        return x + 1
    return x


@case(cases.ERRORS, "test_sort_with_nonconstant_keys",
      args=lambda: ([torch.tensor(4), torch.tensor(1), torch.tensor(2)],))
def sort_tensors(items):
    return sorted(items)


@case(cases.ERRORS, "test_super_call_method",
      args=lambda: (zip(range(5), range(5), strict=True),))
def zip_argument(pairs):
    return [a + b for a, b in pairs]


@case(cases.ERRORS, "test_dict_items_input",
      args=lambda: (torch.ones(3), {"a": 3, "b": 4}.items()))
def dict_items_argument(x, items):
    it = iter(items)
    return next(it), x.sin()


@case(cases.MESSAGES, "test_dynamic_shape_operator")
def nonzero_shape(x):
    return torch.nonzero(x > 0.5) + 1


@case(cases.ERRORS, "test_data_dependent_branching_fullgraph")
def branch_on_tensor(x):
    if x.sum() > 0:
        return x.sin()
    return x.cos()


@case(cases.MISC, "test_tolist_float")
def tolist_call(x):
    values = x.tolist()
    return torch.tensor(values) + 1


@case(cases.MISC, "test_data_ptr_graph_break_builtin")
def data_ptr_call(x):
    pointer = x.data_ptr()
    return x + (pointer % 2)


@case(cases.FULLGRAPH, "Strategy 3: Don't compile the code")
def save_to_buffer(x):
    buffer = io.BytesIO()
    torch.save(x, buffer)
    return x + 1


# ---- tests: iterators, generators, loops ------------------------------------------------------

@case(cases.GENERATOR, "test_graph_break_in_generator")
def generator_breaks(x):
    def produce(t):
        yield t + 1
        print("between")
        yield t + 2
    return list(produce(x))


@case(cases.FULLGRAPH, "Strategy 1: Rewrite the unsupported code",
      args=lambda: (torch.ones(3), iter([1, 2, 3])))
def next_on_iterator(x, numbers):
    return x * next(numbers)


@case(cases.ERRORS, "test_graph_break_in_loop")
def branch_in_loop(x):
    for _ in range(2):
        if x.sum() > 0:
            x = x - 1
    return x


@case(cases.MESSAGES, "test_data_dependent_operator")
def item_only(x):
    x.sum().item()


@case(cases.COMMON, "Data-dependent operations (slice)")
def tensor_slice(x):
    n = x.sum().int() // 3
    return x[:n] + 1


@case(cases.COMMON, "Data-dependent operations (range)")
def tensor_range(x):
    total = x
    for _ in range(x[0, 0].int()):
        total = total + 1
    return total


# ---- tests: modules ---------------------------------------------------------------------------

def _hooked() -> tuple[Any, ...]:
    model = nn.Linear(3, 3)
    model.register_forward_hook(lambda module, inputs, output: output * 2)
    return (model, torch.ones(2, 3))


@case(cases.MODULES, "test_hooks_inner", args=_hooked)
def with_forward_hook(model, x):
    return model(x).relu()


class Noisy(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        x = self.proj(x)
        print("inside a submodule")
        return x.relu()


@case(cases.ERRORS, "test_nested_compile_user_frames",
      args=lambda: (Noisy(), torch.ones(2, 3)))
def submodule_breaks(model, x):
    return model(x) + model(x)


@case(cases.MISC, "test_duplicate_graph_break_log",
      args=lambda: (torch.ones(3),))
def helper_twice(x):
    return _prints(x) * _prints(x + 1)


def _prints(x):
    x = x.sin()
    print("helper")
    return x.cos()
