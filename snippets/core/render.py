"""What every table is drawn with: a Markdown table, and the number formats the pages share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence


def cell(text: object) -> str:
    """A value as one Markdown table cell: no pipe or line break may end the cell early."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(head: Sequence[str], rows: Iterable[Sequence[object]], *,
                   left: int = 1, left_last: bool = False, align: str | None = None) -> str:
    """A Markdown table, the first ``left`` columns left-aligned, or as ``align`` says."""
    n = len(head)
    letters = align or "".join("l" if i < left or (left_last and i == n - 1) else "r"
                               for i in range(n))
    align_row = ["---" if a == "l" else "--:" for a in letters]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align_row) + "|"]
    for row in rows:
        if len(row) != n:  # Markdown would shift every later cell, silently
            raise ValueError(f"{len(row)} cells under {n} headings: {row!r}")
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    return "\n".join(lines)


def num(value: float | None, fmt: str) -> str:
    return "–" if value is None else plain(value, fmt)


def plain(value: float, fmt: str) -> str:
    """``format(value, fmt)``, but a ``g`` format gives ``123``, not ``1.2e+02``."""
    text = format(value, fmt)
    if fmt.endswith("g") and "e" in text and abs(value) >= 1:
        return format(value, ",.0f")
    return text


def ms(value: float | None) -> str:
    """Three significant figures, zeros kept (2.00 beside 1.78): latencies span 0.1 ms to s."""
    if value is None:
        return "–"
    return format(value, "#.3g").removesuffix(".") if value < 100 else format(value, ".0f")


def speedup(row: dict, paired: bool = True) -> str:
    """``1.92x ± 0.03`` (± half the IQR); "–" without one or its baseline (``paired``); a
    wrong answer's marked invalid."""
    if row.get("speedup") is None or not paired:
        return "–"
    text = f"{row['speedup']:.2f}x"
    if row.get("speedup_iqr") is not None:
        text += f" ± {row['speedup_iqr'] / 2:.2f}"
    return f"{text}, invalid" if row.get("status") == "mismatch" else text


def details(summary: str, body: str) -> str:
    """A ``<details>`` block, for what a reader rarely needs."""
    return (f'<details class="more" markdown="1">\n<summary>{summary}</summary>\n\n{body}\n\n'
            "</details>")


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 run``, ``11 runs``."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def span(values: Sequence[float], fmt: str, suffix: str = "") -> str:
    """``1.5x to 1.92x``, or one number where both ends format alike."""
    low, high = plain(min(values), fmt) + suffix, plain(max(values), fmt) + suffix
    return low if low == high else f"{low} to {high}"


# ---- profiles (snippets.core.profile) ----------------------------------------------------------

Labelled = Sequence[tuple[str, dict]]  # (a row's label, its profile), profiles that succeeded


def profiled(rows: Iterable[dict], label: Callable[[dict], str]) -> tuple[list, list[str]]:
    """(label, profile) of each profiled row, and a line for each whose profiler failed."""
    rows = [r for r in rows if r.get("profile")]
    return ([(label(r), r["profile"]) for r in rows if "error" not in r["profile"]],
            [f"- {label(r)}: profiler failed ({r['profile']['error']})"
             for r in rows if "error" in r["profile"]])


def profile_table(labelled: Labelled, first: str, unit: str = "call") -> str:
    """A line per profile: work, launches, wall and busy time per ``unit``, and idle share."""
    gpu = any(p.get("device_type") == "cuda" for _, p in labelled)
    # A CPU launches nothing: its column would be zeros.
    head = (first, f"{'Kernels' if gpu else 'Top-level ops'} / {unit}",
            *([f"Launches / {unit}"] if gpu else []), f"Wall µs / {unit}", f"Busy µs / {unit}",
            "Idle %")
    return markdown_table(head, [
        (label, f"{p['kernels_per_call']:.0f}",
         *([f"{p['launches_per_call']:.0f}"] if gpu else []),
         f"{p['span_us_per_call']:.0f}", f"{p['busy_us_per_call']:.0f}",
         num(100 * p["idle_fraction"] if p["idle_fraction"] is not None else None, ".0f"))
        for label, p in labelled])


def top_kernels(labelled: Labelled, unit: str = "call") -> str:
    """The kernels that hold the most time in each profile."""
    out = []
    for label, p in labelled:
        rows = [(f"`{k['name']}`", f"{k['us_per_call']:.1f}", f"{k['count_per_call']:.0f}",
                 num(100 * k["share"] if k["share"] is not None else None, ".1f"))
                for k in p["top"]]
        out.append(f"**{label}**\n\n" + markdown_table(
            ("Kernel", f"µs / {unit}", f"Count / {unit}", "% of wall"), rows))
    return "\n\n".join(out)


# The classes of ``snippets.core.profile.CLASSES`` as a column heads them.
CLASS_HEADS = {"matmul": "Matmul / conv %", "triton": "Triton %", "layout": "Layout %",
               "other": "Other %", "comm": "NCCL %"}


def kernel_classes(labelled: Labelled, first: str) -> str:
    """Each GPU profile's kernel time by class (``profile.CLASSES``), as shares; "" for none."""
    split = [(label, p["by_class"]) for label, p in labelled if p.get("by_class")]
    if not split:
        return ""
    # NCCL's column only where a step communicated; a split without "comm" put NCCL in "other"
    heads = [k for k in CLASS_HEADS if k != "comm" or any(c.get(k) for _, c in split)]
    return markdown_table((first, *(CLASS_HEADS[k] for k in heads)), [
        (label, *(num(100 * c.get(k, 0.0) / total if (total := sum(c.values())) else None, ".0f")
                  for k in heads)) for label, c in split])


def annotations(labelled: Labelled) -> str:
    """The ``record_function`` ranges profiles counted among their kernels, on one line."""
    names = sorted({n for _, p in labelled for n in p["annotations"]})
    return f"Annotations, not kernels: {', '.join(f'`{n}`' for n in names)}." if names else ""
