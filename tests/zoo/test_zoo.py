"""python -m snippets.zoo: a run over the catalog's factories in which a model that fails is its
own rows and the others are measured; one line and exit 2 for each mistake."""

from __future__ import annotations

import pytest

from snippets import zoo
from snippets.core import results
from snippets.zoo import catalog
from snippets.zoo.__main__ import PROG, main
from tests import cli_run, real_models


def _broken(batch_size: int):
    raise RuntimeError("planted: this architecture does not build")


@pytest.mark.parametrize("argv, expect", [
    (["--models", "resnet5"], "unknown model 'resnet5'"),
    (["--families", "rnn"], "unknown family 'rnn'"),
    (["--models", "gpt2", "--families", "convolutional", "--device", "cpu"],
     "--families"),
    (["--batch-sizes", "0"], "0 is not a positive number"),
])
def test_mistakes_are_one_line(capsys, argv, expect):
    cli_run.assert_one_line_error(*cli_run.run(main, capsys, *argv), expect, prog=PROG)


def test_a_model_that_fails_is_its_own_rows(monkeypatch):
    pytest.importorskip("transformers")
    tiny = (catalog.Entry("gpt2", "decoder", "transformers", "16 tokens", real_models.gpt2),
            catalog.Entry("broken", "other", "none", "-", _broken))
    monkeypatch.setattr(zoo.ZooConfig, "entries", lambda self: tiny)
    cfg = zoo.ZooConfig(device="cpu", models=("gpt2",), batch_sizes=(2,), rounds=2,
                        warm_rounds=0)
    doc = zoo.document(cfg)
    results.validate(doc)
    by = {(r["model"], r["mode"]): r for r in doc["rows"]}
    assert by["broken", "eager"]["status"] == "error"
    assert "planted" in by["broken", "default"]["message"]
    assert by["gpt2", "default"]["status"] in ("ok", "noisy")
    assert by["gpt2", "default"]["family"] == by["gpt2", "eager"]["family"] == "decoder"
    assert by["broken", "default"]["family"] == "other"
    # each mode compiled with an empty cache, its graphs counted and none compiled again
    assert doc["provenance"]["settings"]["cold_compile"] is True
    assert by["gpt2", "default"]["graphs_compiled"] >= 1
    assert by["gpt2", "default"]["recompiles"] == 0


def test_the_cpu_default_is_the_cpu_set():
    cfg = zoo.ZooConfig(device="cpu").resolve()
    assert {e.name for e in cfg.entries()} == {e.name for e in catalog.ZOO if e.cpu}
    assert cfg.dtype == "fp32" and cfg.batch_sizes == (1,)


def test_append_joins_commands_into_one_file(monkeypatch, capsys, tmp_path):
    """The whole zoo outlasts one command: --append adds a command's models to the file."""
    pytest.importorskip("transformers")
    tiny = {e.name: e for e in (
        catalog.Entry("gpt2", "decoder", "transformers", "16 tokens", real_models.gpt2),
        catalog.Entry("bert_base", "encoder", "transformers", "16 tokens", real_models.bert))}
    monkeypatch.setattr(zoo.ZooConfig, "entries",
                        lambda self: tuple(tiny[n] for n in self.resolve().models))
    out = tmp_path / "zoo.json"
    common = ["--device", "cpu", "--batch-sizes", "2", "--rounds", "2", "--warm-rounds", "0",
              "--output", str(out)]
    assert cli_run.run(main, capsys, "--models", "gpt2", *common)[0] == 0
    assert cli_run.run(main, capsys, "--models", "bert_base", *common, "--append")[0] == 0
    doc = results.load(out, zoo.KIND)
    assert {r["model"] for r in doc["rows"]} == {"gpt2", "bert_base"}
    assert doc["provenance"]["settings"]["models"] == ["gpt2", "bert_base"]
    assert len(doc["provenance"]["parts"]) == 2
    # another setting is another run: its rows would not stand in one table
    code, _, err = cli_run.run(main, capsys, "--models", "gpt2", *common, "--append",
                               "--dtype", "bf16")
    assert code == 2 and "dtype" in err


def _part(models, rows, complete):
    prov = {"date": "d", "commit": "c", "settings": {"models": models, "batch_sizes": [1],
                                                     "modes": ["eager", "default"]}}
    return {"provenance": prov, "complete": complete,
            "rows": [{"model": m, "batch_size": 1, "mode": mode} for m, mode in rows]}


def test_a_stopped_command_leaves_the_file_incomplete_until_its_rows_are_all_measured():
    stopped = _part(["a", "b"], [("a", "eager"), ("a", "default"), ("b", "eager")], False)
    rest = _part(["c"], [("c", "eager"), ("c", "default")], True)
    assert not zoo.join(stopped, rest)["complete"]  # b's default was never measured
    again = _part(["b"], [("b", "eager"), ("b", "default")], True)
    assert zoo.join(zoo.join(stopped, rest), again)["complete"]
