"""The TF32 lines the Speed settings and Diagnose pages show, on the installed torch."""

from __future__ import annotations

import pytest
import torch

from snippets.speed import tf32


def test_the_shown_lines_turn_both_switches_to_tf32_and_restore():
    before = tf32.switches()
    assert before["conv"] == "tf32"  # cuDNN convolutions: TF32 by default
    with tf32.restored():
        tf32.tf32_on()
        assert tf32.switches() == {"matmul": "tf32", "conv": "tf32"}
        with pytest.raises(RuntimeError):  # the older API, once the new one is set
            torch.get_float32_matmul_precision()
    assert tf32.switches() == before
    assert torch.get_float32_matmul_precision() in ("highest", "high", "medium")
