"""snippets.explain held to Dynamo's own graph_breaks log: every logged line named, none invented,
on the corpus the page shows and on cases kept out of it."""

from __future__ import annotations

import pytest

from snippets.core import results
from snippets.explain import agreement, corpus, findings, tables

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


@pytest.fixture(scope="module")
def corpus_doc():
    return agreement.produce()


@pytest.fixture(scope="module")
def heldout_doc():
    return agreement.produce(module="tests.explain.heldout")


def _disagreements(doc):
    return [(r["case"], r["logged"], r["explain"]) for r in doc["rows"] if not r["agrees"]]


def test_every_corpus_case_names_exactly_the_logged_lines(corpus_doc):
    assert results.validate(corpus_doc, kind=agreement.KIND) and corpus_doc["complete"]
    assert [r["case"] for r in corpus_doc["rows"]] == [c.name for c in corpus.CASES]
    assert _disagreements(corpus_doc) == []


def test_the_corpus_breaks_where_it_means_to(corpus_doc):
    # A corpus whose cases did not break would hold the explainer to nothing.
    rows = {r["case"]: r for r in corpus_doc["rows"]}
    assert sum(bool(r["logged"]) for r in rows.values()) >= len(rows) - 2
    assert rows["with_forward_hook"]["logged"] == []  # a hook makes no break of its own
    assert len(rows["two_breaks"]["logged"]) == 2


def test_every_heldout_case_names_exactly_the_logged_lines(heldout_doc):
    assert _disagreements(heldout_doc) == []
    assert sum(bool(r["logged"]) for r in heldout_doc["rows"]) >= len(heldout_doc["rows"]) - 1


def test_sources_are_cited():
    for case in corpus.CASES:
        assert case.path.startswith(("docs/source/", "test/")) and case.section, case.name
        assert case.source == f"{case.path}: {case.section}"


def test_agreement_findings_count_the_cases(corpus_doc):
    got = findings.agreement(corpus_doc)
    assert got.cases == len(corpus.CASES) and got.snippets == got.cases
    assert 0 <= got.torch <= got.cases
    assert got.torch_missed + got.torch <= got.cases  # a case torch missed is not one it got


def test_agreement_findings_of_made_up_rows():
    def row(logged, mine, theirs):
        return {"logged": logged, "explain": mine, "torch_explain": theirs,
                "agrees": mine == logged, "torch_agrees": theirs == logged}

    doc = {"rows": [row([3], [3], [3]), row([5], [5], []), row([], [], [7]),
                    row([9], [9], None), row([2, 4], [2, 4], [4, 6])]}
    assert findings.agreement(doc) == findings.Agreement(
        cases=5, snippets=5, torch=1, torch_missed=3, torch_invented=2)


def test_agreement_table_has_a_row_per_case(corpus_doc):
    text = tables.agreement(corpus_doc)
    for case in corpus.CASES:
        assert f"`{case.name}`" in text
