"""The inventory of a built site's numbers, and the diff of two."""

from __future__ import annotations

import pytest

from snippets.site import numbers

PAGE = """<html><body><nav>1 2 3</nav><article><h1>Page</h1>
<p>Eager takes 1.06 times as long at batch 32, for <code>32</code> times the work.</p>
<pre><code>x = 7</code></pre>
<table><thead><tr><th>Model · batch</th><th>Median ms</th></tr></thead>
<tbody><tr><td>resnet50 · 1</td><td>4.09</td></tr><tr><td>resnet50 · 32</td><td>1,234.5</td></tr>
</tbody></table></article></body></html>"""


def test_page_numbers_by_where_leaving_out_code_blocks_and_navigation():
    found = numbers.page_numbers(PAGE)
    prose = [n["value"] for n in found if n["where"] == "prose"]
    table = [n["value"] for n in found if n["where"] == "table"]
    assert prose == ["1.06", "32", "32"]  # inline code counts, the code block and nav do not
    assert table == ["1", "4.09", "32", "1234.5"]
    # A cell's context names its table, row and column: "table 1 · resnet50 · 32 · Median ms: ..."
    context = next(n["context"] for n in found if n["value"] == "1234.5")
    where, text = context.split(": ")
    assert where.split(" · ", 1)[1].rsplit(" · ", 1) == ["resnet50 · 32", "Median ms"]
    assert text == "1,234.5"


def test_diff_is_empty_for_the_same_numbers_and_names_a_changed_one(tmp_path):
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / "index.html").write_text(PAGE)
    (site / "a" / "index.html").write_text(PAGE.replace("4.09", "4.10"))
    inv = numbers.inventory(site)
    assert numbers.diff(inv, inv) == []
    moved = {"index.html": inv["a/index.html"], "a/index.html": inv["a/index.html"]}
    lines = numbers.diff(inv, moved)
    assert [line.split(" (")[0] for line in lines] == ["- index.html [table] 4.09",
                                                        "+ index.html [table] 4.10"]


def test_a_folder_without_a_site_is_a_one_line_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        numbers.main([str(tmp_path)])
    assert exit_.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
