"""Fixtures shared across test modules, and the ``gpu`` marker's skip.

A test marked ``gpu`` runs only with ``-m gpu`` (the default run leaves it out, see pyproject.toml)
and is skipped on a machine without CUDA even then.

``cpu_bench_run``: a real results file from ``python -m snippets.bench`` on this machine's CPU, made
once per test session with a two-layer model (``tests/site_models.py``) in about fifteen seconds.
Use it wherever a test needs a genuine bench document; never write numbers into one by hand.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def cpu_bench_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cpu-run") / "bench.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # so tests.site_models imports from anywhere
    proc = subprocess.run(
        [sys.executable, "-m", "snippets.bench", "--device", "cpu",
         "--model", "tests.site_models:mlp", "--rounds", "3", "--output", str(out),
         "--format", "json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


@pytest.fixture
def fresh_dynamo():
    """Dynamo's caches and counters emptied before and after a test, so no test sees another's
    compiled frames or recompile counts."""
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
