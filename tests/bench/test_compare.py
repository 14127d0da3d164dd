"""snippets.bench.tables' comparison over recorded runs: what each row waits on, and the page's
table with each group's range of ratios. Structure only, never timings."""

from __future__ import annotations

from pathlib import Path

from snippets.bench import tables
from snippets.core import results
from tests.markdown import table_rows

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs/results"


def test_bound_by_reads_each_row_from_its_run() -> None:
    gpu = results.load(RESULTS / "nvidia-h200_torch-2.11.0/bench.json")
    bound = tables.bound_by(gpu)
    assert {bound[k] for k in bound if k[2] == "reduce-overhead"} == {"GPU (replay)"}
    assert {bound[k] for k in bound if k[2] in ("eager", "default")} <= {"host", "GPU"}
    cpu = results.load(RESULTS / "cpu-amd-epyc_torch-2.14.1/bench.json")
    assert set(tables.bound_by(cpu).values()) == {"host (CPU run)"}


def test_one_batch_size_cannot_tell_what_eager_waits_on() -> None:
    gpu = results.load(RESULTS / "nvidia-h200_torch-2.11.0/bench.json")
    gpu["rows"] = [r for r in gpu["rows"] if r["batch_size"] == 1]
    bound = tables.bound_by(gpu)
    assert {bound[k] for k in bound if k[2] == "eager"} == {"–"}


def test_compare_page_has_a_row_per_run_row_and_a_range_per_bound() -> None:
    mine = results.load(RESULTS / "cpu-intel-xeon_torch-2.14.1/bench-compare.json")
    other = results.load(RESULTS / "cpu-amd-epyc_torch-2.14.1/bench.json")
    out = tables.compare_page(mine, other)
    assert tables.setting_differences(mine, other) == []
    assert out.startswith(tables.compare_title(mine, other) + ":\n")
    rows = table_rows(out)
    assert len(rows) == len(mine["rows"]) and {r[-1] for r in rows} == {"host (CPU run)"}
    # The last table gives the range of the ratios, per kind of bound: here one, the CPU's host.
    (bound,) = {bound for bound, _ratio in tables.ratios(mine, other)}
    ratios = [ratio for _bound, ratio in tables.ratios(mine, other)]
    last = [c.strip() for c in out.splitlines()[-1].strip("|").split("|")]
    assert bound == "host (CPU run)" and last == [bound, f"{min(ratios):.2f}", f"{max(ratios):.2f}"]
