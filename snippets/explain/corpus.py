"""Graph-break cases after PyTorch's own: the corpus ``snippets.explain`` is held to.

Each case is written anew after a case in PyTorch's documentation on graph breaks
(``docs/source/compile/programming_model.*.md``) or its Dynamo tests (``test/dynamo/*.py``); its
``source`` names the file and the section or test. Every case runs eagerly without error, so that
the only thing that differs between Dynamo's log and the explainer is what each reports.
``agreement`` runs them. The functions live in this file, so their lines are real lines of a file
Dynamo's records can name.

Those lines are what the page's table of agreement shows, so an edit above a case moves every
line number below it on the page: ``Case`` and the cited paths live in ``cases``, and the header
above the first case keeps its length (the first case's decorator at line 53), so that the page's
numbers change only where a case does.
"""

from __future__ import annotations

import contextlib
import io
import logging
import unittest
import warnings
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from snippets.explain import cases
from snippets.explain.cases import Case

# Every case of this file, in the order the page's table lists them; ``case`` registers one
# under its function's name, with the file of pytorch/pytorch and the section it is written
# after.
CASES: list[Case] = []


def _ones() -> tuple[Any, ...]:
    """The arguments of most cases: one 3x3 tensor of ones."""
    return (torch.ones(3, 3),)


def case(path: str, section: str, args: Callable[[], tuple[Any, ...]] = _ones):
    """Register the function it decorates as a case written after ``section`` of ``path``."""
    def register(fn: Callable[..., object]) -> Callable[..., object]:
        CASES.append(Case(fn.__name__, path, section, fn, args))
        return fn
    return register


# ---- docs: common graph breaks ----------------------------------------------------------------

@case(cases.COMMON, "Data-dependent operations")
def branch_on_item(x):
    y = x.sum()
    if y > 0:
        return x + y.item()
    return x - y.item()


OUTSIDE = torch.randn(3, 3)


@case(cases.COMMON, "Data-dependent operations (global)")
def branch_on_global(y):
    if OUTSIDE.sum() > 0:
        return y + OUTSIDE
    return y - OUTSIDE


@case(cases.COMMON, "Printing and logging")
def print_between(x):
    x = x + 1
    print("log!")
    return torch.sin(x)


@case(cases.REORDER, "test_ignore_logger")
def log_between(x):
    x = x * 2
    logging.getLogger("snippets.corpus").info("value %s", x.shape)
    return x.cos()


@case(cases.ERRORS, "test_warnings")
def warn_between(x):
    x = x - 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.warn("careful", stacklevel=1)
    return x.exp()


# ---- docs: skipped functions ------------------------------------------------------------------

def _inner_one(x):
    return x + 1


def _inner_two(x):
    return x + 2


@case(cases.SKIPPED, "summary example")
def skip_frame_between(x):
    x = _inner_one(x)
    torch._dynamo.skip_frame()
    return _inner_two(x)


@case(cases.SKIPPED, "Graph Break in a Loop")
def break_in_loop(x):
    for i in range(5):
        x = x + 1
        if i == 3:
            torch._dynamo.graph_break()
    return x


@case(cases.SKIPPED, "Graph Break in a Loop (unrolled)")
def break_unrolled(x):
    def step(i):
        nonlocal x
        x = x + 1
        if i == 1:
            torch._dynamo.graph_break()
    step(0)
    step(1)
    step(2)
    return x


class PlainContext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@case(cases.SKIPPED, "Graph Break in a Context Manager")
def break_in_custom_with(x):
    with PlainContext():
        x = x + 1
        torch._dynamo.graph_break()
        return x + 1


@case(cases.SKIPPED, "break moved out of the context manager")
def break_outside_with(x):
    with PlainContext():
        x = x + 1
    torch._dynamo.graph_break()
    with PlainContext():
        return x + 1


@case(cases.SKIPPED, "resumable context managers")
def break_in_no_grad(x):
    with contextlib.nullcontext():
        with torch.no_grad():
            x = x + 1
            torch._dynamo.graph_break()
            return x + 1


@case(cases.SKIPPED, "Graph Break in a Try Block")
def break_in_try(x):
    try:
        x = x + 1
        torch._dynamo.graph_break()
        return x + 1
    except RuntimeError:
        return x


@case(cases.SKIPPED, "Dealing with Skipped Functions")
def skip_isolated(x):
    x = _inner_one(x)

    def awkward():
        torch._dynamo.skip_frame()
    awkward()
    return _inner_two(x)


# ---- docs: nested graph breaks, fullgraph=False ---------------------------------------------

def _level_three(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x + 2


def _level_two(x):
    x = x + 4
    x = _level_three(x)
    return x + 8


@case(cases.NESTED, "three levels of calls")
def nested_break(x):
    x = x + 16
    x = _level_two(x)
    return x + 32


@case(cases.ERRORS, "test_dynamo_graph_break_fn")
def break_first(x):
    torch._dynamo.graph_break()
    return x.sin().cos()


@case(cases.ERRORS, "test_dynamo_graph_break_fn, twice")
def two_breaks(x):
    y = x.sin()
    torch._dynamo.graph_break()
    y = y.cos()
    torch._dynamo.graph_break()
    return y.tan()


@case(cases.DISABLE, "Disabling and Suppressing Errors")
def calls_disabled(x):
    return _disabled(x) + 1


@torch.compiler.disable
def _disabled(x):
    return x * 2


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


def by_name() -> dict[str, Case]:
    return {c.name: c for c in CASES}
