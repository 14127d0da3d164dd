"""snippets.site.reference: the Results page draws every recorded run, and the runs that timed
some modes are listed and linked."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from snippets.core import results
from snippets.site import build, reference


@pytest.fixture
def recorded(tmp_path: Path) -> build.Build:
    """A build over an empty docs folder of its own: nothing global is touched."""
    (tmp_path / "docs" / "results").mkdir(parents=True)
    return build.Build(docs_dir=tmp_path / "docs", cache_dir=tmp_path / "cache",
                       records_dir=tmp_path / "rec")


def test_results_index_links_and_stamps_every_file(recorded: build.Build,
                                                   cpu_bench_run: Path) -> None:
    note = (reference.INCLUDES / "no-results-yet.md").read_text()
    empty = reference.results_index(build=recorded)  # the include's note, no run drawn
    assert empty.splitlines()[0] == note.splitlines()[0] and "[bench.json]" not in empty
    (recorded.results_dir / "run-a").mkdir()
    shutil.copy(cpu_bench_run, recorded.results_dir / "run-a" / "bench.json")
    out = reference.results_index(build=recorded)
    assert "[bench.json](run-a/bench.json)" in out
    assert out.count('<p class="stamp">recorded: ') == 1


def test_every_kind_a_run_can_record_has_a_drawing_on_the_results_page() -> None:
    measured = {name for name, kind in results.KINDS.items() if kind.measured}
    assert measured <= set(reference.renderers())


def test_runs_timing_lists_the_runs_of_those_modes_or_says_there_is_none(
        recorded: build.Build) -> None:
    from tests.speed.docs_fixtures import doc, row

    modes = ("max-autotune", "max-autotune-no-cudagraphs")
    none = reference.runs_timing("bench", modes, build=recorded)
    assert "](" not in none  # no run to link
    folder = recorded.results_dir / "cpu-x_torch-2.11.0"
    folder.mkdir()
    plain = doc("bench", [row("r", 1, "eager", (1.0,)), row("r", 1, "default", (1.0,))],
                device="CPU: x")
    results.write_atomic(folder / "bench.json", plain)
    assert reference.runs_timing("bench", modes, build=recorded) == none  # it timed neither mode
    tuned = doc("bench", [row("r", 1, "eager", (1.0,)), row("r", 1, "max-autotune", (1.0,))],
                device="CPU: x")
    results.write_atomic(folder / "bench-autotune.json", tuned)
    out = reference.runs_timing("bench", modes, build=recorded)
    # One link, to the run that timed max-autotune: its device, torch and date, then its section.
    assert out.startswith("Recorded so far: [")
    assert re.findall(r"\[([^\]]*)\]\(([^)]*)\)", out) == [
        ("x (CPU), torch 2.11.0, 2026-01-01", "../results/#cpu-x_torch-2.11.0--bench-autotune")]
