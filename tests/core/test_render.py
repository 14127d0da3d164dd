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


def test_a_significant_figures_format_never_writes_an_exponent_for_a_time():
    from snippets.core.render import num, plain, span
    assert plain(123.4, ".2g") == "123"
    assert plain(1470.0, ".3g") == "1,470"
    assert plain(0.000123, ".2g") == "0.00012"  # small values keep their digits
    assert plain(1.5e-5, ".2g") == "1.5e-05"  # ... and an exponent where there is no other way
    assert num(1.47e3, ".3g") == "1,470"
    assert span([98.0, 123.4], ".2g") == "98 to 123"
    assert plain(1.5e-5, ".1e") == "1.5e-05"
