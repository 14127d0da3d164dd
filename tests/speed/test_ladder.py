"""The speed ladder and the settings sweep end to end on the CPU, with a tiny model: rows,
ceilings, profile, no compile while timing, and --append's join. No timing is asserted."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from snippets.speed import runs as speed
from snippets.core import backends, examples, results, stamps
from snippets.core import roofline
from snippets.speed import ladder, settings

QUICK = {"rounds": 2, "warm_rounds": 0, "sample_ms": 0.01, "warmup": 1}


def tiny(batch_size):
    return nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 4)), torch.randn(
        batch_size, 16)


@pytest.fixture(autouse=True)
def small_ceilings(monkeypatch):
    monkeypatch.setitem(roofline.SIZES, "cpu", {**roofline.SIZES["cpu"], "matmul_n": 64,
                                                "copy_mib": 1, "reps": 1, "repeats": 2})


@pytest.fixture(scope="module")
def ladder_doc():
    from torch._dynamo.utils import counters

    seen = {}
    timing = ladder.measure.measure_variants

    def counted(*args, **kwargs):  # the frames Dynamo compiled before and after the timing
        seen["before"] = counters["frames"]["ok"]
        out = timing(*args, **kwargs)
        seen["after"] = counters["frames"]["ok"]
        return out

    mp = pytest.MonkeyPatch()
    mp.setattr(ladder.measure, "measure_variants", counted)
    mp.setitem(roofline.SIZES, "cpu", {**roofline.SIZES["cpu"], "matmul_n": 64, "copy_mib": 1,
                                       "reps": 1, "repeats": 2})
    try:
        doc = speed.document(speed.SpeedConfig(device="cpu", models=(), profile_calls=2,
                                               factories=(("tiny", tiny),), **QUICK))
    finally:
        mp.undo()
    return doc, seen


def test_the_ladder_climbs_one_step_at_a_time(ladder_doc):
    doc, _ = ladder_doc
    assert results.validate(doc, kind="bench") and doc["complete"]
    rows = doc["rows"]
    # A 2-D input: no layout step; a CPU: no CUDA graphs; max-autotune not asked for.
    assert [r["mode"] for r in rows] == ["eager", "compile", "+ freezing"]
    assert all(r["status"] in ("ok", "noisy") for r in rows)
    assert rows[0]["speedup_prev"] is None and rows[2]["prev_rung"] == "compile"
    assert rows[2]["rung"] == {"mode": "default", "channels_last": False, "freezing": True,
                               "key": "freezing", "freezing_switch": True}
    assert torch._inductor.config.freezing is False  # the switch is set around calls only
    assert rows[0]["bytes"] == {"weights": (16 * 16 + 16 + 16 * 4 + 4) * 4, "input": 64,
                                "output": 16}


def test_no_rung_is_compiled_again_while_the_ladder_is_timed(ladder_doc):
    _, seen = ladder_doc
    assert seen["before"] == seen["after"]


def test_the_run_records_its_ceilings_and_reads_rows_against_them(ladder_doc):
    doc, _ = ladder_doc
    c = doc["provenance"]["ceilings"]
    assert c["matmul_dtype"] == "fp32" and c["matmul_tflops"] > 0 and c["copy_gbps"] > 0
    assert all(r["pct_of_peak"] > 0 for r in doc["rows"])  # against the fp32 peak on a CPU
    assert roofline.row_reading(doc["rows"][1], c)["bound"] in ("compute", "memory")
    assert doc["provenance"]["settings"]["run"] == "ladder"


def test_the_fastest_rung_and_any_rung_slower_than_the_one_below_are_profiled(ladder_doc):
    doc, _ = ladder_doc
    rows = doc["rows"]
    # Which rungs are slower is the run's timing, not this test's: read from the file.
    slower = [r for r in rows if (r["speedup_prev"] or 1) < 1 - ladder.measure.NOISY_IQR_RATIO]
    fastest = min(rows, key=lambda r: r["latency_ms"]["median"])["mode"]
    expect = {fastest} | {r["mode"] for r in slower} | {r["prev_rung"] for r in slower}
    assert {r["mode"] for r in rows if "profile" in r} == expect
    assert all(r["profile"]["calls"] == 2 and r["profile"]["device_type"] == "cpu"
               for r in rows if "profile" in r)


def test_rungs_by_key_and_freezing_as_an_option_of_its_own_compile():
    image = torch.ones(1, 3, 8, 8)
    cuda = ladder.rungs_for(torch.device("cuda"), image, autotune=True)
    assert [r.name for r in cuda] == ["eager", "compile", "+ channels_last", "+ CUDA graphs",
                                      "+ freezing", "+ max-autotune"]
    assert all(r.fastpath for r in cuda)
    encoder = ladder.rungs_for(torch.device("cuda"), torch.ones(1, 8, 4), autotune=True,
                               encoder=True)
    assert [r.key for r in encoder] == ["eager", "compile", "cuda-graphs", "no-fast-path",
                                        "freezing", "max-autotune"]
    # From the fast path's rung on, every rung keeps it off.
    assert [r.fastpath for r in encoder] == [True, True, True, False, False, False]
    # Autotuning timed as graph replays: asked for by name, on a GPU only.
    timed = ladder.rungs_for(torch.device("cuda"), image, autotune=False, graph_timed=True)
    assert timed[-1].key == "graph-timed-autotune" and timed[-1].graph_timed
    assert not any(r.graph_timed for r in ladder.rungs_for(
        torch.device("cpu"), image, autotune=True, graph_timed=True))
    # Coordinate descent alone, max-autotune's tuning of Inductor's own kernels: by name too,
    # above freezing and below max-autotune.
    descent = ladder.rungs_for(torch.device("cpu"), image, autotune=True, descent=True)
    assert [r.key for r in descent][-3:] == ["freezing", "coordinate-descent", "max-autotune"]
    # Eager captured by hand: a side rung on eager, asked for by name, laid out as the graphs' rung.
    hand = ladder.rungs_for(torch.device("cuda"), image, autotune=False, by_hand=True)
    assert hand[-1].key == "eager-graphed" and hand[-1].mode is None
    assert hand[-1].by_hand and hand[-1].channels_last
    keys = {r.key for r in (*cuda, *encoder, *timed, *descent, *hand)}
    assert [k for k in ladder.KEYS if k in keys] == list(ladder.KEYS)
    calls = []
    real = torch.compile
    try:
        torch.compile = lambda m, **kw: calls.append(kw) or m
        ladder.compile_rung(nn.Linear(1, 1), cuda[-1])
        ladder.compile_rung(nn.Linear(1, 1), descent[-2])
    finally:
        torch.compile = real
    assert calls[0]["options"]["freezing"] is True and calls[0]["options"]["max_autotune"]
    assert "coordinate_descent_tuning" in calls[0]["options"]  # the mode's own
    assert calls[1]["options"]["coordinate_descent_tuning"] is True
    assert not calls[1]["options"].get("max_autotune")


@pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="a CPU build without oneDNN")
def test_a_frozen_rung_on_a_cpu_calls_prepacked_convolutions():
    # With freezing on while Dynamo traces, the weights are constants, and Inductor hands each
    # convolution to oneDNN with its weights packed once (the mkldnn:: operators).
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU()).eval()
    x = torch.randn(2, 3, 12, 12)
    rung = ladder.Rung("+ freezing", "default", channels_last=True, freezing=True)
    torch._dynamo.reset()
    with torch.no_grad(), ladder.frozen(True):
        built = ladder.build(rung, model, x, examples.reference(model(x)), torch.device("cpu"))
        with torch.profiler.profile() as prof:
            built.fn()
    assert built.rel_err < 1e-4
    assert any(e.key.startswith("mkldnn::") for e in prof.key_averages())


def test_the_settings_sweep_times_each_point_of_each_mode():
    doc = speed.document(speed.SpeedConfig(run="settings", device="cpu", models=(),
                                           modes=("eager",), factories=(("tiny", tiny),),
                                           **QUICK))
    assert results.validate(doc, kind=settings.KIND) and doc["complete"]
    # fp32: cudnn.benchmark and TF32 off and on, eager's answer checked at each
    assert [r["point"] for r in doc["rows"]] == [settings.label(b, "fp32")
                                                 for b in settings.grid("fp32")]
    assert doc["rows"][0]["speedup"] == 1.0 and all(r["latency_ms"] for r in doc["rows"])
    assert all(r["rel_err"] < 1e-2 for r in doc["rows"])
    assert set(settings.chosen(doc)) == {"eager"}


def test_a_ladder_applies_the_settings_chosen_per_mode():
    chosen = backends.BackendSettings(cudnn_benchmark=True)
    cfg = speed.SpeedConfig(device="cpu", models=(), factories=(("tiny", tiny),),
                            rungs=("compile",), profile_calls=0,
                            mode_backends=(("default", chosen),),
                            backends_evidence={"from": {"date": "d"}}, **QUICK)
    doc = speed.document(cfg)
    eager, compiled = doc["rows"]
    assert compiled["backends"]["cudnn_benchmark"] is True
    assert eager["backends"]["cudnn_benchmark"] is False  # eager had no evidence: the default
    assert doc["provenance"]["settings"]["backends_evidence"] == {"from": {"date": "d"}}
    assert not torch.backends.cudnn.benchmark  # restored after the run


def test_append_keeps_recorded_rows_and_adds_the_top_rung_beside_its_own_eager(ladder_doc):
    doc, _ = ladder_doc
    settings = {**doc["provenance"]["settings"], "rungs": ["freezing", "max-autotune"]}
    later = {**doc, "provenance": {**doc["provenance"], "date": "later", "settings": settings},
             "rows": [{**r} for r in doc["rows"][::2]]}  # eager and freezing again
    later["rows"].append({**doc["rows"][1], "mode": "+ max-autotune",
                          "rung": {**doc["rows"][1]["rung"], "key": "max-autotune"}})
    first = {**doc, "rows": doc["rows"][:2]}  # as if freezing had not been recorded
    joined = speed.join(first, later)
    # The later command's eager row and rung below stay beside its top rung: its ratios.
    assert [r["mode"] for r in joined["rows"]] == ["eager", "compile", "eager", "+ freezing",
                                                   "+ max-autotune"]
    assert [r["part"] for r in joined["rows"]] == [0, 0, 1, 1, 1]
    assert [p["date"] for p in joined["provenance"]["parts"]] == [doc["provenance"]["date"],
                                                                  "later"]
    # The same command again replaces its block; the first command's stays.
    again = speed.join(joined, {**later, "provenance": {**later["provenance"], "date": "again"}})
    assert [r["part"] for r in again["rows"]] == [0, 0, 2, 2, 2]


def test_append_of_a_whole_ladder_measured_again_replaces_its_rows(ladder_doc):
    doc, _ = ladder_doc
    assert not doc["provenance"]["settings"].get("rungs")  # the whole ladder
    later = {**doc, "provenance": {**doc["provenance"], "date": "later", "commit": "b" * 40},
             "rows": [{**r, "latency_ms": {"median": 1.0}} for r in doc["rows"]]}
    joined = speed.join(doc, later)
    assert {r["part"] for r in joined["rows"]} == {1}
    assert all(r["latency_ms"] == {"median": 1.0} for r in joined["rows"])
    # The stamp names the commands whose rows the file holds, not the one replaced.
    assert "commit bbbbbbbbbbbb" in stamps.stamp(joined)


def test_append_refuses_another_device_or_setting(ladder_doc):
    doc, _ = ladder_doc
    other = {**doc["provenance"], "device": "NVIDIA H200"}
    with pytest.raises(results.ResultsError, match="device"):
        speed.check_joinable(doc, other)
    other = {**doc["provenance"], "settings": {**doc["provenance"]["settings"], "dtype": "bf16"}}
    with pytest.raises(results.ResultsError, match="dtype"):
        speed.check_joinable(doc, other)


def test_an_image_model_climbs_the_layout_rung_without_compiling_while_timed():
    from torch._dynamo.utils import counters

    def conv(batch_size):
        return nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(),
                             nn.Conv2d(8, 4, 3)), torch.randn(batch_size, 3, 12, 12)

    timing, seen = ladder.measure.measure_variants, []

    def counted(*args, **kwargs):
        before = counters["frames"]["ok"]
        out = timing(*args, **kwargs)
        seen.append(counters["frames"]["ok"] - before)
        return out

    mp = pytest.MonkeyPatch()
    mp.setattr(ladder.measure, "measure_variants", counted)
    start = counters["frames"]["ok"]
    try:
        with torch.no_grad():
            rows = list(ladder.climb("conv", conv, 2, device=torch.device("cpu"),
                                     dtype=torch.float32, autotune=False, tolerance=1e-2,
                                     **QUICK))
    finally:
        mp.undo()
    assert [r["rung"]["key"] for r in rows] == ["eager", "compile", "channels-last", "freezing"]
    assert all(r["status"] in ("ok", "noisy") for r in rows) and seen == [0]
    assert rows[3]["rung"]["channels_last"] and rows[3]["rel_err"] < 1e-4
    # Each compiled rung is a compile of its own: the frozen one is not served the code Dynamo
    # compiled for the rung below it.
    assert counters["frames"]["ok"] - start == 3


def test_a_slower_rung_keeps_the_profile_of_the_rung_below_from_its_own_run():
    # Timings made up so that freezing is plainly slower than compile: both are profiled, and the
    # freezing row carries compile's profile, which a joined file may not keep beside it.
    def timed(fns, device, **_):
        ms = {"eager": 10.0, "compile": 5.0, "+ freezing": 8.0}
        return ladder.measure.Timed({k: ladder.measure.Measurement((ms[k],) * 3) for k in fns},
                                    {k: 1 for k in fns})

    mp = pytest.MonkeyPatch()
    mp.setattr(ladder.measure, "measure_variants", timed)
    try:
        with torch.no_grad():
            rows = list(ladder.climb("tiny", tiny, 2, device=torch.device("cpu"),
                                     dtype=torch.float32, autotune=False, tolerance=1e-2,
                                     profile_calls=2, **QUICK))
    finally:
        mp.undo()
    compiled, frozen_row = rows[1], rows[2]
    assert frozen_row["speedup_prev"] == pytest.approx(5 / 8)
    assert "profile" in compiled and "profile" in frozen_row
    assert frozen_row["below_profile"] == compiled["profile"]
    assert "below_profile" not in compiled


def test_an_encoder_climbs_a_rung_without_its_fast_path():
    from torch._dynamo.utils import counters

    def encoder(batch_size):
        layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, batch_first=True)
        return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), torch.randn(
            batch_size, 5, 16)

    start = counters["frames"]["ok"]
    with torch.no_grad():
        rows = list(ladder.climb("enc", encoder, 2, device=torch.device("cpu"),
                                 dtype=torch.float32, autotune=False, tolerance=1e-2, **QUICK))
    assert [r["rung"]["key"] for r in rows] == ["eager", "compile", "no-fast-path", "freezing"]
    assert [r["rung"].get("fastpath", True) for r in rows] == [True, True, False, False]
    assert all(r["status"] in ("ok", "noisy") and r["rel_err"] < 1e-4 for r in rows)
    assert counters["frames"]["ok"] - start == 3  # a compile of its own for each compiled rung
    assert torch.backends.mha.get_fastpath_enabled()  # set around the rung's calls only


def test_coordinate_descent_is_climbed_when_asked_for_by_name():
    with torch.no_grad():
        rows = list(ladder.climb("tiny", tiny, 2, device=torch.device("cpu"),
                                 dtype=torch.float32, autotune=False, tolerance=1e-2,
                                 only=("freezing", "coordinate-descent"), **QUICK))
    assert [r["rung"]["key"] for r in rows] == ["eager", "freezing", "coordinate-descent"]
    assert rows[2]["prev_rung"] == "+ freezing" and rows[2]["status"] in ("ok", "noisy")


def test_the_hand_captured_rung_is_a_row_that_says_why_not_on_a_cpu():
    with torch.no_grad():
        rows = list(ladder.climb("tiny", tiny, 2, device=torch.device("cpu"),
                                 dtype=torch.float32, autotune=False, tolerance=1e-2,
                                 only=("compile", "eager-graphed"), **QUICK))
    assert [r["mode"] for r in rows] == ["eager", "compile", "eager, graphed by hand"]
    assert rows[1]["status"] in ("ok", "noisy")
    assert rows[2]["status"] == "unsupported" and "CUDA" in rows[2]["message"]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_the_hand_captured_rung_stands_on_eager_and_matches_it():
    with torch.no_grad():
        rows = list(ladder.climb("tiny", tiny, 2, device=torch.device("cuda"),
                                 dtype=torch.float32, autotune=False, tolerance=1e-2,
                                 only=("compile", "cuda-graphs", "eager-graphed"), **QUICK))
    assert [r["mode"] for r in rows if r["status"] not in ("ok", "noisy")] == [], \
        [(r["mode"], r["status"], r.get("message")) for r in rows]
    assert [r["rung"]["key"] for r in rows] == ["eager", "compile", "cuda-graphs",
                                                "eager-graphed"]
    hand = rows[-1]
    assert hand["status"] in ("ok", "noisy") and hand["rel_err"] <= 1e-2
    assert hand["prev_rung"] == "eager" and hand["rung"]["by_hand"]
    assert rows[2]["prev_rung"] == "compile"  # the chain goes on past the side rung
