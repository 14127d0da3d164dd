"""snippets.explain held to Dynamo's own graph_breaks log: every logged line named, none invented,
on the corpus the page shows and on cases kept out of it."""

from __future__ import annotations

import pytest

from snippets.core import results
from snippets.explain import agreement, corpus, tables

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
        path, _, section = case.source.partition(": ")
        assert path.startswith(("docs/source/", "test/")) and section, case.name


def test_agreement_table_has_a_row_per_case(corpus_doc):
    text = tables.agreement(corpus_doc)
    assert f"Of {len(corpus_doc['rows'])} cases" in text
    for case in corpus.CASES:
        assert f"`{case.name}`" in text
