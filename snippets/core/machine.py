"""The machine: what it is (CPU and GPU names, driver and clocks), and what it was doing while a
row was timed (CPU time stolen by the hypervisor, the GPU's SM clock)."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import statistics
import subprocess
from pathlib import Path
from typing import Any

import torch


def _cpuinfo(key: str) -> str | None:
    """The first CPU's ``key`` in ``/proc/cpuinfo``; None where there is none (macOS, Windows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_name() -> str:
    return _cpuinfo("model name") or platform.processor() or platform.machine()


def cpu_flags() -> frozenset[str] | None:
    """The first CPU's instruction-set flags; None where not readable, rather than absent."""
    flags = _cpuinfo("flags")
    return None if flags is None else frozenset(flags.split())


def cpu_capability(flags: frozenset[str] | None = None) -> dict[str, Any]:
    """What a CPU run depends on beyond the CPU's name: the vector ISA ATen's kernels were
    picked for (``AVX512``...), and bf16 in hardware (AVX-512 BF16, AMX), without which bf16 is
    converted to fp32 and gains little. A flag is None where the flags could not be read."""
    flags = cpu_flags() if flags is None else flags
    has = (lambda name: name in flags) if flags is not None else (lambda name: None)
    capability = getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", None)
    return {"capability": capability() if capability else None,
            "avx512_bf16": has("avx512_bf16"), "amx_tile": has("amx_tile"),
            "amx_bf16": has("amx_bf16")}


def bf16_in_hardware(cap: dict[str, Any]) -> bool:
    """Whether the CPU computes bf16 natively; oneDNN's own check says yes where it emulates it
    (aten/src/ATen/native/mkldnn/Utils.h, ``mkldnn_bf16_device_check``)."""
    return bool(cap.get("avx512_bf16") or cap.get("amx_bf16"))


def cuda_index(device: torch.device) -> int:
    """The index of a CUDA device; a bare ``cuda`` means the current one."""
    return device.index if device.index is not None else torch.cuda.current_device()


def gpu_uuid(device: torch.device) -> str | None:
    """The GPU's ``GPU-<uuid>`` for nvidia-smi and NVML, whose indices ignore
    ``CUDA_VISIBLE_DEVICES``."""
    uuid = getattr(torch.cuda.get_device_properties(cuda_index(device)), "uuid", None)
    return f"GPU-{uuid}" if uuid else None


def device_name(device: torch.device) -> str:
    """``NVIDIA H200`` for a GPU, ``CPU: <model name>`` for the host."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(cuda_index(device))
    return f"CPU: {cpu_name()}"


def inductor_cache() -> dict[str, Any]:
    """Inductor's on-disk cache as a run finds it: its folder and its compiled graphs (any: some
    compile times may be warm)."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    folder = Path(cache_dir())
    graphs = folder / "fxgraph"
    count = sum(1 for p in graphs.rglob("*") if p.is_file()) if graphs.is_dir() else 0
    return {"dir": str(folder), "fx_graphs_before": count}


def tuned_configs() -> dict[str, dict[str, Any]]:
    """The block sizes autotuning chose per cached Triton kernel, by its ``.best_config`` file's
    name (a hash of the source, stable across runs), timing fields left out."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    found = {}
    for path in sorted(Path(cache_dir()).rglob("*.best_config")):
        with contextlib.suppress(OSError, ValueError):
            config = json.loads(path.read_text())
            found[path.stem] = {k: v for k, v in config.items()
                                if k not in ("time_taken_ms", "triton_cache_hash")}
    return found


def nvidia_smi(*ids: str | int | None) -> dict[str, str]:
    """Driver, power limit and clocks from nvidia-smi, by the first of ``ids`` it answers for."""
    fields = "driver_version,power.limit,clocks.sm,clocks.max.sm,clocks.mem"
    for gpu in (i for i in ids if i is not None):
        try:
            line = subprocess.run(
                ["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader", f"--id={gpu}"],
                capture_output=True, text=True, timeout=20, check=True,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        return dict(zip(fields.split(","), (v.strip() for v in line.split(",")), strict=False))
    return {}


def usable_cores() -> int | None:
    """The cores this process may run on (``taskset``, a container), not all the host's."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count()


def _proc_stat() -> list[int] | None:
    """All CPUs' jiffies: user nice system idle iowait irq softirq steal; None where unreadable."""
    try:
        return [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    except (OSError, ValueError):
        return None


def _cpu_times() -> tuple[int, int] | None:
    """(steal, total) jiffies over all CPUs."""
    values = _proc_stat()
    if values is None:
        return None
    return values[7] if len(values) > 7 else 0, sum(values)


class Neighbours:
    """CPU seconds other processes took while a child ran (the host's busy time less ours): a
    CPU row on a shared machine is as good as its cores were free. None where unreadable."""

    def __init__(self) -> None:
        self._start = self._read()

    @staticmethod
    def _read() -> tuple[float, float] | None:
        import resource

        fields = _proc_stat()
        if fields is None:
            return None
        busy = (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")  # not idle, iowait
        own = sum(resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime
                  for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
        return busy, own

    def seconds(self) -> float | None:
        end = self._read()
        if self._start is None or end is None:
            return None
        return max(0.0, (end[0] - self._start[0]) - (end[1] - self._start[1]))


class _Clock:
    """The SM clock through NVML, which answers in microseconds; absent without nvidia-ml-py."""

    def __init__(self, device: torch.device) -> None:
        import pynvml

        pynvml.nvmlInit()
        self._nvml = pynvml
        uuid = gpu_uuid(device)  # NVML's indices ignore CUDA_VISIBLE_DEVICES (see gpu_uuid)
        self._handle = (pynvml.nvmlDeviceGetHandleByUUID(uuid) if uuid
                        else pynvml.nvmlDeviceGetHandleByIndex(cuda_index(device)))

    def read(self) -> int:
        return self._nvml.nvmlDeviceGetClockInfo(self._handle, self._nvml.NVML_CLOCK_SM)


class Monitor:
    """Call ``sample()`` between timed rounds, then ``summary()``."""

    def __init__(self, device: torch.device) -> None:
        self._start = _cpu_times()
        self._clocks: list[int] = []
        self._clock = None
        if device.type == "cuda":
            try:
                self._clock = _Clock(device)
            except Exception:  # no NVML here: the row simply lacks clock evidence
                self._clock = None

    def sample(self) -> None:
        if self._clock is not None:
            self._clocks.append(self._clock.read())

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cpu_steal_pct": None, "sm_clock_mhz": None}
        end = _cpu_times()
        if self._start and end and end[1] > self._start[1]:
            out["cpu_steal_pct"] = 100 * (end[0] - self._start[0]) / (end[1] - self._start[1])
        if self._clocks:
            c = sorted(self._clocks)
            out["sm_clock_mhz"] = {"min": c[0], "median": statistics.median(c), "max": c[-1]}
        return out
