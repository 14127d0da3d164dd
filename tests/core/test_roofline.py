"""The ceilings measured on this CPU (their schema) and the roofline reading's arithmetic."""

from __future__ import annotations

import pytest
import torch

from snippets.core import roofline

CEIL = {"matmul_tflops": 100.0, "copy_gbps": 1000.0}


def test_a_compute_bound_row():
    # 2 TFLOP at 100 TFLOP/s is 20 ms; 1 GB at 1000 GB/s is 1 ms; measured 40 ms.
    read = roofline.reading(2e12, {"weights": 5e8, "input": 4e8, "output": 1e8}, 40.0, CEIL)
    assert read["compute_ms"] == pytest.approx(20.0) and read["memory_ms"] == pytest.approx(1.0)
    assert read["bound"] == "compute" and read["bound_ms"] == pytest.approx(20.0)
    assert read["of_roofline"] == pytest.approx(0.5)
    assert read["intensity"] == pytest.approx(2000.0) and read["ridge"] == pytest.approx(100.0)


def test_a_memory_bound_row():
    read = roofline.reading(1e9, {"weights": 4e9, "input": 0, "output": 0}, 8.0, CEIL)
    assert read["bound"] == "memory" and read["bound_ms"] == pytest.approx(4.0)
    assert read["of_roofline"] == pytest.approx(0.5)


@pytest.mark.parametrize("missing", ["flops", "bytes", "latency", "ceilings"])
def test_no_reading_without_what_it_needs(missing):
    row = {"flops": 1e9, "bytes": {"weights": 1}, "latency_ms": {"median": 1.0}}
    ceil = None if missing == "ceilings" else CEIL
    if missing == "latency":
        row["latency_ms"] = None
    elif missing != "ceilings":
        row[missing] = None
    assert roofline.row_reading(row, ceil) is None


def test_min_bytes_counts_weights_input_and_output_once():
    x, out = torch.ones(2, 3), torch.ones(2, dtype=torch.bfloat16)
    assert roofline.min_bytes(100, x, out) == {"weights": 100, "input": 24, "output": 4}


def test_ceilings_on_this_cpu_record_every_sample():
    c = roofline.ceilings(torch.device("cpu"), matmul_n=64, copy_mib=1, reps=1, repeats=2)
    assert c["matmul_dtype"] == "fp32" and c["matmul_n"] == 64
    assert len(c["matmul_samples"]) == 2 and len(c["copy_samples"]) == 2
    assert c["matmul_tflops"] > 0 and c["copy_gbps"] > 0
