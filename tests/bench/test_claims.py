"""The tutorial's claims against the recorded numbers: the verdict rule, and the table's shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from snippets.bench import claims
from snippets.core import results
from snippets.production import kinds as production_kinds  # noqa: F401  the modes file it reads
from tests.markdown import table_rows

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "docs/results/nvidia-h200_torch-2.11.0"


@pytest.mark.parametrize(("value", "spread", "expect"), [
    (1.5, 0.0, "holds"), (2.5, 0.2, "higher"), (1.0, 0.1, "lower"),
    (2.05, 0.2, "holds"),  # within half its spread of the top of the range
    (1.25, 0.12, "holds"),  # likewise at the bottom
])
def test_verdict(value, spread, expect):
    assert claims.verdict(value, spread, 1.3, 2.0) == expect


def test_one_run_is_judged_by_its_own_speedups_the_tutorials_mode_last():
    doc = results.load(H200 / "bench.json")
    found = claims.judged_over_runs([("bench", doc)])
    modes = list(dict.fromkeys(j.mode for j in found))
    assert modes == ["default", "reduce-overhead", claims.TUTORIAL_MODE]
    assert [(j.model, j.batch) for j in found if j.mode == "default"] == list(claims.CLAIMED)
    # no max-autotune run is in this matrix
    assert {j.verdict for j in found if j.mode == claims.TUTORIAL_MODE} == {
        claims.Claim.NOT_MEASURED}
    rows = {(r["model"], r["batch_size"], r["mode"]): r for r in doc["rows"]}
    for j in (j for j in found if j.mode != claims.TUTORIAL_MODE):
        assert j.speedup == rows[(j.model, j.batch, j.mode)]["speedup"] and j.runs == 1
        assert j.verdict.value == claims.verdict(j.speedup, 0.0, *j.claimed)


def test_verdicts_over_runs_count_every_run_in_every_cell():
    from snippets.bench import stability

    runs = stability.recorded_gpu_runs(ROOT / "docs" / "results")
    found = claims.judged_over_runs(runs)
    measured = [j for j in found if j.verdict is not claims.Claim.NOT_MEASURED]
    assert measured and all(j.runs == len(runs) for j in measured)
    assert all(j.over_runs.low <= j.speedup <= j.over_runs.high and 0 <= j.within <= j.runs
               for j in measured)
    # no max-autotune run is recorded in this matrix: a row of the summary, not a column
    assert {j.verdict for j in found if j.mode == claims.TUTORIAL_MODE} == {
        claims.Claim.NOT_MEASURED}
    table, summary = claims.verdicts_over_runs(runs).split("\n\n")
    assert f"`{claims.TUTORIAL_MODE}`" not in table.splitlines()[0]
    assert [r[0] for r in table_rows(summary)][-1] == f"`{claims.TUTORIAL_MODE}`"


def test_a_run_counts_within_the_claim_as_the_table_prints_it():
    row = {"model": "resnet50", "batch_size": 1, "mode": "default", "status": "ok"}
    runs = [(str(v), {"rows": [{**row, "speedup": v}]}) for v in (2.004, 1.98, 2.006)]
    j, = [j for j in claims.judged_over_runs(runs)
          if (j.model, j.batch, j.mode) == ("resnet50", 1, "default")]
    assert (j.within, j.runs) == (2, 3)  # 2.004 prints 2.00, within 1.3x-2x; 2.006 prints 2.01


def test_the_tutorials_mode_is_held_to_its_claims_from_the_modes_run():
    doc = results.load(H200 / "production-modes.json")
    rows = table_rows(claims.tutorial_mode(doc).split("\n\n")[0])
    assert [r[0] for r in rows] == [f"{m} · {b}" for m, b in claims.CLAIMED]
    assert all(r[2].endswith((": holds", ": higher", ": lower")) for r in rows)
    without = {**doc, "rows": [r for r in doc["rows"] if r["mode"] != claims.TUTORIAL_MODE]}
    summary = table_rows(claims.tutorial_mode(without))
    assert summary == [[f"`{claims.TUTORIAL_MODE}`",
                        ", ".join(f"{m} · {b}" for m, b in claims.CLAIMED)]]
