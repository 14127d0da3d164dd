"""The training page's tables: the run, the loss curves, where compiling pays, the memory, and
what AOTAutograd traced (``evidence`` reads where a step's time goes and whether two runs agree;
``compare`` has the terminal's tables)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from snippets.core import columns, render
from snippets.core import rows as typed
from snippets.train.step import COMPILES, CUDA_GRAPHS

LEARNS = ("ok", "noisy")  # the statuses of a row that trained like eager and was timed
Key = tuple[str, int, str]


@dataclass(frozen=True)
class At:
    """A finding of one model at one batch size."""

    model: str
    batch: int


def step_median(row: dict[str, Any] | None) -> float | None:
    return ((row or {}).get("step_ms") or {}).get("median")


def row_key(row: dict[str, Any]) -> Key:
    return row["model"], row["batch_size"], row["variant"]


def row_label(row: dict[str, Any], tag: str = "") -> str:
    return " · ".join(x for x in (row["model"], str(row["batch_size"]), tag, row["variant"]) if x)


def placed(found: list[dict[str, Any]]) -> list[typed.InRun]:
    """Each group's runs in blocks, each opened by its eager row (``core.rows.in_runs``)."""
    return typed.in_runs(found, lambda r: r["variant"] == "eager")


def by_key(doc: dict[str, Any]) -> dict[Key, dict[str, Any]]:
    """Each row by model, batch size and variant; of a group's eager rows, the first."""
    out: dict[Key, dict[str, Any]] = {}
    for r in doc["rows"]:
        out.setdefault(row_key(r), r)
    return out


def own_eager(doc: dict[str, Any], row: dict[str, Any]) -> dict[str, Any] | None:
    """The eager row of ``row``'s command, its speedup's baseline; None where not kept."""
    return typed.own_baseline(doc["rows"], row, lambda r: r["variant"] == "eager")


def hosts_apart(base: dict[str, Any], other: dict[str, Any]) -> float | None:
    """How much slower one row's host ran than the other's, by the canary; None in one
    command."""
    if base.get("part") == other.get("part"):
        return None
    a, b = base.get("host_canary_us"), other.get("host_canary_us")
    return max(a, b) / min(a, b) - 1 if a and b else None


def saved_ms(row: dict[str, Any], base: dict[str, Any], ratio: float | None = None
             ) -> float | None:
    """What one step of ``row`` saves against ``base``'s: by ``ratio`` (base over row) where
    given, else its speedup against eager, else by the medians."""
    step = step_median(row)
    if not step:
        return None
    if ratio is None and base.get("variant") == "eager":
        ratio = row.get("speedup")
    return step * (ratio - 1) if ratio is not None else (step_median(base) or 0.0) - step


def groups(doc: dict[str, Any]) -> list[tuple[str, int]]:
    return list(dict.fromkeys((r["model"], r["batch_size"]) for r in doc["rows"]))


def gap(row: dict[str, Any]) -> str:
    """The loss gap as a percentage of eager's first loss; eager's own row has none."""
    if row["variant"] == "eager" or not row.get("losses"):
        return "–"
    if row.get("loss_gap") is None:
        return "not finite"
    return f"{100 * row['loss_gap']:.2g} %"


def first_steps(seconds: float | None) -> str:
    """Eager's first steps take milliseconds, a compiled variant's seconds: tenths of a second
    would show eager's as 0.0, which reads as a missing value."""
    return render.num(seconds, ".1f" if seconds is None or seconds >= 1 else ".2g")


# What labels a row: the model, the batch, the variant (after its command, where its group holds
# several).
KEY = (columns.field("Model", "model"), columns.field("Batch", "batch_size"),
       columns.variant("Variant", "variant"))


def _peak(row: dict[str, Any]) -> str | None:
    if row.get("peak_mem_mb") is None:
        return None
    peak = f"{row['peak_mem_mb']:.0f}"
    if row["variant"] in CUDA_GRAPHS:
        # The graph's pool is taken when it is recorded, not by the step: measured apart, or,
        # where graph_pool_mb is None, not at all.
        peak += (f" + {row['graph_pool_mb']:.0f} pool" if row.get("graph_pool_mb") is not None
                 else " (no pool)")
    return peak


def detail_columns(prov: dict[str, Any] | None = None) -> tuple[columns.Column, ...]:
    """Every column; with ``prov``, % of peak against the file's printed peak."""
    step = lambda p: p.row.get("step_ms") or {}  # noqa: E731 (one reading, two columns)
    return (
        columns.Column("First steps s", lambda p: p.row.get("compile_s"), first_steps),
        columns.ms("Median", lambda p: step(p).get("median")),
        columns.ms("IQR", lambda p: step(p).get("iqr")),
        columns.speedup(),
        columns.number("Samples/s", lambda p: p.row.get("samples_per_s"), ".0f"),
        columns.number("TFLOP/s", lambda p: p.row.get("tflops"), ".3g"),
        columns.number("% peak", lambda p: typed.pct_of_peak(p.row, prov) if prov
                       else p.row.get("pct_of_peak"), ".1f"),
        columns.Column("Peak MB", lambda p: _peak(p.row)),
        columns.number("Graphs", lambda p: p.row.get("graph_count"), "d"),
        columns.number("Breaks", lambda p: p.row.get("graph_breaks"), "d"),
        columns.Column("Loss gap", lambda p: gap(p.row)),
        columns.status(lambda p: p.row))


COLUMNS = tuple(columns.grid([], KEY, detail_columns(), joined=False)[0])


def markdown_table(rows: list[dict[str, Any]], prov: dict[str, Any] | None = None) -> str:
    """Every column of every row: what a terminal shows, and the page's detail block."""
    return columns.markdown(placed(rows), KEY, detail_columns(prov), joined=False)


# The columns a reader came for. The step's spread is in the detail block (and a noisy row's
# status gives it), so that the page shows the same numbers it always did.
KEY_VALUES = (columns.ms("Step", lambda p: step_median(p.row)), columns.speedup(),
              columns.Column("First steps s", lambda p: p.row.get("compile_s"), first_steps),
              columns.Column("Loss gap", lambda p: gap(p.row)),
              columns.words("Status", lambda p: key_status(p.row)))


def labels(doc: dict[str, Any]) -> list[str]:
    """Each row's label, with its run where its group holds several."""
    tags = {id(p.row): p.tag for p in placed(doc["rows"])}
    return [row_label(r, tags[id(r)]) for r in doc["rows"]]


def key_status(row: dict[str, Any]) -> str:
    """A noisy row's IQR share of its median, short enough for the key table's cell."""
    step = row.get("step_ms") or {}
    if row["status"] == "noisy" and step.get("median") and step.get("iqr") is not None:
        return f"noisy: IQR {step['iqr'] / step['median']:.0%}"
    return row["status"]


def table(doc: dict[str, Any]) -> str:
    """The page's view of a run: the key columns, then every column in a block that opens."""
    return columns.markdown(placed(doc["rows"]), KEY, KEY_VALUES) + "\n\n" + render.details(
        "Every column", markdown_table(doc["rows"], doc["provenance"]))


def results(doc: dict[str, Any]) -> str:
    """The table, and when each compiled variant pays back."""
    return table(doc) + "\n\n" + payoff(doc)


# ---- where compiling pays ---------------------------------------------------------------------

def break_even_steps(row: dict[str, Any], eager: dict[str, Any], ratio: float | None = None
                     ) -> float | None:
    """Steps after which ``row``'s faster steps have paid for its slower first ones, against
    ``eager`` (``ratio``: see ``saved_ms``); None if its steps are not faster."""
    saved = saved_ms(row, eager, ratio)
    if saved is None or saved <= 0 or row.get("compile_s") is None:
        return None
    extra_s = row["compile_s"] - (eager.get("compile_s") or 0.0)
    return max(extra_s, 0.0) * 1e3 / saved


def pays(row: dict[str, Any], eager: dict[str, Any]) -> str:
    if row["status"] not in LEARNS or not step_median(row):
        return "–" if row["status"] in LEARNS else row["status"]
    steps = break_even_steps(row, eager)
    return "never (slower)" if steps is None else f"after {steps:,.0f} steps"


def payoff(doc: dict[str, Any]) -> str:
    """Each compiled variant's extra first-step cost, saving per step, and payback."""
    rows, body = by_key(doc), []
    for (_, _, variant), row in rows.items():
        if variant == "eager":
            continue
        eager = own_eager(doc, row)
        if not eager or not step_median(eager):  # its command's eager row not kept: its
            body.append([row_label(row), "–", "–", "–"])  # speedup's baseline is not shown
            continue
        extra = (row["compile_s"] - (eager.get("compile_s") or 0.0)
                 if row.get("compile_s") is not None else None)
        saved = saved_ms(row, eager)
        body.append([row_label(row), render.num(extra, ".1f"),
                     render.num(saved, ".3g"), pays(row, eager)])
    head = ("Model · batch · variant", "First steps' extra s", "Saved per step ms", "Pays back")
    return render.markdown_table(head, body)


# ---- learning the same ------------------------------------------------------------------------

def losses(doc: dict[str, Any]) -> str:
    """Each variant's loss at a few steps, and its largest gap from eager's."""
    n = max((len(r.get("losses") or []) for r in doc["rows"]), default=0)
    shown = columns.steps_shown(n)
    head = ("Model · batch · variant", *(f"Step {s}" for s in shown), "Loss gap")
    body = []
    for r, name in zip(doc["rows"], labels(doc), strict=True):
        curve = r.get("losses") or []
        if not curve:
            continue
        body.append([name,
                     *(render.num(curve[s - 1] if s <= len(curve) else None, ".4g")
                       for s in shown), gap(r)])
    return render.markdown_table(head, body)


# ---- memory -----------------------------------------------------------------------------------

def memory(doc: dict[str, Any]) -> str:
    """Each variant's peak memory, its CUDA graphs' pool, and the two against eager's."""
    body = []
    for p in placed(doc["rows"]):
        row, variant = p.row, p.row["variant"]
        mb, pool = row.get("peak_mem_mb"), row.get("graph_pool_mb")
        # Against the eager row of its own run, where the table shows it.
        eager = (own_eager(doc, row) or {}).get("peak_mem_mb") if p.paired else None
        total = mb + (pool or 0.0) if mb is not None else None
        ratio = f"{total / eager:.2f}x" if total is not None and eager and variant != "eager" \
            else "–"
        pooled = render.num(pool, ",.0f")
        if mb is not None and variant in CUDA_GRAPHS and pool is None:
            ratio += " (no pool)"
        elif row.get("graph_pool_shared_with"):
            pooled += f" (shared with {', '.join(row['graph_pool_shared_with'])})"
        body.append([row_label(row, p.tag), render.num(mb, ",.0f"), pooled, ratio])
    return render.markdown_table(
        ("Model · batch · variant", "Peak MB", "Pool MB", "× eager"), body)


# ---- what AOTAutograd traced (a live value, see snippets.train.aot) ---------------------------

def traced(value: list[dict[str, Any]]) -> str:
    head = ("What is compiled", "Graphs AOTAutograd made (operators)", "The loss in",
            "Graph breaks")
    body = []
    for v in value:
        graphs = ", ".join(f"{g['kind']} ({g['ops']})" for g in v["graphs"])
        with_loss = [g["kind"] for g in v["graphs"] if g["loss"]]
        body.append([COMPILES[v["variant"]], graphs, " and ".join(with_loss) or "none",
                     f"{v['breaks']}: " + "; ".join(v["reasons"]) if v["breaks"] else "0"])
    return render.markdown_table(head, body, left=len(head))
