"""The pages' Jinja holds no more logic than it did: each template's count may only fall."""

import pytest

from snippets.site import templates

# Logic per template (``python -m snippets.site.templates``): lower a budget when a template
# loses logic, and remove its line at zero. A template not listed may hold none.
BUDGET = {
    "benchmark.md": 4,
    "graph-breaks.md": 2,
    "includes/bench.md": 9,
    "when-not-to-compile.md": 3,
    "zoo.md": 32,
}


def test_no_template_holds_more_logic_than_its_budget():
    over = {name: n for name, n in templates.counts().items() if n > BUDGET.get(name, 0)}
    assert over == {}


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
