"""snippets.generate.retune_findings: two processes' step of one weights, set side by side."""

from __future__ import annotations

from snippets.generate import retune_findings


def _doc(ms: float, tuned: dict, top_us: float) -> dict:
    row = {"weights": "int8", "way": "step", "status": "ok",
           "latency_ms": {"median": ms, "samples": [ms]},
           "profile": {"top": [{"name": "triton_red_k", "us_per_call": top_us}]}}
    return {"rows": [row], "tuned": {"int8": tuned}}


def test_the_slower_process_s_longest_kernel_and_the_differing_choices_are_counted():
    a = _doc(4.5, {"k1": {"XBLOCK": 1}, "k2": {"XBLOCK": 2}, "k3": {"XBLOCK": 4}}, 1600.0)
    b = _doc(6.0, {"k1": {"XBLOCK": 1}, "k2": {"XBLOCK": 8}}, 2800.0)
    r = retune_findings.retuned(b, a)  # either order: the faster is found by its time
    assert (r.weights, r.fast_ms, r.slow_ms, r.kernels, r.differ) == ("int8", 4.5, 6.0, 2, 1)
    assert (r.top, r.top_fast_us, r.top_slow_us) == ("triton_red_k", 1600.0, 2800.0)
    assert r.top_head == "triton_red_k"  # under 40 characters: whole
    assert abs(r.spread - 6.0 / 4.5) < 1e-12


def test_a_missing_second_run_or_a_run_without_recorded_choices_gives_none():
    a = _doc(4.5, {"k1": {}}, 1.0)
    assert retune_findings.retuned(a, None) is None
    assert retune_findings.retuned(a, {"rows": a["rows"]}) is None
