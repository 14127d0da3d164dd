"""TF32 for fp32 work on a CUDA GPU, as the Speed settings and Diagnose pages show it.

torch 2.14 has one switch per backend and op (``torch.backends.cuda.matmul.fp32_precision``,
``torch.backends.cudnn.conv.fp32_precision``) beside the older
``torch.set_float32_matmul_precision``. Use one API: after a per-backend switch is set,
``torch.get_float32_matmul_precision()`` raises (``_get_float32_matmul_precision``, torch 2.14.1).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch


def switches() -> dict[str, str]:
    """The two per-backend switches as torch reads them now."""
    return {"matmul": torch.backends.cuda.matmul.fp32_precision,
            "conv": torch.backends.cudnn.conv.fp32_precision}


def tf32_on() -> None:
    """Let fp32 products and convolutions run as TF32 (the page's lines, with their import: they
    run as a reader copies them)."""
    # --8<-- [start:tf32]
    import torch

    # matrix products: off by default
    torch.backends.cuda.matmul.fp32_precision = "tf32"
    # convolutions: already torch's default
    torch.backends.cudnn.conv.fp32_precision = "tf32"
    # --8<-- [end:tf32]


@contextlib.contextmanager
def restored() -> Iterator[None]:
    """Put both switches back after the block (the process's other code reads them)."""
    was = switches()
    try:
        yield
    finally:
        torch.backends.cuda.matmul.fp32_precision = was["matmul"]
        torch.backends.cudnn.conv.fp32_precision = was["conv"]
