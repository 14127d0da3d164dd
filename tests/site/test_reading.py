"""snippets.site.reading: prose words, where the answer box starts and its lines, the longest
sentence."""

from __future__ import annotations

import pytest

from snippets.site import reading

PAGE = """<html><body><nav>Home Benchmark</nav><article>
<h1>Title here</h1>
<div class="admonition tip"><p class="admonition-title">What to do</p>
<ul><li>Do this first. <a href="#a">Why</a></li></ul></div>
<p>One two three four. Five six seven eight nine ten.</p>
<table><tr><td>1.23</td></tr></table>
<pre><code>x = 1</code></pre>
<details><summary>More</summary><p>hidden words here</p></details>
<p class="stamp">recorded: somewhere</p>
</article></body></html>"""


def test_prose_counts_skip_tables_code_collapsed_blocks_and_stamps():
    r = reading.read("speed", PAGE)
    assert r.prose_words == 2 + 3 + 4 + 10  # the title, the box title, its line, the paragraph
    assert r.answer_at == 2 and r.longest_sentence == 6 and r.over() == []
    assert r.box_lines == 1


def test_a_notebook_code_cell_is_code_though_its_copy_for_the_clipboard_is_no_pre():
    cell = ('<div class="jp-CodeCell"><div class="zeroclipboard-container">Copied!</div>'
            '<div class="highlight-ipynb"><pre>x = 1</pre></div>'
            '<div class="clipboard-copy-txt">x = 1 and more code words</div></div>')
    page = PAGE.replace("<table>", cell + "<table>")
    assert reading.read("speed", page) == reading.read("speed", PAGE)


def test_a_box_of_more_than_five_lines_is_over_budget_and_nested_items_do_not_count():
    items = "".join(f"<li>Line {i}.</li>" for i in range(5))
    nested = "<li>Six.<ul><li>inner</li></ul></li>"
    page = PAGE.replace("<ul><li>Do this first.", "<ul>" + items + nested + "<li>Do this first.")
    r = reading.read("speed", page)
    assert r.box_lines == 7 and r.over() == ["What to do lines"]
    # a list after the box is not the box's
    assert reading.read("speed", PAGE + "<ul><li>a</li><li>b</li></ul>").box_lines == 1


def test_a_page_without_the_box_or_over_budget_says_which():
    long = "<article><h1>T</h1><p>" + " ".join(["word"] * 45) + ".</p></article>"
    assert reading.read("speed", long).over() == ["answer not first", "longest sentence"]
    assert reading.read("cli", long).over() == []  # a reference page has no budget


def test_the_command_needs_a_built_site(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        reading.main([str(tmp_path)])
    assert exc.value.code == 2 and "no built site" in capsys.readouterr().err
