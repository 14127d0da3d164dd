"""snippets.core.backends and .config: global torch switches set for a run and put back after it,
and per-device defaults filled from one table."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from snippets.core import backends, config


def _state() -> tuple[str, bool, bool]:
    return (torch.get_float32_matmul_precision(), torch.backends.cudnn.allow_tf32,
            torch.backends.cudnn.benchmark)


def test_settings_apply_for_the_block_and_restore_after():
    before = _state()
    wanted = backends.BackendSettings(matmul_precision="high", cudnn_tf32=not before[1],
                                      cudnn_benchmark=not before[2])
    with wanted.apply():
        assert _state() == ("high", not before[1], not before[2])
    assert _state() == before


def test_settings_are_restored_when_the_run_raises():
    before = _state()
    with pytest.raises(RuntimeError), backends.BackendSettings(matmul_precision="medium").apply():
        raise RuntimeError("a run that failed")
    assert _state() == before


def test_settings_record_themselves():
    cuda = backends.DEFAULT["cuda"].as_dict()
    assert cuda == {"matmul_precision": "high", "cudnn_tf32": True, "cudnn_benchmark": False,
                    "tf32": True}
    assert backends.DEFAULT["cpu"].as_dict()["tf32"] is False


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Cfg:
    device: str = "auto"
    rounds: int | None = None
    sizes: tuple[int, ...] | None = None


DEFAULTS = {"cuda": {"rounds": 100, "sizes": (1, 32)}, "cpu": {"rounds": 10, "sizes": (1,)}}


def test_resolve_fills_none_from_the_devices_row_and_keeps_what_was_given():
    cpu = config.resolve(_Cfg(device="cpu"), DEFAULTS)
    assert (cpu.rounds, cpu.sizes) == (10, (1,))
    given = config.resolve(_Cfg(device="cuda:1", rounds=3), DEFAULTS)
    assert (given.device, given.rounds, given.sizes) == ("cuda:1", 3, (1, 32))
    auto = config.resolve(_Cfg(), DEFAULTS)
    assert auto.device == ("cuda" if torch.cuda.is_available() else "cpu")


def _per_device(text: str) -> list[str]:
    """``(default: 100 on CUDA, 10 on CPU)`` as its parts: ``["100 on CUDA", "10 on CPU"]``."""
    assert text.startswith("(default: ") and text.endswith(")")
    return text.removeprefix("(default: ").removesuffix(")").split(", ")


def test_help_is_written_from_the_table():
    assert _per_device(config.help_default(DEFAULTS, "rounds")) == ["100 on CUDA", "10 on CPU"]
    assert _per_device(config.help_default(DEFAULTS, "sizes")) == ["1,32 on CUDA", "1 on CPU"]
    same = {"cuda": {"x": 2.0}, "cpu": {"x": 2.0}}
    assert config.help_default(same, "x", " ms") == "(default: 2 ms)"


def test_cold_cache_compiles_anew_where_the_graph_cache_would_hit():
    """Two successive cold_cache blocks compiling the same function: the second is not served by
    the first's cache (no graph-cache hit, a second miss), while a recompile inside one block is."""
    from torch._dynamo.utils import counters

    def f(t):
        return torch.nn.functional.gelu(t) * 3 + 1

    x = torch.randn(4, 8)
    counters.clear()
    with torch._inductor.config.patch(fx_graph_cache=True):
        with backends.cold_cache():
            torch.compile(f)(x)
        with backends.cold_cache():
            torch.compile(f)(x)
            assert counters["inductor"]["fxgraph_cache_hit"] == 0
            assert counters["inductor"]["fxgraph_cache_miss"] == 2
            torch._dynamo.reset()  # the control: the same block's cache does serve it
            torch.compile(f)(x)
    assert counters["inductor"]["fxgraph_cache_hit"] == 1
    torch._dynamo.reset()
