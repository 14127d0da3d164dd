"""The tables of the generation page: per phase, each batch size's variants side by side with
eager's from the same rounds, and where each stands against its ceiling."""

from __future__ import annotations

from typing import Any

from snippets.core import columns, render, stamps
from snippets.core import rows as typed
from snippets.generate import findings

KEY = (columns.field("Batch", "batch_size"), columns.variant("Variant", "variant"))


def placed(doc: dict[str, Any], phase: str) -> list[typed.InRun]:
    """The rows of ``phase``, in blocks per batch size, each with its own eager row."""
    found = [r for r in doc["rows"] if r["phase"] == phase]
    return typed.in_runs(found, lambda r: r["variant"] == "eager",
                         group=lambda r: (r["batch_size"],))


def _diff(row: dict[str, Any]) -> str | None:
    """Where the greedy tokens first differ from eager's: "same" for none, the step otherwise;
    nothing for eager itself or a row that did not generate."""
    if row["variant"] == "eager" or row["status"] not in ("ok", "noisy"):
        return None
    return "same" if row.get("first_diff") is None else f"step {row['first_diff']}"


def value_columns(phase: str) -> tuple[columns.Column, ...]:
    """The key columns: time, speedup, rate, share of the ceiling, compile time."""
    share = (columns.number("% of bandwidth", lambda p: p.row.get("pct_of_bandwidth"), ".1f")
             if phase == "decode" else
             columns.number("% of measured matmul rate", lambda p: p.row.get("pct_of_peak"), ".1f"))
    return (
        columns.timing("ms per step" if phase == "decode" else "ms (first token)",
                       lambda p: p.row.get("latency_ms")),
        columns.speedup("× eager"),
        columns.number("Tokens/s", lambda p: p.row.get("tokens_per_s"), ",.0f"),
        share,
        columns.number("Compile s", lambda p: p.row.get("compile_s") if p.row["variant"] != "eager"
                       else None, ".1f"),
    )


def checks_table(doc: dict[str, Any]) -> str:
    """Each row's tokens against eager's and its status: the columns a first reading skips."""
    rows = [p for phase in ("decode", "prefill") for p in placed(doc, phase)]
    return columns.markdown(rows, (columns.field("Phase", "phase"), *KEY), (
        columns.words("Tokens vs eager", lambda p: _diff(p.row)),
        columns.status(lambda p: p.row, noisy_message=False))) if rows else ""


def phase_table(doc: dict[str, Any], phase: str) -> str:
    rows = placed(doc, phase)
    return columns.markdown(rows, KEY, value_columns(phase)) if rows else ""


def report(doc: dict[str, Any]) -> str:
    """Both phases' tables, as the Results page lists a run."""
    return "\n\n".join(t for t in (phase_table(doc, "decode"), phase_table(doc, "prefill")) if t)


def memory_table(doc: dict[str, Any]) -> str:
    """Peak memory of each decode variant beside the cache it holds."""
    rows = placed(doc, "decode")
    return columns.markdown(rows, KEY, (
        columns.number("KV cache MiB", lambda p: p.row.get("kv_cache_mb"), ",.0f"),
        columns.number("Peak MiB", lambda p: p.row.get("peak_mem_mb"), ",.0f"))) if rows else ""


def rich_tables(doc: dict[str, Any]) -> list[Any]:
    stamp = stamps.stamp(doc, "this run")
    return [columns.rich(placed(doc, phase), KEY, value_columns(phase), title=phase, stamp=stamp)
            for phase in ("decode", "prefill") if placed(doc, phase)]


def shape_table(doc: dict[str, Any]) -> str:
    """The decoder the run measured: its sizes, its parameters and what a decode step reads."""
    st = doc["provenance"]["settings"]
    sh = st["shape"]
    return render.markdown_table(
        ("Layers", "Dim", "Heads q / kv", "MLP", "Vocabulary", "Parameters", "Read per token"),
        ((str(sh["layers"]), str(sh["dim"]), f"{sh['heads']} / {sh['kv_heads']}",
          str(sh["ffn"]), f"{sh['vocab']:,}", f"{st['params'] / 1e9:.2f} B",
          f"{findings.read_per_token(doc) / 1e9:.2f} GB {st['dtype']}"),), align="rrrrrrr")


def hf_table(doc: dict[str, Any]) -> str:
    """transformers' generate and the package's decoder, per decoded token; each ratio is
    against its own family's eager row (transformers' dynamic cache, the decoder's eager loop),
    both in the table."""
    return columns.markdown(doc["rows"], (columns.field("Variant", "variant"),), (
        columns.timing("ms per token", lambda r: r.get("latency_ms")),
        columns.number("× its eager", lambda r: r.get("speedup"), ".2f",
                       notes=(columns.RATIO,)),
        columns.number("Tokens/s", lambda r: r.get("tokens_per_s"), ",.0f"),
        columns.number("First call s", lambda r: r.get("first_s"), ".1f"),
        columns.words("Tokens", lambda r: None if r.get("same_tokens") is None
                      else "same" if r["same_tokens"] else "differ"),
        columns.status(noisy_message=False)))


def ladder_plot(doc: dict[str, Any]) -> str:
    """Tokens per second per rung, beside the rate the copy bandwidth allows at that rung's
    bytes per step: how far each rung is from its own bound."""
    from snippets.core import plots

    timed = [r for r in doc["rows"] if r["status"] in ("ok", "noisy")]
    if not timed:
        return ""
    copy = doc["ceilings"]["copy_gbps"] * 1e9
    bound = [r["batch_size"] * copy / r["bytes_per_step"] for r in timed]
    with plots.figure(0.8 + 0.4 * len(timed)) as (fig, ax):
        y = range(len(timed))
        ax.barh([i - 0.18 for i in y], [r["tokens_per_s"] for r in timed], height=0.34,
                color=plots.PALETTE[0], label="measured")
        ax.barh([i + 0.18 for i in y], bound, height=0.34, color=plots.PALETTE[1],
                label="bandwidth bound")
        ax.set_yticks(list(y), [r["rung"] for r in timed])
        ax.invert_yaxis()  # the ladder's order, top to bottom
        ax.set_xlabel("tokens per second")
        ax.grid(axis="x")
        plots.legend_below(fig, 2)
        svg = plots.svg(fig, "decode-ladder")
    # A label read in place of the drawing: the table beside it holds every value.
    return plots.html_figure(svg, "Tokens per second per rung")


def profile_table(doc: dict[str, Any]) -> str:
    """The profiled rung's top kernels per token: name, launches, time and share of busy time."""
    prof = next((r["profile"] for r in doc["rows"] if r.get("profile")), None)
    if not prof or not prof.get("top"):
        return ""
    busy = prof.get("busy_us_per_call")
    # Inductor's kernel names are long; their head says what is fused, the tail is a counter.
    return render.markdown_table(
        ("Kernel", "Per token", "µs per token", "% of busy"),
        ((f"`{k['name'][:64]}`", f"{k['count_per_call']:.0f}", f"{k['us_per_call']:.0f}",
          # "share" is of the profiled span, gaps included: the busy time is the kernels'
          render.num(100 * k["us_per_call"] / busy if busy else None, ".0f"))
         for k in prof["top"]))


def _label(row: dict[str, Any], dtype: str) -> str:
    return dtype if row["weights"] == "dense" else row["weights"]


def _weights(doc: dict[str, Any]) -> columns.Column:
    """The weights' label column: the dense weights named by the run's dtype."""
    dtype = doc["provenance"]["settings"]["dtype"]
    return columns.Column("Weights", lambda r: _label(r, dtype), left=True)


def loop_table(doc: dict[str, Any]) -> str:
    """Each weights' step and loops: time per step, tokens per second, share of the copy
    bandwidth, the ratio over the dense weights' row of the same way, and over its own step."""
    dtype = doc["provenance"]["settings"]["dtype"]
    return columns.markdown(doc["rows"], (_weights(doc), columns.field("Way", "way")), (
        columns.timing("ms per step", lambda r: r.get("latency_ms")),
        columns.number("Tokens/s", lambda r: r.get("tokens_per_s"), ",.0f"),
        columns.number("% of bandwidth", lambda r: r["of_copy_bw"] and 100 * r["of_copy_bw"],
                       ".1f"),
        columns.number(f"× {dtype}", lambda r: r.get("speedup"), ".2f", notes=(columns.RATIO,)),
        columns.number("× its step", lambda r: r.get("vs_step"), ".2f", notes=(columns.RATIO,)),
        columns.status()))


def loop_detail_table(doc: dict[str, Any]) -> str:
    """What a first reading skips: compile time, the host's time per step call, the prompt's
    share of a loop, and where the tokens part from eager's (the naive loop's: from the loop's)."""
    return columns.markdown(doc["rows"], (_weights(doc), columns.field("Way", "way")), (
        columns.number("Compile s", lambda r: r.get("compile_s"), ".1f"),
        columns.number("Host µs per step", lambda r: r.get("host_us"), ",.0f"),
        columns.number("Prompt % of loop", lambda r: r.get("prefill_share") and
                       100 * r["prefill_share"], ".1f"),
        columns.number("Weights GB", lambda r: r.get("weight_bytes") and
                       r["weight_bytes"] / 1e9, ".3g"),
        columns.words("Tokens", lambda r: None if not r.get("tokens") else
                      "same" if r.get("first_diff") is None else f"from step {r['first_diff']}"),
    ))


def loop_host_table(doc: dict[str, Any]) -> str:
    """Where each weights' step spends its time: the step as timed, the host's time to issue
    one, and from the profile the kernels' busy time, their count and the idle share."""
    steps = [r for r in doc["rows"] if r["way"] == "step" and r.get("latency_ms")]

    def prof(name: str, scale: float = 1.0) -> Any:
        def read(r: dict[str, Any]) -> float | None:
            value = (r.get("profile") or {}).get(name)
            return None if value is None else scale * value
        return read

    return columns.markdown(steps, (_weights(doc),), (
        columns.timing("ms per step", lambda r: r.get("latency_ms")),
        columns.number("Host µs", lambda r: r.get("host_us"), ",.0f"),
        columns.number("Kernels µs", prof("busy_us_per_call"), ",.0f"),
        columns.number("Kernels", prof("kernels_per_call"), ".0f"),
        columns.number("Launches", prof("launches_per_call"), ".0f"),
        columns.number("% idle", prof("idle_fraction", 100), ".0f"),
    )) if steps else ""


def loop_kernels(doc: dict[str, Any]) -> str:
    """The top kernels of each weights' profiled step, under its name."""
    dtype = doc["provenance"]["settings"]["dtype"]
    return "\n\n".join(f"`{_label(r, dtype)}`:\n\n" + profile_table({"rows": [r]})
                       for r in doc["rows"] if r["way"] == "step" and r.get("profile"))


def ladder_table(doc: dict[str, Any]) -> str:
    """The ladder's key columns: each rung's step time, its speedup over eager in the same
    rounds, its rate and its share of the copy bandwidth, its compile time, its status."""
    # A step decodes one token per sequence: per token only at batch 1.
    batch = doc["provenance"]["settings"].get("batch", 1)
    return columns.markdown(doc["rows"], (columns.field("Rung", "rung"),), (
        columns.timing("ms per token" if batch == 1 else "ms per step",
                       lambda r: r.get("step_ms")),
        columns.Column("× eager", lambda r: r if r.get("speedup") is not None else None,
                       render.speedup, notes=columns.SPEEDUP),
        columns.number("Tokens/s", lambda r: r.get("tokens_per_s"), ",.0f"),
        columns.number("% of bandwidth", lambda r: r["of_copy_bw"] and 100 * r["of_copy_bw"],
                       ".1f"),
        columns.number("Compile s", lambda r: r.get("compile_s"), ".1f"),
        columns.status()))


def traps_table(doc: dict[str, Any]) -> str:
    """Each trap beside its fix: compiles, compile seconds, the time per token where timed and
    the fix's speedup over the trap in the same rounds."""
    return columns.markdown(doc["rows"], (columns.field("Trap", "trap"),
                                          columns.field("Variant", "variant")), (
        columns.number("Compiles", lambda r: r.get("compiles"), "d"),
        columns.number("Compile s", lambda r: r.get("compile_s"), ".1f"),
        columns.timing("ms per token", lambda r: r.get("step_ms")),
        columns.number("× the trap", lambda r: r.get("speedup"), ".2f", notes=(columns.RATIO,)),
        columns.status()))


def split_table(doc: dict[str, Any]) -> str:
    """max-autotune's loss split in two per batch size: the products autotuned alone against
    reduce-overhead, and the rest of the mode against those products (``findings.split``)."""
    return columns.markdown(findings.split(doc).splits, (
        columns.Column("Batch", lambda s: s.batch, left=True),), (
        columns.number("Products × reduce-overhead", lambda s: s.products.ratio, ".2f"),
        columns.number("Rest × products", lambda s: s.rest, ".2f")), joined=False)
