"""Graph-break cases after PyTorch's own: the corpus ``snippets.explain`` is held to.

Each case is written anew after a case in PyTorch's documentation on graph breaks
(``docs/source/compile/programming_model.*.md``) or its Dynamo tests (``test/dynamo/*.py``); its
``source`` names the file and the section or test. Every case runs eagerly without error, so that
the only thing that differs between Dynamo's log and the explainer is what each reports.
``agreement`` runs them. The functions live in this file and in ``corpus_dynamo`` (the cases
written after Dynamo's tests), so their lines are real lines of a file Dynamo's records can name.

Those lines are what the page's table of agreement shows, so an edit above a case moves every
line number below it on the page: ``Case``, the registry and the cited paths live in ``cases``, so
that the page's numbers change only where a case does. The cases written after Dynamo's tests are
in ``corpus_dynamo``, imported at the end of this file so that they follow these in ``CASES``.
"""

from __future__ import annotations

import contextlib
import logging
import warnings

import torch

from snippets.explain import cases
from snippets.explain.cases import CASES, Case, case  # noqa: F401 (CASES: corpus.CASES)


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


# The cases written after Dynamo's tests, in a file of their own; importing it registers them
# after the ones above.
from snippets.explain import corpus_dynamo  # noqa: E402, F401


def by_name() -> dict[str, Case]:
    return {c.name: c for c in CASES}
