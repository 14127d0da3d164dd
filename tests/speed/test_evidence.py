"""The evidence for a surprising ladder row, as findings on made-up documents: a gain within the
spread, an eager rung that runs the transformer's fast path, a frozen rung that calls plain
convolutions, a first compile longer than the rest, slower steps and autotuned rungs."""

from __future__ import annotations

import math

from snippets.speed import autotune_findings, evidence, findings, findings_tables, tables
from snippets.speed.evidence import Packed, Profiled
from snippets.speed.findings import Step
from tests import markdown

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
    step = findings.ladders(_ladder((6.0, 8.0, 10.0))).ladders[0].step
    assert (step.mode, step.below, step.verdict) == ("+ channels_last", "compile", Step.BUYS)
    assert math.isclose(step.speedup, 1.25) and step.spreads == (50.0, 0.0)
    narrow = findings.ladders(_ladder((8.0, 8.0, 8.0))).ladders[0].step
    assert narrow.verdict is Step.BUYS and narrow.spreads is None
    flat = findings.ladders(_ladder((9.8, 9.8, 9.8))).ladders[0].step
    assert flat.verdict is Step.NONE


def test_an_eager_fast_path_is_named_with_what_the_compiled_rungs_returned() -> None:
    rows = [row("transformer", 1, "eager", (10.0, 10.0, 10.0), speedup=1.0,
                profile=_profile(evidence.FASTPATH_OP, 0.9, 6.0)),
            row("transformer", 1, "compile", (11.0, 11.0, 11.0), speedup=10 / 11,
                speedup_prev=10 / 11, prev_rung="eager", compile_s=1.0, rel_err=0.0)]
    found = findings.ladders(doc("bench", rows, **CPU))
    assert found.fastpath and not found.unpacked and found.noise_pct == 100 * findings.NOISE
    ladder = found.ladders[0]
    assert ladder.mode == "eager" and ladder.speedup is None
    e = ladder.eager
    assert e.fastpath and e.bit_exact and e.top.name == evidence.FASTPATH_OP
    assert math.isclose(e.top.share_pct, 90.0) and e.top.count_per_call == 6.0
    assert math.isclose(e.compiled.low, 10 / 11) and e.compiled.low == e.compiled.high


def test_a_frozen_rung_shows_whether_it_called_plain_convolutions() -> None:
    frozen = {"mode": "default", "channels_last": True, "freezing": True, "key": "freezing"}
    plain = _ladder((8.0, 8.0, 8.0), rung=frozen,
                    profile=_profile("aten::convolution", 0.8, 53.0))
    assert findings.ladders(plain).unpacked and not findings.ladders(plain).fastpath
    found = findings.ladders(plain).ladders[0].frozen
    assert found.packed is Packed.PLAIN and math.isclose(found.kernel.share_pct, 80.0)
    packed = _ladder((8.0, 8.0, 8.0), rung=frozen,
                     profile=_profile("mkldnn::_convolution_pointwise", 0.8, 53.0))
    assert findings.ladders(packed).prepacked and not findings.ladders(packed).unpacked
    found = findings.ladders(packed).ladders[0].frozen
    assert found.packed is Packed.PREPACKED
    assert found.kernel.name == "mkldnn::_convolution_pointwise"


def test_a_first_compile_longer_than_the_rest_is_found() -> None:
    (first,) = evidence.first_compiles(_ladder((8.0, 8.0, 8.0)))
    assert (first.model, first.batch, first.mode, first.first_s) == ("resnet50", 1, "compile",
                                                                      30.0)
    assert (first.later_s.low, first.later_s.high) == (5.0, 5.0)
    d = _ladder((8.0, 8.0, 8.0))
    d["rows"][2]["compile_s"] = 25.0  # within 1.5 times: nothing to explain
    assert evidence.first_compiles(d) == ()


def test_a_cpu_ceiling_is_a_memory_copy() -> None:
    ceil = {"matmul_n": 8, "matmul_dtype": "fp32", "copy_mib": 4, "matmul_tflops": 1.0,
            "matmul_samples": [1.0], "copy_gbps": 2.0, "copy_samples": [2.0]}
    d = _ladder((8.0, 8.0, 8.0))
    assert findings.ladders(d).ceilings is None and tables.ceilings(d) == ""
    d["provenance"]["ceilings"] = ceil
    c = findings.ladders(d).ceilings
    assert (c.matmul_n, c.copy_mib, c.samples, c.device_copy) == (8, 4, 1, False)
    assert markdown.row(tables.ceilings(d), "memory copy")[0].startswith("4 MiB")
    d["provenance"]["device_type"] = "cuda"
    assert findings.ladders(d).ceilings.device_copy
    assert markdown.row(tables.ceilings(d), "device-to-device copy")[0].startswith("4 MiB")


def test_a_step_that_makes_the_ladder_slower_carries_both_profiles() -> None:
    slow = _ladder((12.5, 12.5, 12.5))  # 10 ms, then 12.5: 0.80× the rung below
    (s,) = findings.ladders(slow).slower
    assert (s.mode, s.below, s.profiled) == ("+ channels_last", "compile", Profiled.NEITHER)
    assert math.isclose(s.ratio, 0.8)
    for r, kernels in zip(slow["rows"][1:], (100.0, 140.0), strict=True):
        r["profile"] = _profile("k", 0.5, kernels)
    (s,) = evidence.slower_steps(slow)
    assert s.profiled is Profiled.BOTH and (s.mine.kernels, s.theirs.kernels) == (140.0, 100.0)
    assert math.isclose(s.mine.idle_pct, 10.0) and s.mine.longest.name == "k"
    assert evidence.slower_steps(_ladder((8.0, 8.0, 8.0))) == ()


def test_a_slower_step_is_read_against_the_rung_below_of_its_own_command() -> None:
    slow = _ladder((12.5, 12.5, 12.5))
    compiled, top = slow["rows"][1:]
    compiled["profile"] = _profile("k", 0.5, 100.0)
    top.update(part=1, profile=_profile("k", 0.5, 140.0))
    # The file's rung below came from another command: its profile does not pair with this one.
    assert evidence.slower_steps(slow)[0].profiled is Profiled.MINE_ONLY
    top["below_profile"] = _profile("k", 0.5, 120.0)  # as the top rung's command profiled it
    (s,) = evidence.slower_steps(slow)
    assert s.profiled is Profiled.BOTH and s.theirs.kernels == 120.0


def test_a_row_added_by_another_command_is_named() -> None:
    ladder = _ladder((12.5, 12.5, 12.5))
    assert evidence.other_commands(ladder) == ()
    top = ladder["rows"][-1]
    top["part"] = 1  # added by a later command, timed against eager and the rung below anew
    assert findings.ladders(ladder).apart == (evidence.label(top),)
    assert evidence.label(top) == markdown.label("resnet50", 1, "+ channels_last")


def test_a_fastest_rung_or_best_step_of_a_later_command_says_which_command() -> None:
    ladder = _ladder((8.0, 8.0, 8.0))
    eager, compiled, top = ladder["rows"]
    (found,) = findings.ladders(ladder).ladders
    assert (found.mode, found.command, found.step.command) == ("+ channels_last", 1, 1)
    # a second command timed the same rungs beside an eager row of its own
    again = [{**r, "part": 1} for r in (eager, compiled, top)]
    ladder["rows"] = [eager, compiled, {**top, "speedup_prev": 1.1}, *again]
    (found,) = findings.ladders(ladder).ladders
    assert found.step.command == 2 and found.step.speedup == 1.25


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

    found = autotune_findings.autotuned(doc("bench", [
        _tuned("max-autotune", 0.87, 0, profile=split(400.0, 200.0),
               below_profile=split(340.0, 170.0)),
        _tuned("graph-timed-autotune", 0.95, 3)], **CPU))
    assert (found.slower, found.count, len(found.rungs)) == (1, 2, 2)
    assert found.rungs[0].split == autotune_findings.Split(400.0, 200.0, 340.0, 170.0)
    assert found.rungs[1].split is None
    (p,) = found.replayed
    assert (p.graph.library, p.graph.ops, p.own.library, p.own.ops) == (3, 4, 0, 4)
    assert (p.graph_ratio, p.own_ratio, p.below) == (0.95, 0.87, "+ freezing")
    assert found.descent == () and found.rungs[0].choices.chosen_us is None
    assert autotune_findings.autotuned(doc("bench", [], **CPU)).rungs == ()


def test_coordinate_descent_alone_is_read_beside_the_autotuned_rungs_of_its_ladder() -> None:
    descent = row("transformer", 32, "+ coordinate descent", (1.0, 1.0, 1.0), speedup=3.0,
                  speedup_prev=1.03, prev_rung="+ freezing",
                  rung={"mode": "reduce-overhead", "key": "coordinate-descent"})
    other = {**descent, "batch_size": 1, "speedup_prev": 0.99}
    found = autotune_findings.autotuned(doc("bench", [
        descent, other, _tuned("max-autotune", 0.87, 0),
        _tuned("graph-timed-autotune", 0.95, 3)], **CPU)).descent
    assert [(d.batch, d.ratio) for d in found] == [(32, 1.03), (1, 0.99)]
    assert [t.ratio for t in found[0].tuned] == [0.87, 0.95] and found[1].tuned == ()


def test_what_to_try_first_ranks_steps_by_what_they_paid():
    def step(mode, prev, **rung):
        return {"mode": mode, "speedup_prev": prev, "status": "ok", "rung": rung}

    d = {"rows": [step("compile", 2.0), step("+ freezing", 0.9, freezing=True,
                                             freezing_switch=True)]}
    assert [(p.mode, p.gmean, p.ladders) for p in findings.paid(d)] == [
        ("compile", 2.0, 1), ("+ freezing", 0.9, 1)]


def test_the_findings_tables_hold_a_row_per_ladder_slower_step_and_autotuned_rung() -> None:
    slow = _ladder((12.5, 12.5, 12.5))  # one ladder, one slower step, one long first compile
    assert len(markdown.all_rows(findings_tables.ladder_findings(slow))) == 3
    assert len(markdown.all_rows(findings_tables.try_first(slow))) == 2  # compile, channels_last
    tuned = doc("bench", [_tuned("max-autotune", 0.87, 0), _tuned("graph-timed-autotune", 0.95, 3)],
                **CPU)
    # two rungs, their two rows of autotuning's measurements, one ladder tuned both ways
    assert len(markdown.all_rows(findings_tables.autotuned(tuned))) == 5
