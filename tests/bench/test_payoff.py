"""Tests of snippets.payoff over the committed H200 runs: structure, never timings."""

from __future__ import annotations

from pathlib import Path

import pytest

from snippets.bench import payoff
from snippets.core import results
from snippets.explain import kinds as explain_kinds  # noqa: F401  the graph-breaks files it reads
from tests.markdown import table_rows

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "docs/results/nvidia-h200_torch-2.11.0"


def test_break_even_calls():
    assert payoff.break_even_calls(2.0, 3.0, 1.0) == pytest.approx(1000)  # 2 s over 2 ms a call
    assert payoff.break_even_calls(2.0, 1.0, 1.5) is None  # slower compiled: never pays


def test_cold_warm_table_has_a_row_per_compiled_configuration():
    cold = results.load(H200 / "noise/first-1.json")
    warm = results.load(H200 / "noise/first-2.json")
    rows = table_rows(payoff.cold_warm_markdown(cold, warm))
    assert len(rows) == sum(r["mode"] != "eager" for r in cold["rows"])


def test_break_even_of_each_run_uses_that_runs_own_eager():
    cold = results.load(H200 / "noise/first-1.json")
    warm = results.load(H200 / "noise/first-2.json")
    rows = {r[0]: r for r in table_rows(payoff.cold_warm_markdown(cold, warm))}
    w = {(r["model"], r["batch_size"], r["mode"]): r for r in warm["rows"]}
    key = ("resnet50", 1, "default")
    expected = payoff.break_even_calls(w[key]["compile_s"],
                                       w[key[:2] + ("eager",)]["latency_ms"]["median"],
                                       w[key]["latency_ms"]["median"])
    assert rows["resnet50 · 1 · default"][4] == f"{expected:,.0f}"


def test_the_stamp_dates_the_next_process_by_its_day():
    cold = results.load(H200 / "noise/first-1.json")
    warm = results.load(H200 / "noise/first-2.json")
    day = warm["provenance"]["date"][:10]
    assert payoff.cold_warm_stamp(cold, warm).endswith(f"next process: {day}")


def test_a_row_slower_to_pay_in_the_next_process_is_found():
    cold = results.load(H200 / "noise/first-1.json")
    warm = results.load(H200 / "noise/first-2.json")
    text = payoff.cold_warm_markdown(cold, warm)
    slower = [r[0] for r in table_rows(text)
              if "never" not in r[3:] and "–" not in r[3:]
              and float(r[2]) <= float(r[1])
              and int(r[4].replace(",", "")) > int(r[3].replace(",", ""))]
    found = payoff.slower_to_pay(cold, warm)
    assert [f"{f.model} · {f.batch} · {f.mode}" for f in found] == slower
    # a second table under the first, one row for each of them
    assert [len(t.splitlines()) for t in text.split("\n\n")[1:]] == ([len(found) + 2] if found
                                                                      else [])
    c = {(r["model"], r["batch_size"], r["mode"]): r for r in cold["rows"]}
    for f in found:
        eager = c[(f.model, f.batch, "eager")]
        assert f.eager_first == eager["latency_ms"]["median"]
        assert f.status_first == eager["status"]
        assert f.saved_first == f.eager_first - c[(f.model, f.batch, f.mode)]["latency_ms"][
            "median"]


def test_tiny_work_counts_every_block_once():
    doc = results.load(H200 / "graph-breaks.json")
    found = payoff.tiny(doc)
    assert (found.blocks, found.slower) == (len(doc["rows"]),
                                            sum(r["speedup"] < 1 for r in doc["rows"]))
    assert found.blocks == found.slower + len(found.faster)
    assert found.faster == tuple(f"{r['cause']}: {r['variant']}" for r in doc["rows"]
                                 if r["speedup"] >= 1)
    assert found.eager_ms.low == min(r["eager_ms"]["median"] for r in doc["rows"])
    assert len(table_rows(payoff.tiny_work(doc))) == len(doc["rows"])
    # the mode the blocks ran under, which the page's verdict is limited to
    assert found.mode == doc["provenance"]["settings"]["mode"] == "default"
