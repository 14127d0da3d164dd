"""The accuracy minifier on a compiled model that gives wrong answers, run for real: Inductor is
given a bug on purpose (``cpp.inject_relu_bug_TESTING_ONLY = "accuracy"``, as PyTorch's own
minifier tests do), which makes its C++ for a ReLU wrong. It takes minutes, so the page shows a
recorded run (``python -m snippets.debug``)."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch

from snippets.core import measure, process, results
from snippets.debug import kinds

KIND = kinds.MINIFIER.name

# The script run, as a file a user would run: its shown part is on the page.
WRONG_ANSWER = Path(__file__).with_name("wrong_answer.py")

# What to set before running it, and why: the page shows these as export lines.
MINIFY_ENV = {"TORCHDYNAMO_REPRO_AFTER": "aot", "TORCHDYNAMO_REPRO_LEVEL": "4"}
WHY = {"TORCHDYNAMO_REPRO_AFTER": "check each graph after AOTAutograd",
       "TORCHDYNAMO_REPRO_LEVEL": "4: minify a mismatch with eager"}


def exports() -> str:
    """The variables as a shell sets them, for the page."""
    return "\n".join(f"export {k}={v}  # {WHY[k]}" for k, v in MINIFY_ENV.items())


def _run(args: list[str], cwd: Path, timeout: float) -> tuple[subprocess.CompletedProcess, float]:
    env = process.child_env(**MINIFY_ENV)
    watch = measure.Stopwatch(torch.device("cpu"))
    with watch:
        proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=timeout)
    return proc, watch.seconds


def _forward(repro: str) -> str:
    """The ``forward`` of the minified graph, the part of repro.py that names the culprit."""
    found = re.search(r"    def forward\(.*?(?=\n\S|\n    def |\Z)", repro, flags=re.S)
    return found.group(0).strip("\n") if found else ""


def run(*, timeout: float = 900) -> dict[str, Any]:
    """Detect, then minify, in a scratch folder; one row with what each step found."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        detect, detect_s = _run([sys.executable, str(WRONG_ANSWER)], work, timeout)
        # The last error the compile raised, by its class name: AccuracyError, on a mismatch.
        errors = re.findall(r"^(?:[\w.]+\.)?(\w+Error: .*)$", detect.stderr, flags=re.M)
        launchers = sorted(work.glob("torch_compile_debug/*/minifier/minifier_launcher.py"))
        row: dict[str, Any] = {"error": errors[-1] if errors else "", "detect_s": detect_s,
                               "launcher": bool(launchers), "minify_s": None,
                               "nodes_before": None, "nodes_after": None, "queries": None,
                               "repro_forward": ""}
        if launchers:
            minify, row["minify_s"] = _run([sys.executable, str(launchers[0])], work, timeout)
            log = minify.stdout + minify.stderr
            before = re.search(r"Started off with (\d+) nodes", log)
            after = re.findall(r"checkpoint with (\d+) nodes", log)
            queries = re.search(r"Made (\d+) queries", log)
            row["nodes_before"] = int(before.group(1)) if before else None
            row["nodes_after"] = int(after[-1]) if after else None
            row["queries"] = int(queries.group(1)) if queries else None
            repro = work / "repro.py"
            row["repro_forward"] = _forward(repro.read_text()) if repro.exists() else ""
        return row


def produce(*, commit: str | None = None) -> dict[str, Any]:
    settings = {"repro_after": MINIFY_ENV["TORCHDYNAMO_REPRO_AFTER"],
                "repro_level": int(MINIFY_ENV["TORCHDYNAMO_REPRO_LEVEL"]),
                "injected": "cpp.inject_relu_bug_TESTING_ONLY=accuracy"}
    doc = results.new_document(KIND, results.provenance(torch.device("cpu"), settings,
                                                         commit=commit))
    doc["rows"].append(run())
    doc["complete"] = True
    return doc
