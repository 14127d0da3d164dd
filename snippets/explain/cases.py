"""A graph-break case the explainer is held to, and the files of PyTorch the corpus cites."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# The files of pytorch/pytorch the corpus's cases are written after, by their paths there.
DOCS = "docs/source/compile/"
COMMON = DOCS + "programming_model.common_graph_breaks.md"
SKIPPED = DOCS + "programming_model.skipped_functions.md"
NESTED = DOCS + "programming_model.nested_graph_breaks.md"
DISABLE = DOCS + "programming_model.compiler_disable.md"
FULLGRAPH = DOCS + "programming_model.fullgraph_true.md"
TESTS = "test/dynamo/"
ERRORS = TESTS + "test_error_messages.py"
MESSAGES = TESTS + "test_graph_break_messages.py"
MISC = TESTS + "test_misc.py"
GENERATOR = TESTS + "test_generator.py"
MODULES = TESTS + "test_modules.py"
REORDER = TESTS + "test_reorder_logs.py"


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
