"""Training: its one topic record (``snippets.core.topic``)."""

from __future__ import annotations

from snippets import train
from snippets.core.topic import Findings, Producer, Topic
from snippets.train import findings, kinds, tables

TOPIC = Topic("train", (kinds.TRAIN,), producers={
    # Training on a GPU is recorded command by command (``python -m snippets.train --append``).
    "train": Producer(("cpu",), train.produce_on),
}, findings={"train": Findings(findings.of, ("train", "train-repeat"))},
              tables={kinds.TRAIN.name: tables.table})
