"""Freezing set as Inductor's switch, looked at on a CPU, and how the page reads both ways."""

from __future__ import annotations

import pytest
import torch

from snippets.speed import evidence, freezing, tables


@pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="a CPU build without oneDNN")
def test_freezing_as_the_switch_prepacks_the_convolutions_and_leaves_no_switch_on():
    seen = freezing.compiled_ops("switch")
    assert seen["prepacked"] and seen["rel_err"] < 1e-4
    assert all(op.startswith("mkldnn::") for op in seen["ops"])
    assert torch._inductor.config.freezing is False


def test_the_page_says_what_the_two_ways_ran():
    value = [{"way": "option", "ops": ["aten::_convolution", "aten::convolution",
                                       "aten::mkldnn_convolution"], "prepacked": False,
              "rel_err": 0.0},
             {"way": "switch", "ops": ["mkldnn::_convolution_pointwise"], "prepacked": True,
              "rel_err": 3e-7}]
    text = tables.freezing_switch(value)
    assert "| the option alone | `aten::mkldnn_convolution` | no | 0 |" in text
    assert "As an option, freezing never reached the graph" in text
    value[0]["prepacked"] = True
    assert "both ways froze the weights" in tables.freezing_switch(value)
    assert "no oneDNN" in tables.freezing_switch([])


def test_a_frozen_row_recorded_with_the_option_says_so():
    profile = {"device_type": "cuda", "top": [
        {"name": "void at::native::multi_tensor_apply_kernel<x>", "us_per_call": 81.3}]}
    row = {"rung": {"freezing": True}, "profile": profile}
    line = evidence._as_option(row)
    assert "asked for freezing as a compile option alone" in line
    assert "(its profile: `multi_tensor_apply_kernel`, 81.3 µs a call)" in line
    assert evidence._as_option({"rung": {"freezing": True, "freezing_switch": True}}) == ""
    assert evidence._as_option({"rung": {"freezing": False}}) == ""


def test_what_to_try_first_marks_steps_measured_with_the_option_alone():
    def row(mode, prev, **rung):
        return {"mode": mode, "speedup_prev": prev, "status": "ok", "rung": rung}

    doc = {"rows": [row("compile", 2.0), row("+ freezing", 0.9, freezing=True)]}
    text = tables.try_first(doc)
    assert text.splitlines()[1].startswith("2. `+ freezing`: 0.90×")
    assert "compile option alone" in text.splitlines()[1]
    doc["rows"][1]["rung"]["freezing_switch"] = True
    assert "compile option" not in tables.try_first(doc)
