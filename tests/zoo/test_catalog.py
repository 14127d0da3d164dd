"""The zoo's catalog: at least 24 real architectures over every family, each built from its
library's config (on the meta device: no memory, no weights) with an example every tool takes."""

from __future__ import annotations

import pytest
import torch

from snippets.core import examples
from snippets.zoo import catalog

pytest.importorskip("timm")
pytest.importorskip("transformers")


def test_every_family_has_models_and_the_cpu_set_too():
    assert len(catalog.ZOO) >= 24
    assert len({e.name for e in catalog.ZOO}) == len(catalog.ZOO)
    assert {e.family for e in catalog.ZOO} == set(catalog.FAMILIES)
    assert {e.family for e in catalog.ZOO if e.cpu} >= {"convolutional", "encoder", "decoder"}


@pytest.mark.parametrize("entry", catalog.ZOO, ids=lambda e: e.name)
def test_each_model_builds_with_an_example_of_its_batch(entry):
    with torch.device("meta"):
        model, example = entry.build(3)
    examples.check(example)
    assert examples.batch_size(example) == 3
    params = sum(p.numel() for p in model.parameters())
    assert 1e6 < params < 2e9  # the ~100 M to ~1 B scale the zoo is for, a small CNN included
    for t in examples.tensors(example):  # token ids stay integers, images are float
        assert t.dtype in (torch.int64, torch.float32)


def test_every_tool_takes_a_zoo_model_by_its_spec():
    from snippets.core import models

    assert models.load_factory("snippets.zoo.catalog:bert_base") is catalog.ZOO[
        [e.name for e in catalog.ZOO].index("bert_base")].build
    assert models.load_factory("snippets.zoo.catalog:qwen2_0.5b")  # a dot in the name is fine
    with pytest.raises(models.SpecError, match="no callable 'bert'"):
        models.load_factory("snippets.zoo.catalog:bert")
