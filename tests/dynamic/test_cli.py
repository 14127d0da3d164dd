"""python -m snippets.dynamic: a run's file and table, and one line for each mistake."""

from __future__ import annotations

import json

import pytest

from snippets import dynamic
from snippets.core import results
from snippets.dynamic.__main__ import main

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


def test_cli_json_with_the_eager_backend(capsys, tmp_path):
    out = tmp_path / "dynamic.json"
    argv = ["--device", "cpu", "--backend", "eager", "--strategies", "dynamic=True",
            "--format", "json", "--output", str(out)]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == json.loads(out.read_text())
    assert results.validate(doc, kind="dynamic-shapes") and doc["complete"]
    assert doc["provenance"]["settings"]["limit_name"] == dynamic.recompile_limit_name()
    assert [r["strategy"] for r in doc["rows"]] == ["dynamic=True"]
    assert [r["variant"] for r in doc["steady"]] == ["eager", "dynamic=True", "dynamic=False"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--strategies", "sometimes"], "unknown strategy 'sometimes'"),
    (["--device", "tpu"], "unknown device 'tpu'"),
    (["--output", "/no/such/folder/x.json"], "does not exist"),
    (["--format", "yaml"], "invalid choice"),
])
def test_cli_mistakes_are_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and message in err and err.count("\n") == 1


def test_cli_refuses_an_unknown_size(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--size", "huge"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "invalid choice: 'huge'" in err and err.count("\n") == 1
