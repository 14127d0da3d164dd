"""Which rows each of the scale page's tables shows: shared by the tables and the findings."""

from __future__ import annotations

from typing import Any

from snippets.core import rows as core_rows
from snippets.core.profile import profile_of
from snippets.scale.wrap import VARIANTS

Row = dict[str, Any]


def median(row: Row | None) -> float | None:
    """A row's median step time (ms)."""
    return core_rows.median(row, "step_ms")


def label(row: Row, *parts: str) -> str:
    return " · ".join(str(row[p]) for p in parts)


def main_bucket(doc: dict[str, Any]) -> float | None:
    """The bucket size of the run's first command: the one the main table shows."""
    caps = doc["provenance"]["settings"].get("bucket_caps") or [None]
    return caps[0]


def main_rows(doc: dict[str, Any]) -> list[Row]:
    """One node, the main bucket size, and not the tuning variants."""
    cap = main_bucket(doc)
    return [r for r in doc["rows"] if r["nodes"] == 1 and r["bucket_cap_mb"] in (None, cap)
            and r["variant"] in ("eager", "compiled", "per-block")]


def profile(row: Row) -> dict[str, Any] | None:
    """A row's profile, where the profiler ran, did not fail and saw anything at all."""
    p = profile_of(row)
    return p if p and p.get("span_us_per_call") else None


def profiled_rows(doc: dict[str, Any]) -> list[Row]:
    return [r for r in main_rows(doc) if profile(r)]


def one_gpu_rows(train: dict[str, Any]) -> dict[tuple[str, str, int], Row]:
    """The training run's ``model`` step per model and batch, and its own command's eager."""
    seen: dict[tuple[str, str, int], Row] = {}
    timed = [r for r in train["rows"] if r.get("step_ms")]
    for r in timed:
        k = (r["model"], r["variant"], r["batch_size"])
        if r["variant"] == "model" and k not in seen:
            seen[k] = r
            own = core_rows.own_baseline(timed, r, lambda e: e["variant"] == "eager")
            if own is not None:
                seen[(r["model"], "eager", r["batch_size"])] = own
    paired = set(seen)
    for r in timed:  # a batch with no compiled step: its eager step, the one with a profile
        k = (r["model"], "eager", r["batch_size"])
        if r["variant"] == "eager" and k not in paired and (
                k not in seen or (profile(r) and not profile(seen[k]))):
            seen[k] = r
    return dict(sorted(seen.items()))


def _order(row: Row) -> int:
    return VARIANTS.index(row["variant"]) if row["variant"] in VARIANTS else len(VARIANTS)


def bucket_rows(doc: dict[str, Any]) -> list[Row]:
    return sorted((r for r in doc["rows"] if r["strategy"] == "ddp" and r["nodes"] == 1),
                  key=lambda r: (r["model"], _order(r), r["bucket_cap_mb"] or 0))


def block_rows(doc: dict[str, Any]) -> list[Row]:
    return sorted((r for r in doc["rows"] if r["strategy"] == "fsdp2" and r["nodes"] == 1
                   and r["variant"] != "compiled-autograd"), key=lambda r: (r["model"], _order(r)))


def autograd_rows(doc: dict[str, Any]) -> list[Row]:
    """Compiled autograd and the model compiled alone, of each model and strategy that has it."""
    cap = main_bucket(doc)
    pairs = {(r["model"], r["strategy"]) for r in doc["rows"]
             if r["variant"] == "compiled-autograd"}
    return [r for r in doc["rows"] if (r["model"], r["strategy"]) in pairs and r["nodes"] == 1
            and r["variant"] in ("compiled", "compiled-autograd")
            and r["bucket_cap_mb"] in (None, cap)]


def node_rows(doc: dict[str, Any]) -> list[Row]:
    """The several-node rows and the one-node rows of as many ranks."""
    multi = [r for r in doc["rows"] if r["nodes"] > 1]
    worlds = {(r["model"], r["strategy"], r["variant"], r["world_size"]) for r in multi}
    caps = (None, main_bucket(doc), *(m["bucket_cap_mb"] for m in multi))
    rows = [r for r in doc["rows"] if (r["model"], r["strategy"], r["variant"],
                                       r["world_size"]) in worlds and r["bucket_cap_mb"] in caps]
    return sorted(rows, key=lambda r: (r["model"], r["strategy"], r["variant"], r["nodes"]))


def loss_rows(doc: dict[str, Any]) -> list[Row]:
    return [r for r in main_rows(doc) if r.get("losses")]
