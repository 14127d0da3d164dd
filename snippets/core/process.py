"""The command's own process: a Ctrl-C that always stops a run, a stdout kept clean for piped
JSON, and a child process that runs one configuration and answers one JSON line."""

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
    """The environment for a child Python importing this checkout's ``snippets``, and ``extra``."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, **extra}


USAGE_EXIT = 2  # what a child exits with where it refused its flags (``cli.USAGE_EXIT``)


class Refused(ValueError):
    """A child that refused its flags (exit 2, no record): the run's mistake; its one line."""


def run_child(argv: list[str], *, env: dict[str, str], timeout_s: float,
              cwd: Path = ROOT) -> dict[str, Any]:
    """The JSON record a fresh process printed last for one configuration; an error record
    where it printed none (timeout, signal, its last error line), ``Refused`` where it exited 2."""
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
            last = (proc.stderr.strip().splitlines() or ["refused"])[-1]
            raise Refused(last.partition(": error: ")[2] or last) from None
        return {"status": "error", "message": died(proc.returncode, proc.stderr)}
    if not isinstance(rec, dict):
        return {"status": "error", "message": f"printed a {type(rec).__name__}"}
    return rec


def died(code: int, stderr: str) -> str:
    """One line for a child that printed no record: its last error line, or the signal and the
    frame faulthandler printed."""
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
    """Standard output goes to standard error in the block, so a command's JSON stays clean; at
    the descriptor too, which C code and child processes write to directly."""
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
    """A Ctrl-C (or SIGTERM) that always stops a run, finished rows kept.

    Dynamo can catch a KeyboardInterrupt and carry on, so three layers make the stop certain:
    the exception; ``check()`` between steps; and a timer that ``grace`` seconds later calls
    ``last_words`` and exits with 128 plus the signal's number, as a shell reports it."""

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
        """Handle SIGINT and SIGTERM this way in the block (main thread only); one ignored at
        start (a background job's SIGINT) stays ignored."""
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
        """Silence "Exception ignored" for a signal landing in a ``__del__``: ``check()`` stops
        the run at the next step anyway."""
        def unraisable(info: Any) -> object:
            if self.seen and issubclass(info.exc_type, KeyboardInterrupt):
                return None
            return hook(info)
        return unraisable
