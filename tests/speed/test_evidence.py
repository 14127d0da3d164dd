"""The sentences that explain a surprising ladder row, on made-up documents: a gain within the
spread, an eager rung that runs the transformer's fast path, a frozen rung that calls plain
convolutions, and a first compile longer than the rest."""

from __future__ import annotations

from snippets.speed import evidence, tables

from .docs_fixtures import doc, row

CPU = {"device": "CPU: x", "dtype": "fp32"}


def _profile(name: str, share: float, count: float) -> dict:
    return {"calls": 3, "kernels_per_call": count, "launches_per_call": 0.0,
            "span_us_per_call": 100.0, "busy_us_per_call": 90.0, "idle_fraction": 0.1,
            "device_type": "cpu",
            "top": [{"name": name, "us_per_call": 90.0, "count_per_call": count,
                     "share": share}]}


def _ladder(step_ms: tuple[float, ...], **best: object) -> dict:
    """eager at 10 ms (IQR 0), compile at 10 ms, then '+ channels_last' at ``step_ms``."""
    rungs = [row("resnet50", 1, "eager", (10.0, 10.0, 10.0), speedup=1.0),
             row("resnet50", 1, "compile", (10.0, 10.0, 10.0), speedup=1.0, speedup_prev=1.0,
                 prev_rung="eager", compile_s=30.0, rel_err=1e-7),
             row("resnet50", 1, "+ channels_last", step_ms, speedup=10 / sorted(step_ms)[1],
                 speedup_prev=10 / sorted(step_ms)[1], prev_rung="compile", compile_s=5.0,
                 rel_err=1e-7, **best)]
    return doc("bench", rungs, **CPU)


def test_a_gain_within_the_spread_of_its_rows_is_hedged() -> None:
    # 8 ms against 10: a 25 % gain; its samples 6..10 ms are an IQR of 50 % of the median
    wide = tables.findings(_ladder((6.0, 8.0, 10.0)))
    assert "the step that buys most is `+ channels_last` (1.25× over `compile`)" in wide
    assert "within the spread of the two rows (IQR 50.0 % and 0.0 %" in wide
    narrow = tables.findings(_ladder((8.0, 8.0, 8.0)))
    assert "(1.25× over `compile`)" in narrow and "within the spread" not in narrow


def test_an_eager_fast_path_is_named_with_what_the_compiled_rungs_returned() -> None:
    rows = [row("transformer", 1, "eager", (10.0, 10.0, 10.0), speedup=1.0,
                profile=_profile(evidence.FASTPATH_OP, 0.9, 6.0)),
            row("transformer", 1, "compile", (11.0, 11.0, 11.0), speedup=10 / 11,
                speedup_prev=10 / 11, prev_rung="eager", compile_s=1.0, rel_err=0.0)]
    out = tables.findings(doc("bench", rows, **CPU))
    assert "fastest is `eager`; eager's profile: `aten::_transformer_encoder_layer_fwd` " \
           "holds 90 % of the wall time, 6 calls a call" in out
    assert "(../graph-breaks/#what-the-one-graph-contains-the-fast-path)" in out
    assert "bit for bit (rel err 0) and run at 0.91× eager's speed" in out


def test_a_frozen_rung_that_calls_plain_convolutions_says_so() -> None:
    frozen = {"mode": "default", "channels_last": True, "freezing": True, "key": "freezing"}
    plain = _ladder((8.0, 8.0, 8.0), rung=frozen,
                    profile=_profile("aten::convolution", 0.8, 53.0))
    assert "no prepacked `mkldnn::` operator: `aten::convolution` holds 80 %" in \
        tables.findings(plain)
    packed = _ladder((8.0, 8.0, 8.0), rung=frozen,
                     profile=_profile("mkldnn::_convolution_pointwise", 0.8, 53.0))
    assert "oneDNN's prepacked `mkldnn::_convolution_pointwise`, 80 %" in tables.findings(packed)


def test_a_first_compile_longer_than_the_rest_is_explained_once() -> None:
    out = evidence.first_compile(_ladder((8.0, 8.0, 8.0)))
    assert "(resnet50 at batch 1, `compile` 30.0 s against 5.0 s for the rungs after it" in out
    assert "one process" in out
    d = _ladder((8.0, 8.0, 8.0))
    d["rows"][2]["compile_s"] = 25.0  # within 1.5 times: nothing to explain
    assert evidence.first_compile(d) == ""


def test_a_cpu_ceiling_is_a_memory_copy() -> None:
    ceil = {"matmul_n": 8, "matmul_dtype": "fp32", "copy_mib": 4, "matmul_tflops": 1.0,
            "matmul_samples": [1.0], "copy_gbps": 2.0, "copy_samples": [2.0]}
    d = _ladder((8.0, 8.0, 8.0))
    d["provenance"]["ceilings"] = ceil
    assert "4 MiB memory copy" in tables.ceilings(d)
    d["provenance"]["device_type"] = "cuda"
    assert "4 MiB device-to-device copy" in tables.ceilings(d)


def test_a_step_that_makes_the_ladder_slower_says_what_its_profile_changed() -> None:
    slow = _ladder((12.5, 12.5, 12.5))  # 10 ms, then 12.5: 0.80× the rung below
    assert "`+ channels_last` runs at 0.80× the speed of the rung below it, `compile`; the " \
           "run profiled only its fastest rung" in tables.findings(slow)
    for r, kernels in zip(slow["rows"][1:], (100.0, 140.0), strict=True):
        r["profile"] = _profile("k", 0.5, kernels)
    line = evidence.slower_steps(slow)
    assert "its profile counts 140 kernels a call against 100" in line
    assert "idle 10 % of the time against 10 %" in line
    assert evidence.slower_steps(_ladder((8.0, 8.0, 8.0))) == ""


def test_a_slower_step_is_read_against_the_rung_below_of_its_own_command() -> None:
    slow = _ladder((12.5, 12.5, 12.5))
    compiled, top = slow["rows"][1:]
    compiled["profile"] = _profile("k", 0.5, 100.0)
    top.update(part=1, profile=_profile("k", 0.5, 140.0))
    # The file's rung below came from another command: its profile does not pair with this one.
    assert "the file holds its profile, but not the rung below's" in evidence.slower_steps(slow)
    top["below_profile"] = _profile("k", 0.5, 120.0)  # as the top rung's command profiled it
    assert "its profile counts 140 kernels a call against 120" in evidence.slower_steps(slow)


def test_a_row_added_by_another_command_says_its_ratios_are_from_its_own_rounds() -> None:
    ladder = _ladder((12.5, 12.5, 12.5))
    assert evidence.other_commands(ladder) == ""
    top = ladder["rows"][-1]
    top["part"] = 1  # added by a later command, timed against eager and the rung below anew
    line = evidence.other_commands(ladder)
    assert f"`{top['model']} · {top['batch_size']} · {top['mode']}`" in line
    assert line.count("`") == 2 and "like-for-like" in line
    assert line in tables.ladder_report(ladder)


def _tuned(key: str, ratio: float, library_chosen: int, **fields: object) -> dict:
    op = {"op": "addmm", "sizes": [], "candidates": 20,
          "library": {"name": "addmm", "ms": 0.02, "kernel_ms": None},
          "template": {"name": "triton_mm_1", "ms": 0.01, "kernel_ms": None}}
    ops = [{**op, "chosen": "library" if i < library_chosen else "template"} for i in range(4)]
    mode = "+ max-autotune" if key == "max-autotune" else "+ graph-timed autotune"
    return row("transformer", 32, mode, (1.0, 1.0, 1.0), speedup=3.0, speedup_prev=ratio,
               prev_rung="+ freezing", rung={"mode": "max-autotune", "key": key},
               autotune=ops, **fields)


def test_autotuned_rungs_are_read_with_their_kernel_split_and_both_ways_of_timing() -> None:
    def split(mm: float, rest: float) -> dict:
        return {**_profile("k", 0.5, 70.0), "by_class": {"matmul": mm, "triton": rest}}

    ladder = doc("bench", [
        _tuned("max-autotune", 0.87, 0, profile=split(400.0, 200.0),
               below_profile=split(340.0, 170.0)),
        _tuned("graph-timed-autotune", 0.95, 3)], **CPU)
    text = evidence.autotuned(ladder)
    assert text.startswith("1 of the 2 autotuned rungs in this file run slower")
    assert "take 400.0 µs a call against 340.0 in the rung below, its other kernels 200.0 µs " \
           "against 170.0." in text
    assert "timed as replays, autotuning chose the library kernel for 3 of 4 operators, " \
           "against 0 of 4 by its own timer, and the rung runs at 0.95× the speed of " \
           "`+ freezing`, against 0.87×." in text
    assert "Coordinate-descent" not in text and "while it tuned" not in text
    profiled = {**_tuned("max-autotune", 0.87, 0, profile=split(400.0, 200.0),
                         below_profile=split(340.0, 170.0))}
    profiled["autotune"] = [{**op, "retimed_by": "profiler",
                             "library": {**op["library"], "kernel_ms": 0.012},
                             "template": {**op["template"], "kernel_ms": 0.010}}
                            for op in profiled["autotune"]]
    assert "against 170.0; while it tuned, the profiler read the kernels it chose at 40.0 µs " \
           "a call in all, and the library's at 48.0." in evidence.autotuned(
               doc("bench", [profiled], **CPU))
    assert evidence.autotuned(doc("bench", [], **CPU)) == "This file holds no autotuned rung."


def test_coordinate_descent_alone_is_read_beside_the_autotuned_rungs_of_its_ladder() -> None:
    descent = row("transformer", 32, "+ coordinate descent", (1.0, 1.0, 1.0), speedup=3.0,
                  speedup_prev=1.03, prev_rung="+ freezing",
                  rung={"mode": "reduce-overhead", "key": "coordinate-descent"})
    other = {**descent, "batch_size": 1, "speedup_prev": 0.99}
    text = evidence.autotuned(doc("bench", [
        descent, other, _tuned("max-autotune", 0.87, 0),
        _tuned("graph-timed-autotune", 0.95, 3)], **CPU))
    assert "- **transformer at batch 32**: 1.03× the speed of `+ freezing`, where " \
           "`+ max-autotune` runs at 0.87× and `+ graph-timed autotune` runs at 0.95×." in text
    assert "- **transformer at batch 1**: 0.99× the speed of `+ freezing`." in text
