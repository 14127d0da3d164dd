"""``cpu_scale_run``: a real results file of ``snippets.scale`` on this machine's CPU, made once per
test session as a user splits a run over commands (``--append``): the one-process reference, DDP
eager and compiled over two gloo processes, FSDP2 compiled per block, and DDP over two "nodes" of
one process each meeting at a c10d rendezvous; then FSDP2 with each block compiled in place, for the
MLP and for an encoder of ``torch.nn``'s own layers. Every configuration runs through the real
launcher.
The model is ``tests.scale.models:mlp``; the Inductor cache is the environment's (``shared``), so
the compiles cost seconds, not the tens of seconds an empty cache costs on two cores. About a
minute in all. Tests that need a genuine scale document use it; none writes numbers into one by
hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from snippets import scale
from snippets.core import results

ROOT = Path(__file__).resolve().parents[2]
MLP = "tests.scale.models:mlp"
QUICK = {"device": "cpu", "models": (MLP,), "steps": 4, "rounds": 3, "inductor_cache": "shared"}
COMMANDS = (
    {"strategies": ("single",), "variants": ("eager",)},
    {"strategies": ("ddp",), "variants": ("eager", "compiled")},
    {"strategies": ("fsdp2",), "variants": ("per-block",)},
    {"strategies": ("ddp",), "variants": ("eager",), "nodes": 2, "nproc": 1},
    # a block of one's own class and a block of torch.nn's own, compiled in place once sharded
    {"strategies": ("fsdp2",), "variants": ("per-block-inplace",),
     "models": (MLP, "small-transformer")},
)


@pytest.fixture(scope="session")
def cpu_scale_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("scale-run") / "scale.json"
    doc = None
    for fields in COMMANDS:
        doc = scale.document(scale.ScaleConfig(**{**QUICK, **fields}), old=doc)
    results.write_atomic(out, doc)
    return out
