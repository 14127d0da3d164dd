"""The tutorial's claims against the recorded numbers: the verdict rule, and the table's shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from snippets.bench import claims
from snippets.core import results
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


def test_a_row_per_claim_and_the_tutorials_mode_last():
    doc = results.load(H200 / "bench.json")
    text = claims.verdicts(doc)
    assert text.splitlines()[0].endswith(f"| `{claims.TUTORIAL_MODE}` |")
    rows = table_rows(text)
    assert [r[0] for r in rows] == [f"{m} · {b}" for m, b in claims.CLAIMED]
    assert all(r[-1] == "not measured" for r in rows)  # no max-autotune run is recorded yet
    assert all(r[2].endswith((": holds", ": higher", ": lower")) for r in rows)


def test_verdicts_over_runs_count_every_run_in_every_cell():
    from snippets.bench import stability

    runs = stability.recorded_gpu_runs(ROOT / "docs" / "results")
    rows = table_rows(claims.verdicts_over_runs(runs))
    assert [r[0] for r in rows] == [f"{m} · {b}" for m, b in claims.CLAIMED]
    measured = [c for r in rows for c in r[2:] if c != "not measured"]
    assert measured and all(f"of {len(runs)} runs within): " in c for c in measured)
    # no max-autotune run is recorded yet: a line says so instead of a column
    text = claims.verdicts_over_runs(runs)
    assert f"`{claims.TUTORIAL_MODE}`: not in any recorded run of this matrix." in text
    assert f"| `{claims.TUTORIAL_MODE}` |" not in text


def test_the_tutorials_mode_is_held_to_its_claims_from_the_modes_run():
    doc = results.load(H200 / "production-modes.json")
    rows = table_rows(claims.tutorial_mode(doc))
    assert [r[0] for r in rows] == [f"{m} · {b}" for m, b in claims.CLAIMED]
    assert all(r[2].endswith((": holds", ": higher", ": lower")) for r in rows)
    without = {**doc, "rows": [r for r in doc["rows"] if r["mode"] != claims.TUTORIAL_MODE]}
    assert claims.tutorial_mode(without).endswith("not in the recorded modes run yet.")
