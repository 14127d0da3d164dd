"""Freezing set as Inductor's switch, looked at on a CPU, and how the page reads both ways."""

from __future__ import annotations

import pytest
import torch

from snippets.speed import freezing, freezing_findings, tables
from tests import markdown


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
    assert markdown.row(text, "the option alone") == ["`aten::mkldnn_convolution`", "no", "0"]
    # the switch prepacked, the option alone did not
    assert freezing_findings.prepacked(value) is freezing_findings.Prepacked.SWITCH_ONLY
    value[0]["prepacked"] = True
    assert freezing_findings.prepacked(value) is freezing_findings.Prepacked.BOTH
    value[1]["prepacked"] = False
    assert freezing_findings.prepacked(value) is freezing_findings.Prepacked.NEITHER
    assert freezing_findings.prepacked([]) is freezing_findings.Prepacked.NO_ONEDNN
    assert tables.freezing_switch([]) == ""
