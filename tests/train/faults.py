"""Models that train in eager mode and fail only when compiled, for the tests of how a training
run records faults: ``tests.fault_models``' custom operators have no backward, so a compiled
training step would fail on that instead of on the planted fault."""

import os
import signal
import time

import torch
from torch import nn

_sent = False


@torch.library.custom_op("train_faults::interrupt", mutates_args=())
def _interrupt(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


@_interrupt.register_fake
def _(x):
    # Runs only while Dynamo traces: the Ctrl-C lands inside Dynamo, where torch may catch it.
    global _sent
    if not _sent:
        _sent = True
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # still inside the trace when Python runs the signal handler
    return torch.empty_like(x)


# The gradient passes through, so eager trains (tests.fault_models' version has no backward).
_interrupt.register_autograd(lambda ctx, grad: grad)


class _InterruptsWhileTracing(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _interrupt(self.linear(x))


def interrupts_while_tracing(batch_size):
    """Eager's steps run as usual; the first compile sends Ctrl-C."""
    return _InterruptsWhileTracing(), torch.randn(batch_size, 8)


@torch.library.custom_op("train_faults::oom", mutates_args=())
def _oom(x: torch.Tensor) -> torch.Tensor:
    raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (planted)")


@_oom.register_fake
def _(x):
    return torch.empty_like(x)


_oom.register_autograd(lambda ctx, grad: grad)


class _OomWhenCompiled(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        # True while Dynamo traces, False in eager: only the compiled step meets the fault.
        return _oom(y) if torch.compiler.is_compiling() else y


def compile_oom(batch_size):
    """Eager trains; the compiled step runs out of memory (planted) at its first call."""
    return _OomWhenCompiled(), torch.randn(batch_size, 8)


class _LearnsDifferently(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        # A planted miscompile: the compiled model computes other logits than eager's.
        return y * 3 if torch.compiler.is_compiling() else y


def learns_differently(batch_size):
    """Eager and compiled both train, but not the same model: the run must say so."""
    return _LearnsDifferently(), torch.randn(batch_size, 8)
