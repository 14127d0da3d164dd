"""The benchmark held to an independent timer: one configuration, alone in a process of its own.

A timer in the benchmark's own rounds (``bench.crosscheck``) cannot see what its process adds:
the other modes' graphs and memory, the order of the calls. Here a separate process builds one
model under the benchmark's settings, compiles one mode and times back-to-back calls between two
CUDA events; ``of`` sets each process beside the benchmark's median for the same configuration.

    python -m snippets.bench.independent --model resnet50 --batch-size 1 \
        --mode reduce-overhead --output FILE
"""

from __future__ import annotations

import enum
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from snippets import bench
from snippets.bench import kinds
from snippets.core import backends, cli, measure, models, results, stamps
from snippets.core import rows as typed

KIND = kinds.INDEPENDENT.name
AGREE = 0.03  # the harness and this timer agree where their medians are within 3 %


# --8<-- [start:alone]
# Back-to-back calls between two events: a CUDA-graph replay lasts 0.3-2 ms.
CALLS = 200
REPEATS = 30  # event pairs, each one sample
WARMUP = 20  # calls before any timing: CUDA-graph capture happens here


def time_alone(model, x, mode, *, calls=CALLS, repeats=REPEATS):
    """Milliseconds per call of ``mode``: one sample per pair of CUDA
    events around ``calls`` back-to-back calls."""
    import torch

    fn = model if mode == "eager" else torch.compile(model, mode=mode)
    for _ in range(WARMUP):
        fn(x)
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn(x)
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / calls)
    return samples
# --8<-- [end:alone]


def document(name: str, bs: int, mode: str, *, commit: str | None = None) -> dict[str, Any]:
    """One process's results document: a single row, timed alone."""
    device = torch.device("cuda")
    settings = backends.DEFAULT["cuda"]
    dtype = bench.DEFAULTS["cuda"]["dtype"]
    doc = results.new_document(KIND, results.provenance(device, {
        "dtype": dtype, "tf32": settings.tf32, "cudnn_benchmark": settings.cudnn_benchmark,
        "backends": settings.as_dict(), "calls": CALLS, "repeats": REPEATS, "warmup": WARMUP,
        "grad": False}, commit=commit))
    row: dict[str, Any] = {"model": name, "batch_size": bs, "mode": mode, "status": "ok",
                           "message": "", "latency_ms": None, "calls_per_sample": CALLS}
    try:
        with settings.apply(), torch.no_grad():
            model, x = models.build(models.BUILTIN[name], name, bs)
            model = model.to(device, bench.DTYPES[dtype]).eval()
            x = x.to(device, bench.DTYPES[dtype])
            row["latency_ms"] = measure.Measurement(tuple(time_alone(model, x, mode))).as_dict()
    except Exception as exc:  # the fault is this process's one row
        row["status"], row["message"] = typed.fault(exc)
    doc["rows"].append(row)
    doc["complete"] = True
    return doc


# ---- findings -----------------------------------------------------------------------------------

class Agreement(str, enum.Enum):
    AGREES = "agrees"  # within AGREE of the benchmark's median
    HARNESS_LOWER = "harness lower"
    HARNESS_HIGHER = "harness higher"


@dataclass(frozen=True)
class Check:
    """One configuration: the harness's median, each process's, and the harness's over theirs."""

    model: str
    batch: int
    mode: str
    harness_ms: float
    alone_ms: tuple[float, ...]  # one median per process
    ratio: float
    agreement: Agreement


def of(bench_doc: dict[str, Any], alone: list[dict[str, Any]]) -> list[Check]:
    """Each configuration timed alone, set beside the benchmark run's median for it."""
    harness = {(r.key.model, r.key.batch, r.key.variant): r.median
               for r in results.typed_rows(bench_doc) if r.timed}
    medians: dict[tuple[str, int, str], list[float]] = {}
    for doc in alone:
        for r in results.typed_rows(doc):
            if r.timed:
                medians.setdefault((r.key.model, r.key.batch, r.key.variant), []).append(r.median)
    out = []
    for key, got in medians.items():
        if key not in harness:
            continue
        ratio = harness[key] / statistics.median(got)
        agreement = (Agreement.AGREES if abs(ratio - 1) <= AGREE else
                     Agreement.HARNESS_LOWER if ratio < 1 else Agreement.HARNESS_HIGHER)
        out.append(Check(*key, harness[key], tuple(got), ratio, agreement))
    return out


def table(checks: list[Check]) -> str:
    """A row per configuration: the harness's median, this timer's, their ratio, the verdict."""
    from snippets.core import columns, render

    key = (columns.Column("Model", lambda c: c.model, left=True),
           columns.Column("Batch", lambda c: c.batch, left=True),
           columns.Column("Mode", lambda c: c.mode, left=True))
    return columns.markdown(checks, key, (
        columns.ms("Harness", lambda c: c.harness_ms),
        columns.Column("Alone", lambda c: ", ".join(render.ms(v) for v in c.alone_ms),
                       notes=(columns.IN_MS,)),
        columns.number("Harness / alone", lambda c: c.ratio, ".3f"),
        columns.words("Verdict", lambda c: c.agreement.value)))


FOLDER = "independent"  # beside a run folder's other files: the harness's run and one per process


def recorded(results_dir: Path) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The newest GPU run folder's ``independent/``: its benchmark run and its processes by date."""
    for folder in sorted(Path(results_dir).glob(f"*/{FOLDER}"), reverse=True):
        harness = folder / "bench.json"
        docs = [results.load(p) for p in folder.glob("*.json") if p.name != harness.name]
        if harness.exists() and docs and results.device_type_of(docs[0]) == "cuda":
            return results.load(harness), sorted(docs, key=lambda d: d["provenance"]["date"])
    return None


def stamp(docs: list[dict[str, Any]]) -> str:
    """One stamp for the processes timed alone."""
    from snippets.core import render

    prov, settings = docs[0]["provenance"], docs[0]["provenance"]["settings"]
    return stamps.several(docs, "recorded alone", [
        prov["device"], f"torch {prov['torch']}",
        f"{settings['calls']} calls × {settings['repeats']} event pairs",
    ], render.count(len(docs), "process", "processes"))


def alone_table(doc: dict[str, Any]) -> str:
    """One process's row as the Results page shows it: its median, spread and samples."""
    from snippets.core import columns

    lat = lambda r: r.get("latency_ms") or {}  # noqa: E731 (one reading, three columns)
    key = (columns.field("Model", "model"), columns.field("Batch", "batch_size"),
           columns.field("Mode", "mode"))
    return columns.markdown(doc["rows"], key, (
        columns.ms("Median", lambda r: lat(r).get("median")),
        columns.ms("IQR", lambda r: lat(r).get("iqr")),
        columns.Column("Samples", lambda r: len(lat(r).get("samples", []))),
        columns.Column("Calls each", lambda r: r["calls_per_sample"]),
        columns.words("Status", lambda r: r["status"])))


def main(argv: list[str] | None = None) -> int:
    prog = "python -m snippets.bench.independent"
    p = cli.Parser(prog=prog, description="Time one configuration alone.")
    p.add_argument("--model", required=True, choices=list(models.BUILTIN))
    p.add_argument("--batch-size", type=cli.positive_int, required=True)
    p.add_argument("--mode", required=True, choices=list(bench.MODES))
    p.add_argument("--output", type=Path, required=True, help="write the results file here")
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        cli.fail(prog, "needs a CUDA device")
    cli.check_output(prog, args.output)
    doc = document(args.model, args.batch_size, args.mode, commit=cli.commit_from_env())
    results.write_atomic(args.output, doc)
    row = doc["rows"][0]
    print(row["status"], (row["latency_ms"] or {}).get("median"), "ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
