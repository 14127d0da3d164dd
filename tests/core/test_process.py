"""snippets.core.process: what a stopped run does."""

from __future__ import annotations

import os
import signal
import time

import pytest

from snippets.core import process


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_sigint_and_sigterm_both_stop_a_run_and_say_which_in_the_exit_code(sig):
    # A suite started in a shell's background has SIGINT ignored, which installed() keeps;
    # here the signal is the default, as in a terminal.
    outer = signal.signal(sig, signal.SIG_DFL)
    try:
        interrupt = process.Interrupt()
        with pytest.raises(KeyboardInterrupt), interrupt.installed():
            os.kill(os.getpid(), sig)
            time.sleep(10)  # the handler raises before this ends
        interrupt.settle()  # the run stopped by itself: no hard stop follows
        assert interrupt.seen and interrupt.exit_code == 128 + sig
        assert signal.getsignal(sig) == signal.SIG_DFL  # the process's own handling, back
    finally:
        signal.signal(sig, outer)


def test_a_signal_the_process_was_started_ignoring_stays_ignored():
    outer = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with process.Interrupt().installed():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, outer)
