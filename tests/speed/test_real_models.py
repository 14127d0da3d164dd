"""The speed ladder and the settings grid on models nobody here wrote: keyword and integer
inputs reach the model, each rung's ModelOutput is checked leaf by leaf, no rung is a fault."""

from __future__ import annotations

import pytest
import torch

from snippets.speed import ladder, settings
from tests import real_models

pytestmark = pytest.mark.usefixtures("fresh_dynamo")
CPU = torch.device("cpu")
QUICK = {"rounds": 2, "warm_rounds": 0, "sample_ms": 5.0, "warmup": 1}


@pytest.mark.parametrize("factory", ["bert", "gpt2"])
def test_every_rung_runs_a_text_model(factory):
    pytest.importorskip("transformers")
    with torch.no_grad():
        rows = list(ladder.climb(factory, getattr(real_models, factory), 2, device=CPU,
                                 dtype=torch.float32, autotune=False, tolerance=1e-2, **QUICK))
    assert [r["mode"] for r in rows][:2] == ["eager", "compile"]
    # no channels_last rung: token ids are not an image
    assert not any(r["rung"]["channels_last"] for r in rows)
    assert all(r["status"] in ("ok", "noisy") for r in rows), [r["message"] for r in rows]
    assert all(r["bytes"]["input"] == 2 * real_models.SEQ * 8 * (2 if factory == "bert" else 1)
               for r in rows)  # int64 ids (and BERT's int64 mask), read once


def test_the_settings_grid_takes_keyword_inputs():
    pytest.importorskip("transformers")
    with torch.no_grad():
        rows = list(settings.sweep("bert", real_models.bert, 2, device=CPU, dtype="fp32",
                                     torch_dtype=torch.float32, modes=("default",),
                                     tolerance=1e-2, **QUICK))
    assert rows and all(r["status"] in ("ok", "noisy") for r in rows), rows
