"""How the hazards run tells a skipped CUDA graph, on given lines (no GPU): torch 2.14's
counter where the child had one, the log's reason otherwise."""

from __future__ import annotations

from snippets.production import hazards
from snippets.production.hazards import Outcome

REASON = "skipping cudagraphs due to mutated inputs (1 instances). Found from :"
OK = "outputs match eager"


def test_the_counter_decides_where_torch_has_one():
    count = hazards.COUNT_LINE
    # 2.14 logs the reason to "cudagraphs"; asked for both logs, the line is there too
    assert hazards.skip_outcome([REASON, f"{count}1", OK])[:2] == (Outcome.SKIPPED, REASON)
    # counted, the reason not captured: still skipped
    assert hazards.skip_outcome([f"{count}2", OK])[0] is Outcome.SKIPPED
    assert hazards.skip_outcome([f"{count}0", OK])[0] is Outcome.NOT_SKIPPED


def test_the_log_decides_where_torch_has_no_counter():
    none = f"{hazards.COUNT_LINE}none"
    assert hazards.skip_outcome([REASON, none, OK])[0] is Outcome.SKIPPED
    assert hazards.skip_outcome([none, OK])[0] is Outcome.NOT_SKIPPED
    assert hazards.skip_outcome([REASON, OK])[0] is Outcome.SKIPPED  # a child without the line


def test_wrong_values_and_an_unfinished_case_come_first():
    assert hazards.skip_outcome([f"{hazards.COUNT_LINE}1", "outputs differ from eager"])[0] \
        is Outcome.WRONG
    assert hazards.skip_outcome([REASON])[0] is Outcome.ERROR


def test_torch_2_14_counts_a_skip_and_logs_it_to_cudagraphs(monkeypatch):
    from torch._dynamo.utils import counters
    from torch._inductor import cudagraph_utils
    # the "cudagraphs" artifact's logger, and no perf_hints logger in the module any more
    assert cudagraph_utils.cudagraphs_log.name.endswith(".__cudagraphs")
    assert not hasattr(cudagraph_utils, "perf_hint_log")
    logged: list[str] = []
    monkeypatch.setattr(cudagraph_utils.cudagraphs_log, "warning", logged.append)
    before = hazards.skip_count()
    try:
        cudagraph_utils.log_cudagraph_skip_and_bump_counter(REASON)
        assert (hazards.skip_count() - before, logged) == (1, [REASON])
    finally:
        counters["inductor"]["cudagraph_skips"] = before
    assert hazards.SKIP_LOGS.split(",") == ["perf_hints", "cudagraphs"]
