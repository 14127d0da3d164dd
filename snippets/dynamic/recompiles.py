"""Watching for recompiles: the ``recompiles`` log, and a stance that turns one into an error."""

from __future__ import annotations

import torch

from snippets.core import torch_logs
from snippets.dynamic import TinyEncoder


# --8<-- [start:log_demo]
def demo_recompiles() -> None:
    import torch

    from snippets.dynamic import TinyEncoder

    compiled = torch.compile(TinyEncoder().eval(), backend="eager")
    with torch.no_grad():
        # A new batch, then a new length.
        for batch, seq in [(4, 32), (8, 32), (8, 48)]:
            compiled(torch.randn(batch, seq, 64))
# --8<-- [end:log_demo]


DEMO = torch_logs.call(demo_recompiles)
LOG_COMMAND = torch_logs.command("recompiles", DEMO)


def recompile_log() -> str:
    return torch_logs.capture("recompiles", DEMO)


def has_stance() -> bool:
    """``torch.compiler.set_stance`` arrived in torch 2.6."""
    return hasattr(torch.compiler, "set_stance")


# --8<-- [start:stance]
def assert_no_recompiles(compiled, inputs) -> None:
    """Call an already warmed-up model on ``inputs``; raise if any of them would
    recompile."""
    import torch

    with torch.compiler.set_stance("fail_on_recompile"), torch.no_grad():
        for x in inputs:
            compiled(x)
# --8<-- [end:stance]


def stance_outcomes() -> list[tuple[str, str | None]]:
    """Warm up on the serving shapes, then let an unseen length through under
    ``fail_on_recompile``: each input set's label and the error it raised (None: no recompile)."""
    torch._dynamo.reset()
    compiled = torch.compile(TinyEncoder().eval(), backend="eager", dynamic=False)
    serving = [torch.randn(8, 64, 64), torch.randn(8, 128, 64)]
    with torch.no_grad():
        for x in serving:
            compiled(x)
    found: list[tuple[str, str | None]] = []
    try:
        for label, xs in (("serving shapes", serving), ("length 100", [torch.randn(8, 100, 64)])):
            try:
                assert_no_recompiles(compiled, xs)
                found.append((label, None))
            except Exception as exc:  # RuntimeError on the versions that have the stance
                first = torch_logs.clean_path(str(exc)).strip().splitlines()
                found.append((label, f"{type(exc).__name__}: {first[0] if first else ''}"))
    finally:
        torch._dynamo.reset()
    return found


def stance_demo() -> str:
    """The outcomes as the page shows them, a line each: the guard's message where one fired."""
    if not has_stance():
        return f"torch {torch.__version__} has no set_stance"  # added in 2.6
    return "\n".join(f"{label}: {error or 'no recompile'}" for label, error in stance_outcomes())
