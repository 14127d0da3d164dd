"""snippets.core.measure: statistics on known samples, the timing steps, the host gate. No
assertion on how long anything took."""

from __future__ import annotations

import pytest
import torch

from snippets.core import measure

CPU = torch.device("cpu")


def test_quantile_matches_linear_interpolation():
    s = [1.0, 2.0, 3.0, 4.0]
    assert measure.quantile(s, 0.25) == pytest.approx(1.75)
    assert measure.quantile(s, 0.5) == pytest.approx(2.5)
    assert measure.quantile(s, 0.75) == pytest.approx(3.25)


def test_measurement_median_iqr_and_noise_flag():
    m = measure.Measurement((10.0, 10.0, 10.0, 10.0, 12.0))
    assert m.median == 10.0 and m.iqr == 0.0 and not m.noisy
    wide = measure.Measurement((8.0, 9.0, 10.0, 11.0, 12.0))
    assert wide.iqr == pytest.approx(2.0)
    assert wide.iqr_ratio == pytest.approx(0.2) and wide.noisy


def test_speedup_is_ratio_of_medians_with_paired_spread():
    eager = measure.Measurement((4.0, 4.0, 8.0))
    compiled = measure.Measurement((2.0, 2.0, 4.0))
    r = measure.speedup(eager, compiled)
    assert r.value == pytest.approx(2.0)
    assert r.iqr == pytest.approx(0.0)  # every round paired exactly 2x


def test_relative_error_and_calls_per_sample():
    ref = torch.ones(4)
    assert measure.relative_error(ref, ref) == 0.0
    assert measure.relative_error(ref * 1.01, ref) == pytest.approx(0.01)
    assert measure.relative_error(torch.full((4,), float("nan")), ref) == float("inf")
    assert measure.calls_per_sample(0.5, 25.0) == 50
    assert measure.calls_per_sample(100.0, 25.0) == 1


def test_interleaved_keeps_one_sample_per_round_and_drops_warm_rounds():
    order: list[str] = []
    fns = {"a": lambda: order.append("a"), "b": lambda: order.append("b")}
    timed = measure.interleaved(fns, 4, {"a": 1, "b": 1}, torch.device("cpu"), warm_rounds=2)
    assert [len(m.samples) for m in timed.values()] == [4, 4]
    assert order[:4] == ["a", "b", "b", "a"]  # the order rotates each round


def test_measurement_serializes_itself():
    m = measure.Measurement((3.0, 1.0, 2.0))
    data = m.as_dict()
    assert data == {"median": 2.0, "iqr": 1.0, "samples": [3.0, 1.0, 2.0]}
    assert measure.Measurement.from_dict(data) == m


def test_first_call_returns_the_output_and_a_time():
    out, seconds = measure.time_first_call(lambda: torch.ones(3) * 2, CPU)
    assert torch.equal(out, torch.full((3,), 2.0)) and seconds >= 0


def test_stopwatch_keeps_the_time_of_a_block_that_raised():
    watch = measure.Stopwatch(CPU)
    with pytest.raises(RuntimeError), watch:
        raise RuntimeError("compile failed")
    assert watch.seconds >= 0


def test_measure_variants_warms_sizes_and_times_every_variant():
    calls = {"a": 0, "b": 0}

    def count(name):
        def fn():
            calls[name] += 1
        return fn

    timed = measure.measure_variants({"a": count("a"), "b": count("b")}, CPU, rounds=4,
                                     sample_ms=0.001, warmup=2, warm_rounds=1)
    assert set(timed.measurements) == {"a", "b"}
    assert all(len(timed[n].samples) == 4 for n in "ab")
    assert all(1 <= timed.calls[n] <= 10_000 for n in "ab")
    # 2 warm-up calls, 3 to size a sample, then 5 rounds (1 untimed) of calls[n] calls each
    assert calls == {n: 2 + 3 + 5 * timed.calls[n] for n in "ab"}


class _ScriptedGate(measure.HostGate):
    """A gate whose canary readings are given, to test the rule without a noisy host."""

    def __init__(self, readings):
        super().__init__(enabled=True, slowdown=1.5, max_discard=1.0)
        self._readings = iter(readings)

    def canary(self):
        us = next(self._readings)
        self.best_us = min(self.best_us, us)
        self.canary_us.append(us)
        return us


def test_host_gate_remeasures_rounds_timed_in_a_slow_spell():
    # Rounds 1 and 3 run at normal speed, round 2 in a slow spell (canary twice as slow).
    gate = _ScriptedGate([100, 100, 200, 210, 100, 105, 100, 100])
    timed = measure.interleaved({"a": lambda: None}, 3, {"a": 1}, torch.device("cpu"), gate=gate)
    assert len(timed["a"].samples) == 3 and gate.discarded == 1


def test_host_gate_gives_up_when_the_host_stays_slow():
    gate = _ScriptedGate([100, 100] + [300] * 40)
    timed = measure.interleaved({"a": lambda: None}, 3, {"a": 1}, torch.device("cpu"), gate=gate)
    assert len(timed["a"].samples) == 3 and gate.discarded <= 3


def test_each_variant_is_timed_inside_its_own_around():
    """``around(name)`` is entered for a variant's warm-up, sizing and every sample, and only
    for its own: the state it sets (backend settings, say) never leaks to another variant."""
    import contextlib

    state, seen = {"now": None}, {"a": set(), "b": set()}

    @contextlib.contextmanager
    def around(name):
        state["now"] = name
        try:
            yield
        finally:
            state["now"] = None

    fns = {n: (lambda n=n: seen[n].add(state["now"])) for n in ("a", "b")}
    measure.measure_variants(fns, CPU, rounds=3, sample_ms=0.01, around=around)
    assert seen == {"a": {"a"}, "b": {"b"}}
