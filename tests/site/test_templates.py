"""The pages' Jinja is plain: prose with findings placed, and an if on a verdict."""

import pytest

from snippets.site import templates


def test_no_template_holds_logic():
    # python -m snippets.site.templates --show FILE lists each piece with its line
    assert templates.counts() == {}


@pytest.mark.parametrize("source", [
    "{{ run.eager_ms | fmt(\".2f\") }}",
    "{% set run = findings(\"bench\", \"cuda\") %}",
    "{% if run and run.verdict == \"holds\" %}a{% elif not run.x %}b{% else %}c{% endif %}",
    "{% call stamped(run) %}words{% endcall %}",
    "{{ run.models | join(\", \") }}",
    "{% include \"no-run-yet.md\" %}",
])
def test_plain_jinja_is_not_logic(source):
    assert list(templates.logic(source)) == []


@pytest.mark.parametrize("source, what", [
    ("{% for m in run.models %}{{ m }}{% endfor %}", "for"),
    ("{% macro line(r) %}{{ r }}{% endmacro %}", "macro"),
    ("{{ ((run.enough - 1) * 100) | fmt(\".0f\") }}", "placement"),
    ("{{ run.rows[0].name }}", "placement"),
    ("{{ run.cell(\"default\", 1).geomean }}", "placement"),
    ("{% set low = run.ranked(\"default\", 32) %}", "set"),
    ("{% if run.slower() | length > 2 %}x{% endif %}", "if"),
    ("{% import \"bench.md\" as bench with context %}", "import"),
])
def test_logic_is_counted(source, what):
    assert [w for _, w in templates.logic(source)] == [what]
