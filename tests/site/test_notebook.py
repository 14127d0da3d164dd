"""The "Run it yourself" notebook: its source executes without an error, the stored notebook the
site renders matches that source, and its page gets the stamp of the execution it shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from snippets.site import notebook

ROOT = Path(__file__).resolve().parents[2]


def test_the_source_executes_top_to_bottom() -> None:
    nb = notebook.execute()  # raises on the first cell that fails
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert notebook.cells(nb) == notebook.cells(notebook.read_source())
    assert nb.metadata["snippets"]["provenance"]["torch"]


def test_the_stored_notebook_matches_its_source() -> None:
    assert notebook.stale() == [], "re-run python -m snippets.site.notebook and commit it"
    assert notebook.main(["--check"]) == 0


def test_the_stored_notebook_holds_outputs_and_no_path_of_this_machine() -> None:
    text = notebook.STORED.read_text()
    nb = json.loads(text)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and all(c["outputs"] for c in code)  # every cell printed something
    assert str(ROOT) not in text and "Traceback" not in text


def test_a_stale_notebook_is_named_cell_by_cell(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    nb = json.loads(notebook.STORED.read_text())
    nb["cells"][1]["source"] = ["print('changed')"]
    stored = tmp_path / "stale.ipynb"
    stored.write_text(json.dumps(nb))
    problems = notebook.stale(path=stored)
    source = notebook.cells(notebook.read_source(notebook.SOURCE))[1][1]
    assert source.startswith("import")  # the cell changed, named by what the source holds
    assert len(problems) == 1 and problems[0].startswith("cell 2: ")
    assert problems[0].endswith(repr(source[:50]))
    nb["cells"].pop()
    stored.write_text(json.dumps(nb))
    assert notebook.stale(path=stored)[-1].endswith(f"{len(nb['cells'])} stored")


def test_the_page_gets_its_stamp_downloads_and_site_links() -> None:
    body = ('<div><h1 id="run">Run it yourself</h1><p><a href="benchmark.md#x">b</a> '
            '<a href="nowhere.md">n</a></p></div>')
    out = notebook.page_html(body, notebook.STORED,
                             lambda md: "../benchmark/" if md == "benchmark.md" else None)
    assert 'href="../benchmark/#x"' in out and 'href="nowhere.md"' in out
    head, rest = out.split("</h1>", 1)
    assert head.startswith('<div class="results"><div><h1') and out.endswith("</div>")
    # the downloads above the stamp: the stored notebook beside the page, its source a level up
    downloads = rest[:rest.index('<p class="stamp">recorded: CPU: ')]
    assert re.findall(r'href="([^"]+)" download', downloads) == [
        "run-it-yourself.ipynb", "../run-it-yourself.py"]
