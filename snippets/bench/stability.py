"""How far recorded runs of the same benchmark agree, and what the machine did while they ran:
``of(runs)``, a frozen ``Stability``; ``stability_tables`` draws the evidence."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snippets.bench.findings import CUDA_GRAPH_MODES
from snippets.core import folders, results
from snippets.core.findings import Span

Key = tuple[str, int, str]  # model, batch size, mode
Runs = list[tuple[str, dict[str, Any]]]


@dataclass(frozen=True)
class Widest:
    """Of one mode, the configuration whose speedup moved most from run to run."""

    mode: str
    ratio: float
    model: str
    batch: int
    speedup: Span


@dataclass(frozen=True)
class Correlation:
    """Of one model, eager's correlation with the host canary, over the rows that kept both per
    round."""

    model: str
    corr: Span


@dataclass(frozen=True)
class Noisiest:
    """The noisiest eager group of all runs, and how many times its fastest a slow sample is."""

    label: str
    model: str
    batch: int
    slow: float


@dataclass(frozen=True)
class Figure:
    """The guide's one figure for a configuration: its median speedup over the recorded runs of
    the default matrix. Every page that names what a mode buys here uses it or links to it."""

    model: str
    batch: int
    mode: str
    runs: int
    median: float
    speedup: Span  # lowest and highest over the runs
    key: str = ""  # the configuration, as ``headline`` names it ("device · model · batch · mode")


@dataclass(frozen=True)
class Stability:
    """What the recorded runs of the default matrix say together."""

    runs: int
    figures: tuple[Figure, ...]
    widest: tuple[Widest, ...]
    correlations: tuple[Correlation, ...]  # over the runs the host table shows
    noisiest: Noisiest

    def __getattr__(self, name: str) -> Figure | None:
        """The figures the home page's table states, by their ``STATED`` names."""
        if name not in STATED:
            raise AttributeError(name)
        return next((f for f in self.figures if (f.model, f.batch, f.mode) == STATED[name]), None)


def by_key(doc: dict[str, Any]) -> dict[Key, dict[str, Any]]:
    """A document's rows by (model, batch size, mode)."""
    return {(r["model"], r["batch_size"], r["mode"]): r for r in doc["rows"]}


def speedups(tables: list[dict[Key, dict[str, Any]]], key: Key) -> list[float]:
    return sorted(v for t in tables if (v := t.get(key, {}).get("speedup")))


def figures(runs: Runs) -> tuple[Figure, ...]:
    """Every compiled configuration's figure, in the order the first run lists them."""
    tables = [by_key(doc) for _, doc in runs]
    device = runs[0][1]["provenance"].get("device") if runs else None
    out = []
    for key in (k for k in tables[0] if k[2] != "eager") if tables else ():
        present = speedups(tables, key)
        if present:
            out.append(Figure(*key, len(present), statistics.median(present),
                              Span(present[0], present[-1]),
                              f"{device} · {key[0]} · batch {key[1]} · {key[2]}"))
    return tuple(out)


def widest(runs: Runs) -> tuple[Widest, ...]:
    """Per mode, the configuration whose speedup moved most (of those that ran twice)."""
    tables = [by_key(doc) for _, doc in runs]
    out: dict[str, Widest] = {}
    for key in (k for k in tables[0] if k[2] != "eager") if tables else ():
        present = speedups(tables, key)
        if len(present) > 1 and present[-1] / present[0] > getattr(out.get(key[2]), "ratio", 0):
            out[key[2]] = Widest(key[2], present[-1] / present[0], key[0], key[1],
                                 Span(present[0], present[-1]))
    return tuple(out.values())


def correlation(row: dict[str, Any]) -> float | None:
    """Pearson correlation of a row's samples with the host canary of the same rounds (near 1:
    it moved with the host CPU); None where the run kept no canary sample per round."""
    samples = (row.get("latency_ms") or {}).get("samples")
    canary = (row.get("host_canary_us") or {}).get("samples")
    if not samples or not canary or len(samples) != len(canary) or len(set(canary)) < 2:
        return None
    return statistics.correlation(samples, canary)


def correlations(runs: Runs) -> tuple[Correlation, ...]:
    """Eager's correlation with the canary per model, over the runs that kept both."""
    by_model: dict[str, list[float]] = {}
    for _, doc in runs:
        for row in doc["rows"]:
            if row["mode"] == "eager" and (c := correlation(row)) is not None:
                by_model.setdefault(row["model"], []).append(c)
    return tuple(Correlation(model, Span.of(v)) for model, v in by_model.items())


SLOW = 1.5  # a sample this many times its variant's fastest is a slow one (a spell ~doubles)


def round_states(rows: dict[Key, dict[str, Any]], modes: list[str], model: str,
                  batch_size: int) -> list[str]:
    """Each round's host state from the variants the host paces (not CUDA-graph replays): "slow
    spell" where all ran slow, "partly slow" where some did (a spell that starts mid-round)."""
    host = [rows[(model, batch_size, m)]["latency_ms"]["samples"] for m in modes
            if m not in CUDA_GRAPH_MODES]
    states = []
    for i in range(len(host[0])):
        slow = [s[i] > SLOW * min(s) for s in host]
        states.append("slow spell" if all(slow) else "partly slow" if any(slow) else "normal")
    return states


# ---- which runs ---------------------------------------------------------------------------------

def recorded_gpu_runs(results_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    """The newest GPU run folder's bench runs: the page's, its repeat, then ``noise/`` by date."""
    newest = [p for p, d in folders.recorded_runs(results_dir, "bench")
              if results.device_type_of(d) == "cuda"]
    if not newest:
        return []
    folder = newest[0].parent
    extra = sorted(folder.glob("noise/*.json"), key=lambda p: results.load(p)["provenance"]["date"])
    names = ["bench.json", "bench-repeat.json", *(str(p.relative_to(folder)) for p in extra)]
    return [(n.removesuffix(".json"), results.load(folder / n)) for n in names
            if (folder / n).exists()]


def host_runs(runs: Runs) -> Runs:
    """The runs that recorded the host's canary or the hypervisor's steal."""
    return [r for r in runs if r[1]["rows"][0].get("host_canary_us")
            or r[1]["rows"][0].get("cpu_steal_pct") is not None]


def noisiest(runs: Runs) -> Noisiest:
    """The eager group of all runs whose IQR is the largest part of its median."""
    label, _, row = max(
        ((label, doc, r) for label, doc in runs for r in doc["rows"]
         if r["mode"] == "eager" and r.get("latency_ms")),
        key=lambda t: t[2]["latency_ms"]["iqr"] / t[2]["latency_ms"]["median"])
    return Noisiest(label, row["model"], row["batch_size"], SLOW)


def of(runs: Runs) -> Stability:
    """The findings of the recorded runs of the default matrix (two at least)."""
    return Stability(len(runs), figures(runs), widest(runs), correlations(host_runs(runs)),
                     noisiest(runs))


# The figures the home page places, by the names it reads them under.
STATED = {"transformer_1_ro": ("transformer", 1, "reduce-overhead"),
          "resnet50_1_ro": ("resnet50", 1, "reduce-overhead"),
          "transformer_32_ro": ("transformer", 32, "reduce-overhead"),
          "resnet50_32_ro": ("resnet50", 32, "reduce-overhead"),
          "transformer_32_default": ("transformer", 32, "default"),
          "resnet50_32_default": ("resnet50", 32, "default")}
