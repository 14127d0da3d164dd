"""The benchmark's CUDA-graph set-up, on the installed torch (2.14.1): the first call is
the warm-up (torch/_inductor/cudagraph_trees.py), the second records, so the warmup calls
before the rounds must include one after the first call."""

from __future__ import annotations

import torch._inductor.config as inductor_config

from snippets.bench import BenchConfig


def test_the_first_call_warms_up_and_the_warmup_calls_cover_the_recording():
    # torch's defaults: warm up first, record on the next call
    assert (inductor_config.triton.skip_cudagraph_warmup,
            inductor_config.triton.force_cudagraphs_warmup) == (False, False)
    assert BenchConfig().warmup >= 1  # the recording call, after the timed first call
