"""The stamp: the line under every results block saying where, with what, under which settings,
when and from which commit its numbers were measured."""

from __future__ import annotations

from typing import Any

from snippets.core import results, rows


def _settings_words(s: dict[str, Any]) -> list[str]:
    """The settings a reader needs: dtype and layout, TF32, cudnn.benchmark, rounds."""
    words = []
    if s.get("dtype"):
        # A run whose -bf16 variants autocast (the CPU tool's) holds its weights in ``dtype``.
        autocast = any(str(v).endswith("-bf16") for v in s.get("variants", ()))
        words.append(s["dtype"] + (" weights, bf16 autocast" if autocast else "")
                     + (", channels_last" if s.get("channels_last") else ""))
    if s.get("tf32"):
        words.append("TF32")
    modes = s.get("mode_backends") or {}
    per_mode = sorted(m for m, b in modes.items() if b.get("cudnn_benchmark"))
    if modes and len(per_mode) < len(modes):  # each mode ran under the settings chosen for it
        words.append("cudnn.benchmark for " + ", ".join(per_mode) if per_mode
                     else "no cudnn.benchmark")
    elif s.get("cudnn_benchmark"):
        words.append("cudnn.benchmark")
    if s.get("rounds"):
        words.append(f"{s['rounds']} rounds")
    if s.get("devices"):  # a run over several processes: how many, at most
        words.append(s["devices"])
    return [", ".join(words)] if words else []


def device_label(prov: dict[str, Any]) -> str:
    """The device as a heading names it: a CPU's name without its "CPU: " prefix."""
    name = prov.get("device") or "unknown device"
    return name.removeprefix("CPU: ") if prov.get("device_type") == "cpu" else name


def capability_words(cap: dict[str, Any]) -> str:
    """``AVX512 kernels, avx512_bf16, no AMX``; a flag not read is left out."""
    words = [f"{cap['capability']} kernels" if cap.get("capability") else "kernels unknown"]
    if cap.get("avx512_bf16") is not None:
        words.append("avx512_bf16" if cap["avx512_bf16"] else "no avx512_bf16")
    if cap.get("amx_tile") is not None:
        words.append("AMX" if cap["amx_tile"] else "no AMX")
    return ", ".join(words)


def short_commit(commit: str | None) -> str:
    """A commit's first 12 hex digits, ``-dirty`` kept."""
    if not commit:
        return "unknown"
    head, dirty, _ = commit.partition("-dirty")
    return head[:12] + dirty


def several(docs: list[dict[str, Any]], how: str, parts: list[str], count: str) -> str:
    """One stamp for several documents of one machine: the ``parts`` they share, ``count``
    (``4 processes``), the days, and every commit once."""
    days = sorted({(d["provenance"].get("date") or "")[:10] for d in docs})
    when = days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}"
    commits = list(dict.fromkeys(short_commit(d["provenance"].get("commit")) for d in docs))
    made = ("commit " if len(commits) == 1 else "commits ") + ", ".join(commits)
    return f"{how}: " + " · ".join([*parts, f"{count}, {when}", made])


def stamp(doc: dict[str, Any], how: str = "recorded") -> str:
    """The line under a results block; ``how``: ``recorded``, ``fresh``, ``this run``."""
    p = doc["provenance"]
    parts = [p.get("device") or "unknown device"]
    if p.get("driver"):
        parts.append(f"driver {p['driver']}")
    if p.get("cuda"):
        parts.append(f"CUDA {p['cuda']}")
    parts.append(f"torch {p['torch']}")
    if p.get("triton"):
        parts.append(f"triton {p['triton']}")
    cores = f"{p['cpu_count']} cores" if p.get("cpu_count") else ""
    if results.device_type_of(doc) == "cuda" and p.get("host_cpu"):
        parts.append(f"host {p['host_cpu']}" + (f", {cores}" if cores else ""))
    elif cores:
        parts.append(cores)
    if results.device_type_of(doc) == "cpu" and p.get("cpu_capability"):
        parts.append(capability_words(p["cpu_capability"]))
    parts += _settings_words(p.get("settings", {}))
    peak = rows.printed_peak(p)
    if peak and not p.get("ceilings"):  # every "% peak" under this stamp is against it
        parts.append(f"bf16 matmul peak {peak:.0f} TFLOP/s")
    # An appended file names the day and commit of each command whose rows it still holds.
    runs = p.get("parts") or [p]
    held = {r.get("part", 0) for r in doc.get("rows", []) if isinstance(r, dict)}
    if len(runs) > 1 and held and any("part" in r for r in doc.get("rows", [])
                                      if isinstance(r, dict)):
        runs = [q for i, q in enumerate(runs) if i in held] or runs
    days = list(dict.fromkeys((q.get("date") or "")[:10] for q in runs))
    parts.append(" to ".join([days[0], days[-1]] if len(days) > 1 else days))
    commits = list(dict.fromkeys(short_commit(q.get("commit")) for q in runs))
    parts.append(("commits " if len(commits) > 1 else "commit ") + ", ".join(commits))
    notes = [n for n in dict.fromkeys([p.get("note"), *(q.get("note") for q in runs)]) if n]
    parts += [f"note: {n}" for n in notes]
    incomplete = "" if doc.get("complete") else " (incomplete run)"
    return f"{how}{incomplete}: " + " · ".join(parts)
