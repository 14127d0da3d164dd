"""Capture what ``TORCH_LOGS`` prints, by running a small demo in a child process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# "V1130 10:16:43.245000 5484 torch/_dynamo/symbolic_convert.py:5368] [0/0] [__graph_breaks] "
_PREFIX = re.compile(r"^[VIWE]\d{4} [\d:.]+ +\d+ \S+\] (\[[\d/_a-z]+\] )?(\[__\w+\] )?")
_SITE = re.compile(r"[^\s\"'`]*/(?:site|dist)-packages/")
# Dynamo sometimes prints a path without its leading slash, or relative to another folder.
_REPO = re.compile(r"[^\s\"'`]*?" + re.escape(ROOT.name) + r"/(?=(?:snippets|tests|docs)/)")


def clean_path(text: str) -> str:
    """Paths as a reader can follow them: repository-relative, or from the installed package."""
    return _REPO.sub("", _SITE.sub("", text.replace(f"{ROOT}{os.sep}", "")))


def call(fn: Callable[..., Any], *args: Any) -> str:
    """Python code that imports ``fn`` and calls it with ``args`` (each its ``repr``), for a
    child's ``python -c``: named from the function, so a rename fails here and not in the child."""
    return f"from {fn.__module__} import {fn.__name__}; {fn.__name__}({', '.join(map(repr, args))})"


def command(logs: str, code: str) -> str:
    """The shell line a reader types to see ``TORCH_LOGS=logs`` of ``code``."""
    return f'TORCH_LOGS="{logs}" python -c "{code}"'


def start_logged(logs: str, code: str, *,
                 env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """Start ``code`` in a new Python with ``TORCH_LOGS=logs``; ``finish`` collects it."""
    env = {**os.environ, **({"TORCH_LOGS": logs} if logs else {}), **(env or {}),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    # An empty TORCH_LOGS is not "no logs" to torch 2.14: its import fails. Leave it unset.
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)


def finish(proc: subprocess.Popen[str], timeout: float = 300) -> str:
    """What a started child wrote, stderr first, uncleaned; killed if it runs past ``timeout``."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return err + out


def artifact_lines(text: str, artifact: str, keep: str = "") -> str:
    """The lines ``[__<artifact>]`` wrote, without the prefix, and any starting with ``keep``."""
    tag = f"[__{artifact}] "
    out = []
    for line in text.splitlines():
        if tag in line:
            out.append(line.split(tag, 1)[1])
        elif keep and line.startswith(keep):
            out.append(line)
    return "\n".join(out)


def capture(logs: str, code: str, *, max_lines: int = 28, timeout: float = 300,
            keep: str | None = None, env: dict[str, str] | None = None) -> str:
    """``code``'s cleaned ``TORCH_LOGS=logs`` lines, those matching ``keep`` where given."""
    text = finish(start_logged(logs, code, env=env), timeout)
    lines = [clean_path(_PREFIX.sub("", line)).rstrip()
             for line in text.splitlines()]
    if keep:
        lines = [line for line in lines if re.search(keep, line)]
    # Drop the blank runs and the hint-free repetitions that follow a multi-line record.
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    if len(out) > max_lines:
        out = out[:max_lines] + [f"... ({len(out) - max_lines} more lines)"]
    return "\n".join(out).strip("\n")
