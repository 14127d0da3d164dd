"""``cpu_train_run``: a real results file from ``python -m snippets.train`` on this machine's CPU,
made once per test session: the tiny CNN at batch 4, every CPU variant, five steps, in about half
a minute on two cores. Tests that need a genuine training document use it; none writes numbers
into one by hand."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
QUICK = ["--device", "cpu", "--steps", "5", "--rounds", "3", "--warm-rounds", "0"]


@pytest.fixture(scope="session")
def cpu_train_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("train-run") / "train.json"
    proc = subprocess.run(
        [sys.executable, "-m", "snippets.train", "--models", "tiny-cnn", "--batch-sizes", "4",
         *QUICK, "--output", str(out), "--format", "json"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out
