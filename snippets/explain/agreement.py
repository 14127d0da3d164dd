"""The explainer held to Dynamo's own log, case by case: for every case of ``corpus``, the lines
``TORCH_LOGS=graph_breaks`` prints in a fresh Python (the truth, read with a regular expression),
those ``snippets.explain`` names and those ``torch._dynamo.explain`` names. A case agrees when
its lines equal the logged ones: every logged line named, none invented."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import re
import subprocess
import sys
from typing import Any

import torch

from snippets.core import torch_logs
from snippets.explain import corpus, explain_quietly, kinds, records

KIND = kinds.AGREEMENT.name
_MARK = "@@case "
_HEADER = re.compile(r"in user code at (?P<file>\S+?):(?P<line>\d+)\s*$")
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _cases_of(module: str) -> dict[str, corpus.Case]:
    """The cases a module registered: the corpus, or a set of cases kept apart from it."""
    loaded = importlib.import_module(module)
    return {c.name: c for c in loaded.CASES}


def run_for_the_log(names: list[str], module: str = corpus.__name__) -> None:
    """In the child: run each case under torch.compile, its record block after a marker."""
    cases = _cases_of(module)
    for name in names:
        print(f"{_MARK}{name}", file=sys.stderr, flush=True)
        torch._dynamo.reset()  # also forgets which breaks were logged already
        case = cases[name]
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            torch.compile(case.fn, backend="eager")(*case.args())
    torch._dynamo.reset()


def _lines_of(block: str, source: str) -> set[int]:
    """The corpus lines a case's log names: each record's "in user code at" line, or where that
    is inside torch (or a record has no such header) the last corpus frame of its traceback."""
    found: set[int] = set()
    blocks = re.split(r"(?=^\S*Graph break)", block, flags=re.M)
    for record in blocks:
        lines = record.splitlines()
        header = _HEADER.search(lines[0]) if lines else None
        if header and _same_file(header["file"], source):
            found.add(int(header["line"]))
            continue
        stack = record.split(records.TRACEBACK)[0]
        frames = [int(m["line"]) for m in _FRAME.finditer(stack)
                  if _same_file(m["file"], source)]
        if frames and "Graph break" in record:
            found.add(frames[-1])
    return found


def _same_file(file: str, source: str) -> bool:
    return os.path.basename(file) == os.path.basename(source)


def start_logging(names: list[str], module: str = corpus.__name__) -> subprocess.Popen[str]:
    """A child Python that runs the cases with ``TORCH_LOGS=graph_breaks``."""
    return torch_logs.start_logged("graph_breaks", torch_logs.call(run_for_the_log, names, module))


def logged_lines(child: subprocess.Popen[str], names: list[str],
                 module: str = corpus.__name__) -> dict[str, set[int]]:
    """The lines the child's ``graph_breaks`` log names for each case."""
    text = torch_logs.finish(child)
    cases = _cases_of(module)
    out: dict[str, set[int]] = {}
    for block in torch_logs.artifact_lines(text, "graph_breaks", keep=_MARK).split(_MARK)[1:]:
        name, _, rest = block.partition("\n")
        name = name.strip()  # a case's lines are in the file that defines it
        out[name] = _lines_of(rest, cases[name].fn.__code__.co_filename)
    missing = set(names) - set(out)
    if missing:
        raise RuntimeError(f"the logging child stopped before {sorted(missing)}:\n{text[-2000:]}")
    return out


def _line(location: str, source: str) -> int | None:
    match = re.search(r"^(.*):(\d+) in ", location)
    return int(match[2]) if match and _same_file(match[1], source) else None


def explained_lines(case: corpus.Case) -> set[int]:
    exp = explain_quietly(case.fn, *case.args())
    source = case.fn.__code__.co_filename
    return {n for r in exp.break_reasons if (n := _line(r.location, source)) is not None}


def torch_lines(case: corpus.Case) -> set[int] | None:
    """What ``torch._dynamo.explain`` names: the last corpus frame of each break's stack; None
    where it raised."""
    torch._dynamo.reset()
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            out = torch._dynamo.explain(case.fn)(*case.args())
    except Exception:
        return None
    finally:
        torch._dynamo.reset()
    found = set()
    for reason in out.break_reasons:
        frames = [f.lineno for f in getattr(reason, "user_stack", None) or []
                  if _same_file(f.filename, case.fn.__code__.co_filename)]
        if frames:
            found.add(frames[-1])
    return found


def produce(*, module: str = corpus.__name__, commit: str | None = None) -> dict[str, Any]:
    cases = list(_cases_of(module).values())
    names = [c.name for c in cases]
    child = start_logging(names, module)  # the truth, in a fresh Python, while this one traces
    try:
        answers = {c.name: (explained_lines(c), torch_lines(c)) for c in cases}
    finally:
        truth = logged_lines(child, names, module)
    rows = []
    for case in cases:
        mine, theirs = answers[case.name]
        rows.append({
            "case": case.name, "file": os.path.basename(case.fn.__code__.co_filename),
            "source": case.source, "logged": sorted(truth[case.name]),
            "explain": sorted(mine), "torch_explain": None if theirs is None else sorted(theirs),
            "agrees": mine == truth[case.name],
            "torch_agrees": theirs == truth[case.name]})
    return kinds.traced(kinds.AGREEMENT, rows, commit)
