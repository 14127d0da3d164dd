"""The results document of a measuring run: provenance, the peak measured first (``ceilings``
where the rows are read against a roofline), then the rows, each handed to ``on_row``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch

from snippets.core import machine, measure, results


def document(kind: str, device: torch.device, settings: dict[str, Any],
             rows: Callable[[float | None], Iterable[dict[str, Any]]],
             progress: Callable[[str], None], on_row: Callable[[dict[str, Any]], None], *,
             commit: str | None = None,
             ceilings: Callable[[torch.device], dict[str, Any]] | None = None) -> dict[str, Any]:
    """``rows(peak_tflops)`` yields the run's rows; the document is complete once all are in."""
    settings = {**settings, "inductor_cache": machine.inductor_cache()}
    doc = results.new_document(kind, results.provenance(device, settings, commit=commit))
    prov = doc["provenance"]
    if ceilings is not None:
        progress("measuring the ceilings")
        prov["ceilings"] = ceilings(device)
        if prov["ceilings"].get("matmul_dtype") == "bf16":  # the field every page reads
            prov["peak_bf16_tflops"] = prov["ceilings"]["matmul_tflops"]
    elif device.type == "cuda":
        progress("measuring the bf16 matmul peak")
        prov["peak_bf16_tflops"] = measure.matmul_peak_tflops(device)
    peak = prov.get("peak_bf16_tflops") or (prov.get("ceilings") or {}).get("matmul_tflops")
    return fill(doc, rows(peak), on_row)


def fill(doc: dict[str, Any], rows: Iterable[dict[str, Any]],
         on_row: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """``doc`` with each row added and handed to ``on_row``, then marked ``complete``."""
    for row in rows:
        doc["rows"].append(row)
        on_row(doc)
    doc["complete"] = True
    return doc
