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


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags() -> frozenset[str] | None:
    """The instruction-set flags ``/proc/cpuinfo`` lists for the first CPU; None where there is
    no such file (macOS, Windows), so a reader knows they were not recorded rather than absent."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def cpu_capability(flags: frozenset[str] | None = None) -> dict[str, Any]:
    """What a CPU run's numbers depend on beyond the CPU's name: the vector instructions ATen's
    kernels were picked for (``torch.backends.cpu.get_cpu_capability()``: ``AVX512``,
    ``AVX2``...), and whether the CPU does bf16 arithmetic in hardware, with AVX-512 BF16
    (``avx512_bf16``) or Intel's AMX tiles (``amx_tile``, ``amx_bf16``). Without them, bf16
    is converted to fp32 for every operation and gains little or nothing. A flag is None where
    the flags could not be read."""
    flags = cpu_flags() if flags is None else flags
    has = (lambda name: name in flags) if flags is not None else (lambda name: None)
    capability = getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", None)
    return {"capability": capability() if capability else None,
            "avx512_bf16": has("avx512_bf16"), "amx_tile": has("amx_tile"),
            "amx_bf16": has("amx_bf16")}


def bf16_in_hardware(cap: dict[str, Any]) -> bool:
    """Whether a CPU of ``cpu_capability`` ``cap`` computes in bf16 natively (AVX-512 BF16 or
    AMX). oneDNN's own check (``torch.ops.mkldnn._is_mkldnn_bf16_supported``) says yes on an
    AVX-512 CPU without them too, emulating bf16 there (aten/src/ATen/native/mkldnn/Utils.h,
    ``mkldnn_bf16_device_check``), so it cannot tell the two apart."""
    return bool(cap.get("avx512_bf16") or cap.get("amx_bf16"))


def cuda_index(device: torch.device) -> int:
    """The index of a CUDA device; a bare ``cuda`` means the current one."""
    return device.index if device.index is not None else torch.cuda.current_device()


def gpu_uuid(device: torch.device) -> str | None:
    """The GPU's ``GPU-<uuid>``, the name nvidia-smi and NVML know it by. Their indices count
    every GPU of the host, while torch's count only those ``CUDA_VISIBLE_DEVICES`` shows: with
    ``CUDA_VISIBLE_DEVICES=1``, torch's GPU 0 is their GPU 1."""
    uuid = getattr(torch.cuda.get_device_properties(cuda_index(device)), "uuid", None)
    return f"GPU-{uuid}" if uuid else None


def device_name(device: torch.device) -> str:
    """``NVIDIA H200`` for a GPU, ``CPU: <model name>`` for the host."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(cuda_index(device))
    return f"CPU: {cpu_name()}"


def inductor_cache() -> dict[str, Any]:
    """Inductor's on-disk cache as a run finds it: its folder and how many compiled graphs it
    already holds. None there means compile times are cold; any, that some may be warm."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    folder = Path(cache_dir())
    graphs = folder / "fxgraph"
    count = sum(1 for p in graphs.rglob("*") if p.is_file()) if graphs.is_dir() else 0
    return {"dir": str(folder), "fx_graphs_before": count}


def tuned_configs() -> dict[str, dict[str, Any]]:
    """The block sizes Inductor's autotuning chose for each Triton kernel in its cache so far,
    by the name of the ``.best_config`` file it writes beside the kernel (a hash of the kernel's
    source, so the same kernel has the same name in every run). Its timing fields are left out."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    found = {}
    for path in sorted(Path(cache_dir()).rglob("*.best_config")):
        with contextlib.suppress(OSError, ValueError):
            config = json.loads(path.read_text())
            found[path.stem] = {k: v for k, v in config.items()
                                if k not in ("time_taken_ms", "triton_cache_hash")}
    return found


def nvidia_smi(*ids: str | int | None) -> dict[str, str]:
    """Driver, power limit and clocks of a GPU as nvidia-smi reports them, asked by the first of
    ``ids`` (a ``GPU-<uuid>``, then an index) that it answers for; empty where it is absent."""
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
    """The cores this process may run on (a ``taskset`` or a container limits them), not every
    core of the host that ``os.cpu_count()`` names."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count()


def _cpu_times() -> tuple[int, int] | None:
    """(steal, total) jiffies over all CPUs from /proc/stat; None where there is no such file."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except (OSError, IndexError):
        return None
    values = [int(v) for v in fields[:8]]  # user nice system idle iowait irq softirq steal
    return values[7] if len(values) > 7 else 0, sum(values)


class Neighbours:
    """How much CPU time other processes took while a child process ran: the host's busy time
    over all cores (``/proc/stat``) less what this process and its children used. On a shared
    machine a CPU row is only as good as its cores were free: beside the row, this says how
    free they were. ``seconds()`` is None where ``/proc/stat`` cannot be read."""

    def __init__(self) -> None:
        self._start = self._read()

    @staticmethod
    def _read() -> tuple[float, float] | None:
        import resource

        try:
            fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0]
                      .split()[1:9]]
        except (OSError, ValueError):
            return None
        # user nice system idle iowait irq softirq steal: busy is all but idle and iowait
        busy = (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")
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
