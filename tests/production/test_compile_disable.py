"""When torch reads TORCH_COMPILE_DISABLE, on the installed torch (2.14.1): as
torch._dynamo.config loads, which import torch alone does not do."""

from __future__ import annotations

import subprocess
import sys

from snippets.core import process

AFTER_IMPORT = """
import os, sys, torch
print('torch._dynamo.config' in sys.modules)
os.environ['TORCH_COMPILE_DISABLE'] = '1'
import torch._dynamo.config
print(torch._dynamo.config.disable)
"""
AFTER_COMPILE = """
import os, torch
torch.compile(lambda x: x + 1)
os.environ['TORCH_COMPILE_DISABLE'] = '1'
print(torch._dynamo.config.disable)
"""


def _run(code: str) -> list[str]:
    env = process.child_env()
    env.pop("TORCH_COMPILE_DISABLE", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    return out.split()


def test_it_is_read_when_dynamo_config_loads_not_at_import_torch():
    assert _run(AFTER_IMPORT) == ["False", "True"]  # not loaded by import torch; then read
    assert _run(AFTER_COMPILE) == ["False"]  # torch.compile loaded it: too late
