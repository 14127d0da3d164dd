"""Graph-break cases kept out of the corpus the page shows, written after the explainer, so that a
change tuned to the corpus still has to pass cases it was not tuned to."""

from __future__ import annotations

import copy
import json
import os

import numpy as np
import torch
from torch import nn

from snippets.explain.corpus import Case

CASES: list[Case] = []


def case(args=lambda: (torch.ones(4),)):
    def register(fn):
        CASES.append(Case(fn.__name__, "", "kept apart from the corpus", fn, args))
        return fn
    return register


@case()
def print_in_while(x):
    n = 0
    while n < 3:
        x = x * 2
        print("step", n)
        n += 1
    return x


def _loops_and_prints(x):
    for _ in range(2):
        x = x + 1
        print("inner")
    return x


@case()
def helper_with_loop(x):
    x = x.sin()
    x = _loops_and_prints(x)
    return x.cos()


@case()
def map_with_print(x):
    return list(map(lambda t: print(t.shape) or t * 2, [x, x + 1]))


class Gate(nn.Module):
    @torch.compiler.disable
    def helper(self, x):
        return x + 1

    def forward(self, x):
        return self.helper(x.relu()) * 3


@case(args=lambda: (Gate(), torch.ones(4)))
def disabled_method(model, x):
    return model(x)


@case()
def numpy_roundtrip(x):
    values = np.asarray(x.tolist())
    return x + float(values.sum())


@case()
def deepcopy_tensor(x):
    y = copy.deepcopy(x)
    return y * 2


@case()
def bool_of_any(x):
    if bool((x > 0).any()):
        x = x - 1
    return x.abs()


@case()
def json_of_values(x):
    text = json.dumps(x.sum().tolist())
    return x + len(text)


@case()
def pid_in_graph(x):
    return x + os.getpid() % 2


def _countdown(x, n):
    if n == 0:
        print("bottom")
        return x
    return _countdown(x + 1, n - 1)


@case()
def recursion_breaks(x):
    return _countdown(x, 2) * 2


@case()
def break_in_enable_grad(x):
    with torch.enable_grad():
        y = x * 2
        print("inside")
    return y.sum()


@case()
def item_in_except(x):
    try:
        raise ValueError("planted")
    except ValueError:
        scale = x.max().item()
    return x / scale
