"""snippets.core.render: the cells and tables every page shares."""

from __future__ import annotations

import pytest

from snippets.core import render


def test_a_table_aligns_labels_left_and_numbers_right():
    table = render.markdown_table(("Model", "ms"), [("resnet50", 1.5)])
    assert table.splitlines()[1] == "|---|--:|"


def test_a_row_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="2 cells under 3 headings"):
        render.markdown_table(("a", "b", "c"), [(1, 2)])
