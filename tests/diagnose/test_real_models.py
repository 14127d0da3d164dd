"""The diagnosis of models nobody here wrote: a transformers GPT-2, BERT and T5 and a timm model
get a verdict, not "undecided"; keyword and integer inputs reach the model untouched."""

from __future__ import annotations

import pytest
import torch

from snippets import diagnose
from snippets.diagnose import findings
from snippets.diagnose.findings import Advice, Phase, Status
from tests import real_models

pytestmark = pytest.mark.usefixtures("fresh_dynamo")
CFG = diagnose.DiagnoseConfig(device="cpu", shapes="batch=2,4", rounds=2, sample_ms=5.0,
                              budget_s=600.0)


@pytest.mark.parametrize("factory, needs", [
    ("gpt2", "transformers"),
    ("bert", "transformers"),
    ("t5", "transformers"),
    ("timm_resnet", "timm"),
])
def test_a_real_model_gets_a_verdict(factory, needs):
    pytest.importorskip(needs)
    sections = diagnose.diagnose(CFG, getattr(real_models, factory))
    assert [(s.phase, s.status) for s in sections] == [(p, Status.DONE) for p in Phase]
    modes = {m.mode: m for m in sections[1].found}
    assert modes["default"].status == "ok", modes["default"].message
    assert modes["default"].rel_err < 1e-2
    # every strategy ran the model at every batch size; none failed on the inputs
    assert all(not st.errors for st in sections[2].found), [st.errors for st in sections[2].found]
    rec = findings.recommend(sections)
    assert rec.advice in (Advice.COMPILE, Advice.STAY_EAGER)
    # the code to paste calls the model the way its factory's example is passed
    assert sections[0].form == ("**x" if factory in ("bert", "t5") else "x")


def test_token_ids_keep_their_dtype():
    pytest.importorskip("transformers")
    seen = []
    model, ids = real_models.gpt2(2)
    model.register_forward_pre_hook(lambda _m, args: seen.append(args[0].dtype))
    with torch.no_grad():
        diagnose.breaks(model, ids, diagnose.Budget(60))
    assert seen and set(seen) == {torch.int64}
