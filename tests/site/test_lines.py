"""The lines of snippets/ by kind: the rule, and the share rendering holds now."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest

from snippets.site import lines

MODULE = '''
def measure(x):
    row = {"message": "the run stopped before its first round finished"}
    return x * 2


def table(rows):
    return render.markdown_table(["a"], rows)


def sentence(n):
    """A docstring of many words is not a sentence the function returns."""
    return f"compiled ran {n} times faster than eager did"
'''


@pytest.mark.parametrize("path, kind", [
    ("site/pages.py", "site"), ("bench/__main__.py", "CLI"), ("core/config.py", "CLI"),
    ("bench/tables.py", "rendering"), ("production/serving_findings.py", "findings"),
    ("speed/evidence.py", "findings"), ("bench/rows.py", "measuring")])
def test_a_module_has_the_kind_its_name_says(path, kind):
    assert lines.module_kind(PurePosixPath(path)) == kind


def test_a_function_that_draws_a_table_or_returns_a_sentence_counts_as_rendering():
    counted = lines.count(PurePosixPath("bench/measure.py"), MODULE)
    assert counted["rendering"] == 5  # table (2 lines) and sentence (3 lines), not measure
    assert sum(counted.values()) == len(MODULE.splitlines())


def test_rendering_is_within_its_share_of_the_package():
    total = lines.by_kind(lines._tree())
    assert set(total) == set(lines.KINDS)
    assert lines.share(total, "rendering") <= lines.MAX_RENDERING_SHARE


def test_an_unknown_commit_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as stop:
        lines.main(["--rev", "no-such-commit"])
    assert stop.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_prose_in_code_counts_sentences_but_not_docstrings_or_labels():
    from snippets.site.lines import prose_words

    text = '''"""A module docstring of many words, left out of the count."""
def f(x):
    """A function docstring, also left out of the count here."""
    label = "two words"
    raise ValueError(f"the value {x} is not one this tool takes")
'''
    assert prose_words(text) == 9  # the f-string: eight words and one placeholder


def test_a_fields_help_in_the_class_docstring_is_left_out_but_a_string_after_it_counts():
    from snippets.site.lines import prose_words

    text = '''class Config:
    """A config.

    Attributes:
        rounds: interleaved timing rounds, each one sample of every variant
    """

    rounds: int = 10
    """interleaved timing rounds, each one sample"""
    note = "a plain string of six words here"
    label = "a short label"
'''
    assert prose_words(text) == 6 + 7  # the string after the field and the plain string


def test_the_code_holds_at_most_its_budget_of_prose_words():
    words = sum(lines.prose_words(text) for _path, text in lines._tree())
    assert words <= lines.MAX_PROSE_WORDS, words


def test_no_module_is_over_300_lines():
    long = {str(path): n for path, text in lines._tree()
            if (n := len(text.splitlines())) > lines.MAX_MODULE_LINES}
    assert not long, long
