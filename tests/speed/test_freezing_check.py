"""The recorded freezing check: three ways timed together, what each replay copies, the page."""

from __future__ import annotations

import torch
from torch import nn

from snippets.speed import runs as speed
from snippets.core import results
from snippets.speed import freezing, freezing_findings, tables
from snippets.speed.__main__ import PROG
from tests import cli_run, markdown

from .test_cli import run_cli

QUICK = {"rounds": 2, "warm_rounds": 0, "sample_ms": 0.01, "warmup": 1}


def conv(batch_size):
    return (nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU()),
            torch.randn(batch_size, 3, 12, 12))


def test_the_three_ways_are_timed_together_on_a_cpu():
    doc = speed.document(speed.SpeedConfig(run="freezing", device="cpu", models=(),
                                           factories=(("conv", conv),), **QUICK))
    assert results.validate(doc, kind=freezing.KIND) and doc["complete"]
    rows = doc["rows"]
    assert [r["point"] for r in rows] == list(freezing.POINTS)
    assert all(r["status"] in ("ok", "noisy") and r["rel_err"] < 1e-4 for r in rows)
    assert rows[0]["speedup"] == 1.0 and all("replay_copy" not in r for r in rows)  # no replays
    assert rows[0]["weights_mb"] > 0 and rows[0]["input_mb"] > 0
    assert torch._inductor.config.freezing is False
    assert "Copied per replay" not in tables.freezing_table(doc)


def test_what_a_replay_copies_is_counted_at_the_foreach_copy():
    dst, src = [torch.zeros(4), torch.zeros(2, 2)], [torch.ones(4), torch.ones(2, 2)]
    seen = freezing.replay_copies(lambda: torch._foreach_copy_(dst, src), calls=2)
    assert seen == {"tensors": 2, "mb": 32 / 2**20}
    assert freezing.replay_copies(lambda: None) is None  # nothing seen: not a count of zero
    assert torch._foreach_copy_ is not None and dst[0].sum() == 4


def test_the_page_reads_the_copies_against_the_weights():
    def row(point, ms, speedup, tensors, mb):
        return {"model": "m", "batch_size": 1, "mode": "reduce-overhead", "point": point,
                "status": "ok", "message": "", "latency_ms": {"median": ms, "iqr": 0.0},
                "speedup": speedup, "replay_copy": {"tensors": tensors, "mb": mb},
                "weights_mb": 49.0, "input_mb": 0.3}

    doc = {"rows": [row("off", 0.46, 1.0, 1, 0.3), row("option", 0.59, 0.78, 268, 49.1),
                    row("switch", 0.45, 1.03, 1, 0.3)]}
    text = tables.freezing_report(doc)
    assert markdown.row(text, "m", 1, "the option alone") == ["0.590 ±0.0%", "0.78",
                                                              "268 (49.1 MiB)", "ok"]
    assert markdown.row(text, "m", 1) == ["0.3", "49"]  # the sizes to read the copies against
    (check,) = freezing_findings.freezing(doc)
    assert (check.copied, check.copied_mib, check.input_mib, check.weights_mib) == (
        1, 0.3, 0.3, 49.0)
    assert not freezing_findings.of_freezing(doc).fastpath_off
    encoder = {"rows": [{**r, "fastpath": False} for r in doc["rows"]]}
    assert freezing_findings.of_freezing(encoder).fastpath_off


def test_the_freezing_run_takes_no_ladder_flags(capsys):
    code, _, err = run_cli(capsys, "--freezing", "--rungs", "freezing")
    cli_run.assert_one_line_error(code, "", err, "--rungs does not apply",
                                  "to --freezing", prog=PROG)


def test_an_encoder_is_checked_without_its_fast_path_as_on_the_ladder():
    def encoder(batch_size):
        layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, batch_first=True)
        return nn.TransformerEncoder(layer, 1, enable_nested_tensor=False), torch.randn(
            batch_size, 5, 16)

    doc = speed.document(speed.SpeedConfig(run="freezing", device="cpu", models=(),
                                           factories=(("enc", encoder),), **QUICK))
    assert all(r["fastpath"] is False and r["status"] in ("ok", "noisy") for r in doc["rows"])
    assert torch.backends.mha.get_fastpath_enabled()
    assert all(not c.fastpath for c in freezing_findings.freezing(doc))
