"""Model factories that fail on purpose, for the tests of how the bench records faults."""

import os
import signal
import time

import torch
from torch import nn


@torch.library.custom_op("faults::bad_shape", mutates_args=())
def _bad_shape(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


@_bad_shape.register_fake
def _(x):
    # Dynamo runs this while tracing: the compile fails, eager never calls it.
    raise RuntimeError("planted compile failure")


@torch.library.custom_op("faults::oom", mutates_args=())
def _oom(x: torch.Tensor) -> torch.Tensor:
    raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (planted)")


@_oom.register_fake
def _(x):
    return torch.empty_like(x)


class _FailsWhenCompiled(nn.Module):
    def __init__(self, op) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)
        self.op = op

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        # Constant True while Dynamo traces, False in eager: only the compiled path meets the fault.
        return self.op(y) if torch.compiler.is_compiling() else y


def compile_error(batch_size):
    return _FailsWhenCompiled(_bad_shape), torch.randn(batch_size, 8)


def compile_oom(batch_size):
    return _FailsWhenCompiled(_oom), torch.randn(batch_size, 8)


class _AlwaysFails(nn.Module):
    def forward(self, x):
        raise RuntimeError("planted eager failure")


def eager_error(batch_size):
    return _AlwaysFails(), torch.randn(batch_size, 8)


def wrong_return(batch_size):
    return nn.Linear(8, 8)  # not a (module, input) pair


def raises(batch_size):
    raise ValueError("planted factory failure")


# Importing this module fails, for the "does not import" case.
BROKEN_SOURCE = "raise ImportError('planted import failure')\n"


_sent = False


@torch.library.custom_op("faults::interrupt", mutates_args=())
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


class _InterruptsWhileTracing(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _interrupt(self.linear(x))


def interrupts_while_tracing(batch_size):
    """Eager runs as usual; the first trace (the graph count, or a compile) sends Ctrl-C."""
    return _InterruptsWhileTracing(), torch.randn(batch_size, 8)


def explain_interrupts():
    """For ``python -m snippets.explain``: the trace itself sends Ctrl-C."""
    model, x = interrupts_while_tracing(2)
    return model, (x,)
