"""python -m snippets.explain on a transformers BERT called with keyword arguments."""

from __future__ import annotations

import json

import pytest

from snippets.explain.__main__ import main
from tests import cli_run


def test_keyword_args_reach_the_model(capsys):
    pytest.importorskip("transformers")
    code, out, err = cli_run.run(main, capsys, "tests.real_models:bert_call", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["graph_count"] >= 1
