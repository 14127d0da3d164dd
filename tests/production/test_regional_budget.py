"""Regional compilation's shared recompile budget on the installed torch (2.14.1): every
block.compile() compiles Module._call_impl, so different blocks share its
torch._dynamo.config.recompile_limit; isolate_recompiles=True gives each its own."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch._dynamo.utils import counters

from snippets.production import paths

BLOCKS = 10  # more different blocks than the default recompile limit


def _graphs(**compile_args) -> int:
    """Graphs Dynamo captured for BLOCKS different tiny blocks, each compiled with
    block.compile(backend="eager") and called once."""
    torch._dynamo.reset()
    counters.clear()
    blocks = [nn.Linear(4 + i, 4 + i) for i in range(BLOCKS)]
    for block in blocks:
        block.compile(backend="eager", **compile_args)
    for i, block in enumerate(blocks):
        block(torch.randn(2, 4 + i))
    torch._dynamo.reset()
    return counters["stats"]["unique_graphs"]


@pytest.mark.filterwarnings("ignore")  # Dynamo warns once as it hits the limit
def test_different_blocks_share_one_budget_unless_isolated():
    limit = torch._dynamo.config.recompile_limit
    assert limit == 8 < BLOCKS
    assert _graphs() == limit  # the other two blocks run eager
    assert paths.ISOLATED == {"isolate_recompiles": True}
    assert _graphs(**paths.ISOLATED) == BLOCKS


def test_compile_regions_gives_each_block_its_own_budget():
    model = nn.Module()
    model.layers = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))
    paths.compile_regions(model)
    ids = [block._compiled_call_impl._isolate_recompiles_id for block in model.layers]
    assert min(ids) >= 0 and len(set(ids)) == 3  # -1 is the shared default
