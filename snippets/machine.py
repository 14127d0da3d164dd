"""What the machine was doing while a row was timed: CPU time stolen by the hypervisor, and the
GPU's SM clock.

Eager PyTorch at small sizes is bound by the host CPU, so a virtual machine whose host lends its
cores elsewhere, or a GPU that lowered its clock while it waited for launches, moves the numbers.
Recording both beside each row lets a noisy row be explained with evidence instead of guessed at.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any


def _cpu_times() -> tuple[int, int] | None:
    """(steal, total) jiffies over all CPUs from /proc/stat; None where there is no such file."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except (OSError, IndexError):
        return None
    values = [int(v) for v in fields[:8]]  # user nice system idle iowait irq softirq steal
    return values[7] if len(values) > 7 else 0, sum(values)


class _Clock:
    """The SM clock through NVML, which answers in microseconds; absent without nvidia-ml-py."""

    def __init__(self, index: int) -> None:
        import pynvml

        pynvml.nvmlInit()
        self._nvml = pynvml
        self._handle = pynvml.nvmlDeviceGetHandleByIndex(index)

    def read(self) -> int:
        return self._nvml.nvmlDeviceGetClockInfo(self._handle, self._nvml.NVML_CLOCK_SM)


class Monitor:
    """Call ``sample()`` between timed rounds, then ``summary()``."""

    def __init__(self, cuda_index: int | None) -> None:
        self._start = _cpu_times()
        self._clocks: list[int] = []
        self._clock = None
        if cuda_index is not None:
            try:
                self._clock = _Clock(cuda_index)
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
