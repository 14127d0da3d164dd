"""The command's own process: a Ctrl-C that always stops a run, a standard output kept clean
of what libraries print, so that a command's JSON can be piped, and a child process that runs one
configuration and answers with one JSON line (``run_child``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any

from snippets.core import torch_logs

ROOT = Path(__file__).resolve().parents[2]


def child_env(**extra: str) -> dict[str, str]:
    """This process's environment for a child Python, with this checkout first on its
    ``PYTHONPATH`` (so the child imports the same ``snippets``, installed or not), and ``extra``."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, **extra}


USAGE_EXIT = 2  # what a child exits with where it refused its flags (``cli.USAGE_EXIT``)


class Refused(ValueError):
    """A child that refused what it was asked (exit code 2, no record): the run's mistake, not
    its configuration's; the message is the child's one line, without its program's name."""


def run_child(argv: list[str], *, env: dict[str, str], timeout_s: float,
              cwd: Path = ROOT) -> dict[str, Any]:
    """Run one configuration in a fresh process and return the record it printed as its last
    line of standard output (JSON). A child that printed none is an error record that says why
    (timed out, crashed with a signal, its last error line); one that exited 2 without a record
    raises ``Refused``. A fault of one configuration is its record: the run goes on."""
    try:
        proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                              timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {"status": "error", "message": f"timed out after {timeout_s:.0f} s"}
    lines = proc.stdout.strip().splitlines()
    try:
        rec = json.loads(lines[-1])
    except (IndexError, ValueError):
        if proc.returncode == USAGE_EXIT:
            raise Refused(refusal(proc.stderr)) from None
        return {"status": "error", "message": died(proc.returncode, proc.stderr)}
    if not isinstance(rec, dict):
        return {"status": "error", "message": f"printed a {type(rec).__name__}"}
    return rec


def refusal(stderr: str) -> str:
    """The one line a child wrote when it refused its flags, without its program's name."""
    last = (stderr.strip().splitlines() or ["the child refused its flags"])[-1]
    return last.partition(": error: ")[2] or last


def died(code: int, stderr: str) -> str:
    """One line for a child that printed no record: its last error line, or for a crash the
    signal and the innermost Python frame faulthandler printed (where the child enables it)."""
    if code < 0:
        try:
            what = signal.Signals(-code).name
        except ValueError:
            what = f"signal {-code}"
        frames = [ln.strip() for ln in stderr.splitlines() if ln.strip().startswith("File ")]
        return f"crashed with {what}" + (f", {torch_logs.clean_path(frames[0])}" if frames
                                          else "")
    return (stderr.strip().splitlines() or [f"exit code {code}"])[-1][:300]


@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Inside the block, whatever is written to standard output goes to standard error, so that
    the command's own output (JSON, say) stays clean. At the file-descriptor level as well as
    ``sys.stdout``: a C extension's build (ninja) or a library's C code writes to descriptor 1
    directly, and a child process inherits it."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1 to save (a closed stdout): Python's level is all there is
        saved = None
    try:
        if saved is not None:
            os.dup2(2, 1)
        with redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


class Interrupt:
    """Ctrl-C that always stops a run, wherever it lands; SIGTERM (what ``timeout``, a job
    scheduler or a container's stop sends) stops it the same way, finished rows kept.

    A SIGINT raises KeyboardInterrupt in whatever Python code runs at that moment. Inside Dynamo
    (tracing a frame, or a fake kernel while it compiles) torch can catch it and carry on, so the
    run would go to its end. Three layers make the stop certain: the KeyboardInterrupt itself;
    ``check()``, which the run calls between its steps and which raises again once a Ctrl-C was
    seen; and a timer that, ``grace`` seconds after the Ctrl-C, calls ``last_words`` (to show the
    finished rows, which are already on disk) and ends the process with ``exit_code``: 128 plus
    the signal's number, as a shell reports a process that signal ended (130, 143).
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, last_words: Callable[[], object] = lambda: None, grace: float = 5.0) -> None:
        self.seen = False
        self.signum: int = signal.SIGINT  # the first signal seen
        self._last_words, self._grace = last_words, grace
        self._timer: threading.Timer | None = None
        self._settled = threading.Event()

    @property
    def exit_code(self) -> int:
        return 128 + int(self.signum)

    def _handle(self, signum: int, frame: object) -> None:
        if not self.seen:
            self.seen, self.signum = True, signum
            self._timer = threading.Timer(self._grace, self._hard_stop)
            self._timer.daemon = True
            self._timer.start()
        raise KeyboardInterrupt

    def settle(self) -> None:
        """The run stopped by itself after the Ctrl-C: the timer has nothing left to do."""
        self._settled.set()
        if self._timer is not None:
            self._timer.cancel()

    def _hard_stop(self) -> None:
        if self._settled.is_set():
            return
        try:
            self._last_words()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(self.exit_code)

    def check(self) -> None:
        """Raise KeyboardInterrupt if a Ctrl-C was seen, even one that torch swallowed."""
        if self.seen:
            raise KeyboardInterrupt

    @contextmanager
    def installed(self) -> Iterator[Interrupt]:
        """Handle SIGINT and SIGTERM this way for the block (main thread only), then as before.
        A signal the process was started with ignored (SIGINT in a shell's background job)
        stays ignored, as Python itself leaves it."""
        previous = {sig: signal.signal(sig, self._handle) for sig in self.SIGNALS
                    if signal.getsignal(sig) is not signal.SIG_IGN}
        hook, sys.unraisablehook = sys.unraisablehook, self._unraisable(sys.unraisablehook)
        try:
            yield self
        finally:
            sys.unraisablehook = hook
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _unraisable(self, hook: Callable[[Any], object]) -> Callable[[Any], object]:
        """A signal that lands in a ``__del__`` or a garbage collector's callback raises where
        Python cannot propagate it: it prints "Exception ignored" with a traceback and goes on.
        The stop is not lost (``check()`` raises at the next step), so that print is noise."""
        def unraisable(info: Any) -> object:
            if self.seen and issubclass(info.exc_type, KeyboardInterrupt):
                return None
            return hook(info)
        return unraisable
