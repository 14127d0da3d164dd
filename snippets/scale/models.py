"""The models a scale run trains: the training page's classifiers (``snippets.train.classifiers``),
and one more for a CPU."""

from __future__ import annotations

import torch
from torch import nn

from snippets.core import models
from snippets.train import classifiers


def small_transformer(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    """Two encoder layers at d_model 128 (feed-forward 512, sequence 32), no dropout, and the
    training page's 1000-class head: about 525 thousand weights."""
    layer = nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=512, dropout=0.0,
                                       batch_first=True)
    encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    return classifiers.Classifier(encoder, width=128), torch.randn(batch_size, 32, 128)


BUILTIN: dict[str, models.Factory] = {**classifiers.BUILTIN, "small-transformer": small_transformer}


def factory(spec: str) -> models.Factory:
    """A built-in model by name, or a user's ``pkg.module:factory`` (SpecError if it is neither)."""
    return BUILTIN.get(spec) or models.load_factory(spec)
