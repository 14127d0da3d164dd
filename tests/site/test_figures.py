"""snippets.site.figures: one headline figure per configuration across a built site's pages."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from snippets.site import figures, macros
from tests import cli_run

KEY = "NVIDIA H200 · resnet50 · batch 1 · reduce-overhead"


def _page(site: Path, name: str, *values: float) -> None:
    (site / name).parent.mkdir(parents=True, exist_ok=True)
    (site / name).write_text("<p>" + " ".join(macros.headline(_figure(v)) for v in values) + "</p>")


def _figure(median: float | None) -> SimpleNamespace:
    return SimpleNamespace(key=KEY, median=median)


def test_the_headline_macro_writes_what_the_check_reads():
    shown = macros.headline(_figure(8.6812))
    assert shown.endswith(">8.68x</span>")
    assert macros.headline(_figure(None)) == "–"
    assert macros.headline(None) == "–"  # a configuration the runs lack: the build goes on


def test_two_pages_with_one_value_agree(tmp_path):
    _page(tmp_path, "index.html", 8.68)
    _page(tmp_path, "benchmark/index.html", 8.6801)  # the same once shown
    assert [(s.page, s.key, s.value) for s in figures.stated(tmp_path)] == [
        ("benchmark/index.html", KEY, "8.68"), ("index.html", KEY, "8.68")]
    assert figures.disagreements(tmp_path) == []
    assert figures.main([str(tmp_path)]) == 0


def test_two_pages_with_two_values_for_one_configuration_disagree(tmp_path):
    _page(tmp_path, "index.html", 8.68)
    _page(tmp_path, "production/index.html", 7.41)
    [line] = figures.disagreements(tmp_path)
    assert KEY in line and "index.html" in line and "production/index.html" in line
    assert figures.main([str(tmp_path)]) == 1


def test_a_missing_site_is_the_users_mistake(tmp_path, capsys):
    cli_run.assert_one_line_error(*cli_run.run(figures.main, capsys, str(tmp_path / "nowhere")),
                                  "no built site", prog=figures.PROG)
