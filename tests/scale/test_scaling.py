"""``scaling.derive``: each row set against the one-process run, on rows reduced to what it
reads."""

from __future__ import annotations

import pytest

from snippets.scale import scaling


def _row(strategy, variant, median, losses, world=2, **fields):
    """A row reduced to what ``scaling.derive`` reads."""
    row = {"model": "m", "strategy": strategy, "variant": variant, "nodes": 1,
           "nproc_per_node": world, "world_size": world, "global_batch": 8,
           "run_status": "ok", "run_message": "", "step_ms": {"median": median},
           "losses": losses, "batch_norm": False}
    return {**row, **fields}


def test_derive_sets_each_row_against_the_one_process_run():
    rows = scaling.derive([
        _row("single", "eager", 10.0, [2.0, 1.0], world=1),
        _row("ddp", "eager", 6.0, [2.0, 1.0005]),
        _row("ddp", "compiled", 4.0, [2.0, 1.5]),  # learns something else
        _row("fsdp2", "eager", 5.0, [2.0, 1.2], batch_norm=True),  # batch norm: per rank
    ], tolerance=1e-3)
    one, ddp, wrong, norm = rows
    assert one["loss_gap"] is None and one["scaling_efficiency"] is None  # the reference
    assert ddp["scaling_efficiency"] == pytest.approx(10 / (2 * 6))
    assert ddp["loss_gap"] == pytest.approx(0.0005 / 2) and ddp["status"] == "ok"
    assert wrong["scaling_efficiency"] is None  # no compiled run in one process
    assert wrong["loss_gap_eager"] == pytest.approx((1.5 - 1.0005) / 2)  # from ddp eager
    assert wrong["status"] == "mismatch" and "eager gap" in wrong["message"]
    assert norm["loss_gap"] == pytest.approx(0.1) and norm["status"] == "ok"
    # derived again from the same rows, nothing changes: a status is never carried over
    assert scaling.derive(rows, tolerance=1e-3) == rows
