"""snippets.core.topic: a topic's record, and the gathering of every topic's."""

import pytest

from snippets.core.topic import Findings, Topic, gather
from snippets.site import topics


def test_a_name_two_topics_claim_is_an_error():
    a = Topic("a", (), findings={"x": Findings(len, ("k",))})
    b = Topic("b", (), findings={"x": Findings(len, ("k",))})
    assert gather((a,), "findings") == {"x": a.findings["x"]}
    with pytest.raises(ValueError, match="'x' is claimed twice"):
        gather((a, b), "findings")


def test_every_package_writes_one_record_and_every_kind_it_declares_is_in_it():
    names = {t.name for t in topics.TOPICS}
    assert len(names) == len(topics.TOPICS) == 12
    declared = {k.name for t in topics.TOPICS for k in t.kinds}
    assert declared | {topics.SITE_KIND} == set(topics.KINDS)


def test_every_kind_the_results_page_draws_is_declared():
    # (a producer is named by its file, "bench-crosscheck", which may be a declared kind's run)
    declared = {k.name for t in topics.TOPICS for k in t.kinds}
    assert set(topics.TABLES) <= declared
