"""Tiny models for the CPU tool's tests: a convolutional net on an image batch and a text model on
a dict of token ids and a mask, each compiled and exported in seconds."""

from __future__ import annotations

import torch
from torch import nn


class Text(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(100, 32)
        self.mix = nn.Linear(32, 32)
        self.norm = nn.LayerNorm(32)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        h = self.norm(torch.relu(self.mix(self.embed(input_ids))))
        mask = attention_mask.unsqueeze(-1).to(h.dtype)
        return (h * mask).sum(1) / mask.sum(1)


def conv(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
    return model, torch.randn(batch_size, 3, 16, 16)


def text(batch_size: int) -> tuple[nn.Module, dict[str, torch.Tensor]]:
    return Text(), {"input_ids": torch.randint(0, 100, (batch_size, 12)),
                    "attention_mask": torch.ones(batch_size, 12, dtype=torch.long)}


class Branchy(nn.Module):
    """A branch on a tensor's value: torch.export cannot trace it without a rewrite."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2 if x.sum() > 0 else x - 1


def unexportable(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    return Branchy(), torch.randn(batch_size, 4)
