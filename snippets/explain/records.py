"""Dynamo's own graph-break records, caught from its ``graph_breaks`` logger and read: the
truth the explainer reports (no break without a record, the line of every record).

The forms read, by torch version:

- 2.5 on: ``Graph break in user code at FILE:LINE``, then ``Reason: ...`` (2.5, 2.6) or
  ``Graph Break Reason: ...`` (2.7 on), then the user code traceback. A repeat at the same place
  says ``(user stack suppressed due to duplicate graph break)`` and has no stack.
- A break Dynamo could not resume from, raised outside the tracer, has no such header:
  ``Graph break: skip: from user code at:`` (to 2.6) or ``Graph break: torch.compile cannot
  properly resume from this graph break`` (2.7 on), then the stack, whose last line is the break.
- 2.7 on, the reason is structured (a title, ``Explanation:``, ``Hint:`` lines); ``reasons.plain``
  reads it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass

import torch

_TORCH_DIR = os.path.dirname(torch.__file__)
# Dynamo traces into the standard library (copy, contextlib, ...) as into the user's code, and
# logs a break there at the library's line; the user wants the line of theirs that called it.
_NOT_USER = (_TORCH_DIR, sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"])
_HEADER = re.compile(r"Graph break (?:\(user stack suppressed[^)]*\) )?in user code at "
                     r"(?P<file>.+?):(?P<line>\d+)\s*$", re.M)
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)', re.M)
_REASON = re.compile(r"^(?:Graph Break )?Reason: ?", re.M)
TRACEBACK = "Traceback (most recent call last)"  # where Python's own traceback starts
_SKIP = re.compile(r"^Graph break:? (?:skip:|torch\.compile cannot properly resume)", re.M)


@dataclass(frozen=True)
class Frame:
    file: str
    line: int
    name: str


@dataclass(frozen=True)
class Record:
    file: str  # where Dynamo says the trace broke
    line: int
    reason: str  # the reason text as logged, several lines on 2.7 and later
    stack: tuple[Frame, ...]  # the user code traceback, outermost first; empty for a duplicate
    skipped: str  # "function": Dynamo ran the whole frame eagerly; "rest": what followed; or ""

    @property
    def in_user_code(self) -> bool:
        return not self.file.startswith(_NOT_USER)

    @property
    def user_frame(self) -> Frame:
        """The break in the user's code: the logged place, or, where that is inside torch (a
        polyfill Dynamo traced on the user's behalf) or the standard library, the innermost
        user frame of the stack."""
        if self.in_user_code:
            name = next((f.name for f in reversed(self.stack)
                         if (f.file, f.line) == (self.file, self.line)), "")
            return Frame(self.file, self.line, name)
        user = [f for f in self.stack if not f.file.startswith(_NOT_USER)]
        return user[-1] if user else Frame(self.file, self.line, "")


def _frames(text: str) -> tuple[Frame, ...]:
    return tuple(Frame(m["file"], int(m["line"]), m["name"]) for m in _FRAME.finditer(text))


def parse(message: str) -> Record | None:
    """One logged message as a record; None for a message that is not a graph break's."""
    header = _HEADER.search(message)
    if header:
        body = message[header.end():]
        reason_at = _REASON.search(body)
        reason = body[reason_at.end():] if reason_at else body
        reason, _, stack_text = reason.partition("User code traceback:")
        skipped = ("function" if "Skipping the function" in reason
                   else "rest" if "skipping the rest" in reason else "")
        return Record(header["file"], int(header["line"]), reason.strip(),
                      _frames(stack_text), skipped)
    if _SKIP.search(message):
        # The stack ends at the break; what follows it (Python's own traceback of the exception
        # that carried the break) starts with "Traceback" and is not the user's code.
        stack_text, _, exc_text = message.partition(TRACEBACK)
        stack = _frames(stack_text)
        if stack:
            last = exc_text.strip().splitlines()[-1:] or [""]
            return Record(stack[-1].file, stack[-1].line, last[0], stack, "function")
    return None


class _Catcher(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[Record] = []

    def emit(self, record: logging.LogRecord) -> None:
        parsed = parse(record.getMessage())
        if parsed is not None:
            self.records.append(parsed)


def _break_loggers() -> list[logging.Logger]:
    # Each Dynamo module that logs breaks has its own child logger, "<module>.__graph_breaks";
    # they exist once torch._dynamo is imported.
    import torch._dynamo  # noqa: F401

    return [logging.getLogger(name) for name in list(logging.Logger.manager.loggerDict)
            if name.endswith(".__graph_breaks")]


@contextlib.contextmanager
def catching() -> Iterator[list[Record]]:
    """Collect the graph-break records Dynamo logs inside the block, without printing them.
    The loggers' levels and propagation are restored after, so ``TORCH_LOGS`` keeps working."""
    catcher = _Catcher()
    saved = [(log, log.level, log.propagate) for log in _break_loggers()]
    for log, _, _ in saved:
        log.setLevel(logging.DEBUG)
        log.propagate = False  # caught here, not printed twice
        log.addHandler(catcher)
    try:
        yield catcher.records
    finally:
        for log, level, propagate in saved:
            log.removeHandler(catcher)
            log.setLevel(level)
            log.propagate = propagate
