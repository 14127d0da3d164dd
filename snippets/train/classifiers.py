"""The models the training page trains, as ``core.models`` factories whose module returns class
logits: the guide's two, and two tiny ones for a CPU."""

from __future__ import annotations

import torch
from torch import nn

from snippets.core import models

CLASSES = 1000  # ResNet-50's ImageNet head; the other models use the same number


class Classifier(nn.Module):
    """A sequence encoder and a linear head on its output at the first position."""

    def __init__(self, encoder: nn.Module, width: int, classes: int = CLASSES) -> None:
        super().__init__()
        self.encoder, self.head = encoder, nn.Linear(width, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(x)[:, 0])


def without_dropout(model: nn.Module) -> nn.Module:
    for m in model.modules():
        if isinstance(m, nn.Dropout):
            m.p = 0.0
        elif isinstance(m, nn.MultiheadAttention):
            m.dropout = 0.0  # attention's own dropout is a float, not a module
    return model


def transformer(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    """The guide's six-layer encoder (d_model 512, sequence 128) with a 1000-class head."""
    encoder, x = models.transformer(batch_size)
    return Classifier(without_dropout(encoder), width=512), x


def tiny_cnn(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    """ResNet's kind of layers (convolution, batch norm, ReLU, pooling) at 32x32, small enough to
    compile and train in seconds on two CPU cores."""
    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

    model = nn.Sequential(*block(3, 16), nn.MaxPool2d(2), *block(16, 32),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, CLASSES))
    return model, torch.randn(batch_size, 3, 32, 32)


def tiny_transformer(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    """The guide's encoder layer at d_model 64, one layer, sequence 32, with the same head."""
    layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0,
                                       batch_first=True)
    encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
    return Classifier(encoder, width=64), torch.randn(batch_size, 32, 64)


BUILTIN: dict[str, models.Factory] = {
    "resnet50": models.resnet50, "transformer": transformer,
    "tiny-cnn": tiny_cnn, "tiny-transformer": tiny_transformer,
}
