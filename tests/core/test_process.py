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


def test_a_stop_that_lands_in_a_finalizer_prints_no_traceback(capsys):
    # A signal handled inside a __del__ raises where Python cannot propagate it: Python prints
    # "Exception ignored ..." with a traceback and goes on. The stop itself is kept (check()).
    class Finalized:
        def __del__(self):
            interrupt._handle(signal.SIGTERM, None)

    interrupt = process.Interrupt()
    with interrupt.installed():
        Finalized()
        assert interrupt.seen
        with pytest.raises(KeyboardInterrupt):
            interrupt.check()
    interrupt.settle()
    assert "Traceback" not in capsys.readouterr().err


def test_a_signal_the_process_was_started_ignoring_stays_ignored():
    outer = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with process.Interrupt().installed():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, outer)


def test_a_crashed_child_is_named_by_its_signal_and_innermost_frame():
    stderr = ("Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call "
              "first):\n  File \"/x/snippets/production/paths.py\", line 106 in aot_load\n"
              "  File \"/x/snippets/production/child.py\", line 70 in _ready\n")
    message = process.died(-11, stderr)
    assert message.startswith("crashed with SIGSEGV") and "line 106 in aot_load" in message
    assert process.died(1, "Traceback\nValueError: bad\n") == "ValueError: bad"


def test_a_child_answers_with_its_last_line_or_an_error_record_or_a_refusal():
    import sys

    env = process.child_env()

    def child(code: str) -> dict:
        return process.run_child([sys.executable, "-c", code], env=env, timeout_s=60)

    assert child("print('noise'); print('{\"status\": \"ok\", \"n\": 1}')") == {
        "status": "ok", "n": 1}
    assert child("raise SystemExit('no record')") == {"status": "error", "message": "no record"}
    with pytest.raises(process.Refused, match="^bad flag$"):
        child("import sys; print('prog: error: bad flag', file=sys.stderr); sys.exit(2)")
