"""A graph-break case the explainer is held to, the files of PyTorch the corpus cites, and the
registry its two files (``corpus``, ``corpus_dynamo``) add their cases to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

# The files of pytorch/pytorch the corpus's cases are written after, by their paths there.
COMMON, SKIPPED, NESTED, DISABLE, FULLGRAPH = (
    f"docs/source/compile/programming_model.{name}.md" for name in (
        "common_graph_breaks", "skipped_functions", "nested_graph_breaks", "compiler_disable",
        "fullgraph_true"))
ERRORS, MESSAGES, MISC, GENERATOR, MODULES, REORDER = (
    f"test/dynamo/test_{name}.py" for name in (
        "error_messages", "graph_break_messages", "misc", "generator", "modules", "reorder_logs"))


@dataclass(frozen=True)
class Case:
    name: str
    path: str  # the file of pytorch/pytorch it is written after
    section: str  # the section of that file, or the test, it is written after
    fn: Callable[..., object]
    args: Callable[[], tuple[Any, ...]]  # fresh arguments for each run

    @property
    def source(self) -> str:
        """As a results row holds it: "<path>: <section>" (the section alone where no path)."""
        return f"{self.path}: {self.section}" if self.path else self.section


# Every case of the corpus, in the order the page's tables list them; ``case`` registers one
# under its function's name, with the file of pytorch/pytorch and the section it is written after.
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
