"""Compiles over a schedule of batch sizes, counted per shape strategy, and an empty cache."""

from __future__ import annotations

import logging
import re

import torch

from snippets import dynamic
from snippets.bench import TOLERANCE
from snippets.core import examples, measure, models, rows, torch_logs
from snippets.diagnose.findings import WRAPPER_FRAME, Strategy

# The ways of telling the compiler about a batch size that varies: none (Dynamo recompiles, then
# marks the size dynamic), the leading size marked dynamic on each input, every size dynamic.
STRATEGIES = ("default", "mark_dynamic", "dynamic=True")


class _Recompiles(logging.Handler):
    """Dynamo's ``recompiles`` records while it is attached: what TORCH_LOGS=recompiles prints."""

    LOGGER = "torch._dynamo.guards.__recompiles"

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    def __enter__(self) -> _Recompiles:
        torch._logging.set_logs(recompiles=True)
        self._log = logging.getLogger(self.LOGGER)
        self._log.addHandler(self)
        self._propagate, self._log.propagate = self._log.propagate, False  # not on stderr
        return self

    def __exit__(self, *exc: object) -> None:
        self._log.removeHandler(self)
        self._log.propagate = self._propagate
        torch._logging.set_logs()


_RECOMPILING = re.compile(r"Recompiling function (\S+) in (\S+)")
_RESUMED = re.compile(r"torch_dynamo_resume_in_(.+)_at_\d+")
_FAILURE = re.compile(r"^\s*- \S+: (.+)$", re.M)


def _user_function(name: str) -> str:
    """The user's function a resume function Dynamo generated continues (after a break)."""
    match = _RESUMED.fullmatch(name)
    return match[1] if match else name


def _where(function: str, place: str, model: torch.nn.Module | None) -> str:
    """The function that recompiled, as its user knows it (Dynamo's wrapper frame around a skipped
    torch.nn module, ``findings.WRAPPER_FRAME``, is the module's call)."""
    if WRAPPER_FRAME in place.replace("\\", "/") and model is not None:
        return f"{type(model).__name__}.forward (torch.compile's wrapper frame)"
    return f"{_user_function(function)} in {torch_logs.clean_path(place)}"


def count_compiles(factory: models.Factory, strategy: str, schedule: tuple[int, ...], *,
                   backend: str = "eager") -> Strategy:
    """One fresh compile called on each batch size of the schedule: by default Dynamo alone
    (the count, in seconds); with ``backend="inductor"`` the calls that compiled are timed whole,
    the stalls a caller waits for."""
    torch._dynamo.reset()
    model = None
    compiled_at, errors, correct, compiles, stall_s = [], [], True, 0, 0.0
    with _Recompiles() as log:
        for bs in schedule:
            built, x = models.build(factory, "factory", bs)
            if model is None:
                model = built.eval()
                options = {"dynamic": True} if strategy == "dynamic=True" else {}
                compiled = torch.compile(model, backend=backend, **options)
            if strategy == "mark_dynamic":
                examples.mark_dynamic(x)  # the leading size of every tensor input
            before = dynamic.graphs_compiled()
            watch = measure.Stopwatch(examples.device(x))
            try:
                with watch:
                    out = examples.call(compiled, x)
                want = examples.reference(examples.call(model, x))
                correct &= examples.relative_error(out, want) <= TOLERANCE["fp32"]
            except Exception as exc:  # mark_dynamic on a size the code specializes raises
                errors.append(rows.fault(exc)[1])
            compiles += dynamic.graphs_compiled() - before
            if dynamic.graphs_compiled() > before:
                compiled_at.append(bs)
                stall_s += watch.seconds
    torch._dynamo.reset()
    recompiled = tuple(_where(m[1], m[2], model) for text in log.messages
                       for m in _RECOMPILING.finditer(text))
    failures = tuple(dict.fromkeys(f for text in log.messages for f in _FAILURE.findall(text)))
    return Strategy(strategy, compiles, tuple(compiled_at),
                    recompiled, failures, tuple(dict.fromkeys(errors)), bool(correct),
                    stall_s if backend == "inductor" else None)


