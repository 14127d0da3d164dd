"""The one timing-table renderer: its layout (key first, alignment, footer) and its cells."""

from __future__ import annotations

from snippets.core import columns, rows

ROWS = [{"model": "m", "batch_size": 1, "mode": "eager", "status": "ok",
         "latency_ms": {"median": 2.0, "iqr": 0.05}, "speedup": None},
        {"model": "m", "batch_size": 1, "mode": "default", "status": "ok",
         "latency_ms": {"median": 1.0, "iqr": 0.02}, "speedup": 2.0, "speedup_iqr": 0.1},
        {"model": "m", "batch_size": 1, "mode": "default", "status": "oom", "part": 1,
         "latency_ms": None, "speedup": 1.5}]
KEY = (columns.field("Model", "model"), columns.field("Batch", "batch_size"),
       columns.variant("Mode", "mode"))
VALUES = (columns.timing("Median", lambda p: p.row["latency_ms"]), columns.speedup(),
          columns.words("Status", lambda p: p.row["status"]))


def placed():
    return rows.in_runs(ROWS, lambda r: r["mode"] == "eager")


def lines(text):
    return text.split("\n")


def cells(line):
    return [c.strip() for c in line.strip("|").split("|")]


def test_key_first_then_values_and_their_alignment():
    head, align, *body = lines(columns.markdown(placed(), KEY, VALUES))[:4]
    assert cells(head) == ["Model · batch · mode", "Median", "Speedup", "Status"]
    assert cells(align) == ["---", "--:", "--:", "---"]  # key and words left, numbers right
    assert [cells(b)[0] for b in body] == ["m · 1 · eager", "m · 1 · default"]


def test_a_joined_header_lowers_only_each_later_part_s_first_letter():
    assert columns.label_header((KEY[0], columns.Column("Bucket MB", str))) == "Model · bucket MB"


def test_unjoined_key_gives_a_column_per_part():
    head, align, body = columns.grid(placed(), KEY, VALUES, joined=False)
    assert head[:3] == ["Model", "Batch", "Mode"] and align == "lllrrl"
    assert body[2][:3] == ["m", "1", "command 2 · default"]  # the second run is named


def test_spread_inline_and_a_dash_for_what_a_row_lacks():
    _, _, body = columns.grid(placed(), KEY, VALUES)
    assert body[0][1:3] == ["2.00 ±2.5%", "–"]  # the baseline has no speedup
    assert body[1][1:3] == ["1.00 ±2.0%", "2.00x ± 0.05"]
    # No median; and its run's eager row is not in the table, so no ratio either.
    assert body[2][1:] == ["–", "–", "oom"]
    assert columns.spread({"median": 123.4}) == "123"  # no spread kept: the median alone


def test_footer_says_each_unit_once_under_the_table():
    text = columns.markdown(placed(), KEY, (*VALUES, columns.ms("Eager", lambda p: 2.0)))
    last = lines(text)[-1]
    assert last.startswith('<p class="units">') and lines(text)[-2] == ""
    assert last.lower().count(columns.IN_MS) == 1
    assert all(n in last for n in (columns.SPREAD, *columns.SPEEDUP))
    assert "Median ms" not in text  # the unit is in the footer, not the header
    assert columns.notes(VALUES[:1]) == f"{columns.IN_MS.capitalize()}; {columns.SPREAD}."
    bare = columns.markdown(placed(), KEY, VALUES[2:])
    assert "units" not in bare  # no column with a unit: no footer
