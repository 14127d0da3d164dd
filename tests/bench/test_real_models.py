"""python -m snippets.bench on models nobody here wrote: token ids stay integers, keyword inputs
reach the model, a ``ModelOutput`` is checked leaf by leaf, and no row is a fault."""

from __future__ import annotations

import pytest

from snippets.bench.__main__ import main
from snippets.core import results
from tests import cli_run

QUICK = ["--device", "cpu", "--rounds", "2", "--warm-rounds", "0",
         "--batch-sizes", "2"]


@pytest.mark.parametrize("factory, needs", [
    ("gpt2", "transformers"),
    ("bert", "transformers"),
    ("t5", "transformers"),
    ("timm_resnet", "timm"),
    ("two_inputs", None),
])
def test_every_row_is_ok(tmp_path, capsys, factory, needs):
    if needs:
        pytest.importorskip(needs)
    out = tmp_path / "r.json"
    code, _, err = cli_run.run(main, capsys, "--model", f"tests.real_models:{factory}", *QUICK,
                               "--output", str(out))
    assert code == 0, err
    rows = results.load(out)["rows"]
    assert {r["mode"] for r in rows} == {"eager", "default"}
    # noisy is a verdict on the timing of a busy machine, not a fault of the model
    assert all(r["status"] in ("ok", "noisy") for r in rows), [r.get("message") for r in rows]
    compiled = next(r for r in rows if r["mode"] == "default")
    assert compiled["graph_count"] >= 1 and compiled["rel_err"] < 1e-2
