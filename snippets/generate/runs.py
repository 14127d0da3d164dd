"""What a decode ladder and a loop run share: the process-wide switches they run under, their
tokens checked against eager's, their calls timed together and a step's rate read."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch
import torch._dynamo.config
import torch._inductor.config

from snippets.core import backends, measure, rows
from snippets.core.counters import graphs_compiled
from snippets.generate import model as M

# Every rung compiles ``decode_step``'s one code object again (another model copy, another
# option), and Dynamo keeps each compile as an entry on that code object, falling back to eager
# once a frame has ``recompile_limit`` (8) of them (torch/_dynamo/cache_size.py,
# exceeds_recompile_limit). One ladder makes five; two in one process (a test run, a site build)
# would pass 8 and time eager under a compiled rung's name.
RECOMPILE_LIMIT = 64


@contextlib.contextmanager
def run_settings(device: torch.device) -> Iterator[None]:
    """The process-wide switches a ladder runs under, restored after it."""
    # Off, each rung's compile_s is its own compile, not a hit on a graph an earlier rung (or an
    # earlier run) left in Inductor's cache.
    with torch._dynamo.config.patch(recompile_limit=RECOMPILE_LIMIT), \
            torch._inductor.config.patch(fx_graph_cache=False), \
            backends.DEFAULT[device.type].apply(), torch.no_grad():
        yield


def tokens_checked(row: dict[str, Any], ref: list, exact: bool) -> None:
    """A row's tokens against ``ref`` (eager's, or the gpt-fast loop's for the naive one):
    where they part, and a mismatch where they must not (``exact``)."""
    if row["tokens"] and ref:
        row["first_diff"] = M.first_diff(torch.tensor(row["tokens"]), torch.tensor(ref))
        if row["first_diff"] is not None and exact:
            row["status"] = rows.Status.MISMATCH.value
            row["message"] = f"tokens differ from step {row['first_diff']}"


def time_together(calls: dict[str, Callable[[], Any]], dev: torch.device, cfg: Any,
                  doc: dict[str, Any], key: Callable[[dict[str, Any]], str], warmup: int
                  ) -> measure.Timed | None:
    """``calls`` timed in the same rounds; None, with each timed row (``key``) faulted, where a
    replay failed."""
    before = graphs_compiled()
    try:
        timed = measure.measure_variants(calls, dev, rounds=cfg.rounds, sample_ms=cfg.sample_ms,
                                         warmup=warmup)
    except Exception as exc:  # noqa: BLE001 (a replay that fails leaves the rows untimed)
        for row in doc["rows"]:
            if key(row) in calls:
                row["status"], row["message"] = rows.fault(exc)
        return None
    # 0 where every timed call ran what its first call compiled: the evidence that no row's
    # time holds a compile (or, past the recompile limit, eager code)
    doc["compiles_while_timed"] = graphs_compiled() - before
    return timed


def read_rate(row: dict[str, Any], m: measure.Measurement, batch: int, copy_gbps: float) -> None:
    """A timed step's tokens per second and bandwidth, from its bytes per step."""
    if row["message"] == "not timed yet":
        row["message"] = ""
    row["tokens_per_s"] = batch * 1e3 / m.median
    row["gbps"] = row["bytes_per_step"] / (m.median * 1e-3) / 1e9
    row["of_copy_bw"] = row["gbps"] / copy_gbps
