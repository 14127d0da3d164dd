"""The check that every ratio a table shows agrees with the medians it shows beside it."""

from __future__ import annotations

from pathlib import Path

from snippets.site import agree
from tests import cli_run

HEAD = ["Model · batch · mode", "Median ms", "Speedup", "IQR %", "Status"]


def _found(head: list[str], body: list[list[str]]) -> list[tuple[str, str, float | None]]:
    return [(d.row, d.column, d.from_medians)
            for d in agree.table_disagreements("p", 1, head, body)]


def test_a_ratio_of_the_medians_shown_within_their_spread_agrees():
    body = [["m · 1 · eager", "4.00", "–", "2.0", "ok"],
            ["m · 1 · default", "2.00", "1.96x ± 0.03", "2.0", "ok"]]
    assert _found(HEAD, body) == []


def test_a_ratio_against_a_row_the_table_does_not_show_is_named():
    body = [["m · 1 · eager", "4.00", "–", "2.0", "ok"],
            ["m · 1 · max-autotune", "2.00", "3.00x", "1.0", "ok"]]
    (found,) = agree.table_disagreements("p", 1, HEAD, body)
    assert (found.row, found.column, found.shown) == ("m · 1 · max-autotune", "Speedup", 3.0)
    assert found.from_medians == 2.0 and found.tolerance == 0.03 + agree.ROUNDING


def test_two_eager_rows_in_one_group_are_two_runs_merged():
    body = [["m · 1 · eager", "4.00", "–", "2.0", "ok"],
            ["m · 1 · eager", "3.00", "–", "2.0", "ok"],
            ["m · 1 · default", "2.00", "1.50x", "2.0", "ok"]]
    assert _found(HEAD, body) == [("m · 1 · default", "Speedup", None)]


def test_a_later_run_s_block_is_read_against_its_own_eager_row():
    body = [["m · 1 · eager", "4.00", "–", "2.0", "ok"],
            ["m · 1 · command 2 · eager", "3.00", "–", "2.0", "ok"],
            ["m · 1 · command 2 · default", "1.50", "2.00x", "2.0", "ok"]]
    assert _found(HEAD, body) == []


def test_the_rung_below_and_a_row_s_own_eager_column():
    ladder = ["Model · batch · rung", "Median ms (IQR %)", "× eager", "× below", "Status"]
    body = [["m · 1 · eager", "4.00 (1.0)", "1.00", "–", "ok"],
            ["m · 1 · compile", "2.00 (1.0)", "2.00", "2.00", "ok"],
            ["m · 1 · + freezing", "1.00 (1.0)", "4.00", "1.50", "ok"]]
    assert _found(ladder, body) == [(body[2][0], "× below", 2.0)]
    own = ["Model · batch · mode", "Eager ms", "Median ms", "Speedup", "Status"]
    assert _found(own, [["m · 1 · max-autotune", "4.50", "1.50", "3.00x", "ok"]]) == []
    assert _found(own, [["m · 1 · max-autotune", "3.00", "1.50", "3.00x", "ok"]])


def test_a_timing_table_s_inline_spread_and_unitless_heads_are_read():
    # core.columns' layout: the median with its IQR as a share of it, the ms in the footer.
    head = ["Model · batch · mode", "Median", "Speedup", "Status"]
    spread = [["m · 1 · eager", "4.00 ±10.0%", "–", "ok"],
              ["m · 1 · default", "2.00 ±10.0%", "2.30x", "ok"]]
    assert _found(head, spread) == []  # 15 % apart: within the two rows' 10 % spreads
    tight = [[r[0], r[1].replace("10.0", "1.0"), *r[2:]] for r in spread]
    assert _found(head, tight) == [("m · 1 · default", "Speedup", 2.0)]
    own = ["Model · batch · mode", "Eager", "Median", "Speedup", "Status"]
    assert _found(own, [["m · 1 · max-autotune", "3.00", "1.50", "3.00x", "ok"]])
    detail = ["Model", "Batch", "Mode", "Median", "IQR", "Speedup", "Status"]
    assert _found(detail, [["m", "1", "eager", "4.00", "0.40", "–", "ok"],
                           ["m", "1", "default", "2.00", "0.20", "2.30x", "ok"]]) == []


def test_a_folder_without_a_site_is_a_one_line_error(tmp_path: Path, capsys):
    cli_run.assert_one_line_error(*cli_run.run(agree.main, capsys, str(tmp_path / "absent")),
                                  "no built site", prog=agree.PROG)


def test_a_table_of_findings_with_no_medians_has_nothing_to_recompute():
    head = ["Ladder", "Fastest", "× below", "Over"]
    body = [["m · 1", "`default`", "1.20", "`eager`"], ["m · 32", "`default`", "1.50", "`eager`"]]
    assert _found(head, body) == []
