"""snippets.production.regions: the first call of a stack, marked and not, in fresh processes."""

from __future__ import annotations

import pytest

from snippets.production import regions, tables


def test_a_marked_stack_compiles_and_answers_as_eager_in_a_fresh_process():
    row = regions.in_fresh_process("nested_compile_region", 2, "cpu")
    assert row["status"] == "ok" and row["compile_s"] > 0 and row["message"] == ""


def test_the_table_reads_each_variant_against_the_unmarked_stack_of_its_run():
    def row(variant, rep, s, status="ok", message=""):
        return {"variant": variant, "blocks": 24, "rep": rep, "compile_s": s, "status": status,
                "message": message}

    doc = {"rows": [row("unmarked", 1, 20.0), row("nested_compile_region", 1, 10.0),
                    row("nested_compile_region", 2, 12.0), row("unmarked", 2, 16.0),
                    row("unmarked", 3, None, "error", "killed")]}
    lines = tables.regions(doc).splitlines()
    assert lines[2].split(" | ")[1:4] == ["18.0", "20.0, 16.0, –", "1.00"]
    assert lines[3].split(" | ")[1:4] == ["11.0", "10.0, 12.0", "0.61"]
    assert "error: killed" in lines[2]


@pytest.mark.parametrize("argv, expect", [
    (["--blocks", "0", "--output", "x.json"], "argument --blocks"),
    (["--device", "cpu"], "--output FILE is required"),
    (["--device", "cpu", "--output", "no/such/folder/x.json"], "does not exist"),
])
def test_mistakes_get_one_line_and_exit_2(argv, expect, capsys):
    with pytest.raises(SystemExit) as exc:
        regions.main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and expect in err[0]
