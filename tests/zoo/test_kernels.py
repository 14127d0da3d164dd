"""A zoo model's slower compiled rung set against eager, kernel by kernel."""

from __future__ import annotations

from snippets.zoo import kernels, tables
from tests.markdown import table_rows


def profile(busy, **top):
    return {"busy_us_per_call": busy,
            "top": [{"name": n, "us_per_call": us, "count_per_call": 1.0} for n, us in top.items()]}


def ladder(ratio=0.9):
    eager = profile(100.0, implicit_convolve=60.0, gelu_kernel=10.0)
    compiled = profile(112.0, implicit_convolve=60.5, triton_red_fused__safe_softmax_x=15.0)
    return {"rows": [
        {"model": "snippets.zoo.catalog:w2v", "batch_size": 32, "mode": "eager", "profile": eager},
        {"model": "snippets.zoo.catalog:w2v", "batch_size": 32, "mode": "compile",
         "prev_rung": "eager", "speedup_prev": ratio, "profile": compiled,
         "below_profile": eager},
    ]}


def test_the_slower_compiled_rung_is_set_beside_eager_kernel_by_kernel():
    loss = kernels.of(ladder()).largest
    assert loss.model == "w2v" and loss.ratio == 0.9
    assert [k.name for k in loss.kernels] == ["implicit_convolve",
                                              "triton_red_fused__safe_softmax_x", "gelu_kernel"]
    assert loss.convolutions_same and loss.math_attention
    assert [k.name for k in loss.only_eager] == ["gelu_kernel"]
    assert loss.only_net_us == 5.0  # 15 µs only compiled, 10 only eager
    assert loss.batch == 32 and loss.grew_ms == 0.012  # 112 - 100 µs per call
    shown = table_rows(tables.kernels(ladder()))  # a row per kernel, then the busy total
    assert [r[0].strip("`") for r in shown[:-1]] == [k.name for k in loss.kernels]
    assert (shown[-1][1], shown[-1][3]) == (f"{loss.eager_busy_us:.0f}",
                                            f"{loss.compiled_busy_us:.0f}")


def test_a_rung_within_noise_of_eager_is_no_loss():
    assert kernels.of(ladder(ratio=0.99)).losses == ()
