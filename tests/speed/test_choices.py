"""The page's reading of autotuning's records, on made-up rows: counts, the two rankings, and
the summary and table the page shows."""

from __future__ import annotations

import math

from snippets.speed import choices
from tests import markdown


def _op(chosen, lib_ms, tem_ms, lib_k=None, tem_k=None):
    return {"op": "addmm", "sizes": [], "candidates": 20, "chosen": chosen,
            "library": {"name": "addmm", "ms": lib_ms, "kernel_ms": lib_k},
            "template": {"name": "triton_mm_1", "ms": tem_ms, "kernel_ms": tem_k},
            **({"retimed_by": "profiler"} if lib_k is not None else {})}


ROW = {"model": "m", "batch_size": 1, "mode": "+ max-autotune", "autotune": [
    _op("template", 0.027, 0.009, 0.004, 0.008),  # the timer and the profiler disagree
    _op("template", 0.050, 0.025, 0.030, 0.020),  # they agree
    _op("library", 0.010, 0.020),                 # not re-timed
    {"op": "conv", "error": "AttributeError: x"},
]}


def test_a_summary_counts_choices_and_reads_both_rankings():
    s = choices.summary(ROW)
    assert (s.ops, s.errors, s.template, s.both, s.retimed) == (3, 1, 2, 3, 2)
    assert math.isclose(s.timer, (3.0 * 2.0 * 0.5) ** (1 / 3))
    assert math.isclose(s.profiler, (0.5 * 1.5) ** 0.5)
    assert s.reversed == 1
    # How much more than the template's kernels the timer counted: a template's re-timing is
    # always the profiler's.
    assert math.isclose(s.launch, (0.009 / 0.008 * 0.025 / 0.020) ** 0.5)
    assert s.launch_of == 2


def test_the_profiler_s_readings_are_summed_only_where_it_re_timed_every_operator():
    assert choices.summary(ROW).chosen_us is None  # one operator was not re-timed
    every = {**ROW, "autotune": ROW["autotune"][:2] + [_op("library", 0.010, 0.020, 0.005, 0.006)]}
    s = choices.summary(every)
    assert math.isclose(s.chosen_us, 8 + 20 + 5)  # the template twice, then the library
    assert math.isclose(s.library_us, 4 + 30 + 5)


def test_rows_without_records_read_as_none_and_an_empty_record_as_no_operator():
    assert choices.summary({"mode": "+ freezing"}) is None
    assert choices.summary({**ROW, "autotune": []}).ops == 0


def test_the_summary_and_the_table_say_what_the_records_hold():
    s = choices.summary(ROW)
    assert (s.template, s.library, s.reversed, s.uncaptured) == (2, 1, 1, 0)
    timed = choices.summary({**ROW, "uncaptured": {"count": 4, "first": ["RuntimeError: x"]}})
    assert (timed.uncaptured, timed.uncaptured_first) == (4, "RuntimeError: x")
    table = choices.table({"rows": [ROW, {"model": "m", "batch_size": 1, "mode": "eager"}]})
    assert table.count("\n") == 2 and markdown.row(table, "m", 1, "+ max-autotune")[0] == "2 of 3"
    assert choices.table({"rows": [{"mode": "eager"}]}) == ""


def test_an_operator_without_retimed_by_is_not_read_as_the_profiler_s():
    # Its library time under kernel_ms, if any, is the autotuner's timer read a second time.
    old = {**ROW, "autotune": [{k: v for k, v in o.items() if k != "retimed_by"}
                               for o in ROW["autotune"]]}
    s = choices.summary(old)
    assert s.retimed == 0 and s.profiler is None and s.reversed == 0
