"""python -m snippets.speed: one line and exit code 2 for each mistake; a run end to end."""

from __future__ import annotations

import pytest

from snippets.core import results
from snippets.speed.__main__ import PROG, main
from tests import cli_run

TINY = "snippets.core.models:tiny_mlp"
QUICK = ["--device", "cpu", "--rounds", "2", "--warm-rounds", "0"]


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    return cli_run.run(main, capsys, *argv)


@pytest.mark.parametrize("argv, expect", [
    ([], "choose --ladder, --settings or --freezing"),
    (["--ladder", "--settings"], "not allowed with argument"),
    (["--ladder", "--rungs", "turbo"], "unknown rung 'turbo'"),
    (["--ladder", "--modes", "default"], "--modes does not apply to --ladder"),
    (["--settings", "--rungs", "compile"], "--rungs does not apply to --settings"),
    (["--settings", "--profile-calls", "3"], "--profile-calls does not apply to --settings"),
    (["--settings", "--modes", "fast"], "unknown mode 'fast'"),
    (["--ladder", "--models", "resnet5"], "unknown model 'resnet5'"),
    (["--ladder", "--batch-sizes", "0"], "0 is not a positive number"),
    (["--ladder", "--device", "tpu"], "unknown device 'tpu'"),
    (["--ladder", "--append"], "--append needs --output"),
    (["--ladder", "--backends-from", "/no/such.json"], "no such file"),
    (["--ladder", "--output", "/no/such/dir/r.json"], "does not exist"),
    (["--ladder", "--model", "no_such_pkg.mod:f"], "cannot import 'no_such_pkg.mod'"),
    (["--ladder", "--rungs", "max-autotune,graph-timed-autotune"], "without max-autotune"),
])
def test_bad_input_gets_one_line_and_exit_2(capsys, argv, expect):
    cli_run.assert_one_line_error(*run_cli(capsys, *argv), expect)


def test_backends_from_a_file_of_another_kind_is_one_line(capsys, tmp_path, cpu_bench_run):
    code, _, err = run_cli(capsys, "--ladder", "--backends-from", str(cpu_bench_run))
    assert code == 2 and "expected 'snippets.speed-settings/1'" in err
    assert len(err.strip().splitlines()) == 1


def test_settings_then_a_ladder_under_its_choice(capsys, tmp_path, monkeypatch):
    from snippets.core import roofline

    monkeypatch.setitem(roofline.SIZES, "cpu", {**roofline.SIZES["cpu"], "matmul_n": 64,
                                                "copy_mib": 1, "reps": 1, "repeats": 2})
    sweep = tmp_path / "settings.json"
    code, out, _ = run_cli(capsys, "--settings", "--model", TINY, "--modes", "eager", *QUICK,
                           "--output", str(sweep))
    assert code == 0 and "| eager · cudnn.benchmark |" in out
    assert results.load(sweep, "speed-settings")["complete"]
    lad = tmp_path / "ladder.json"
    code, out, _ = run_cli(capsys, "--ladder", "--model", TINY, "--rungs", "compile",
                           "--profile-calls", "0", "--backends-from", str(sweep), *QUICK,
                           "--output", str(lad))
    assert code == 0 and "| Ceiling |" in out
    doc = results.load(lad, "bench")
    assert [r["mode"] for r in doc["rows"]] == ["eager", "compile"]
    assert doc["provenance"]["settings"]["backends_evidence"]["from"]["kind"] == "speed-settings"
    # a second command adds the rung the first left out beside its own eager row, and keeps
    # what the first recorded
    code, _, _ = run_cli(capsys, "--ladder", "--model", TINY, "--rungs", "freezing",
                         "--profile-calls", "0", *QUICK, "--output", str(lad), "--append")
    joined = results.load(lad, "bench")
    assert code == 0 and [r["mode"] for r in joined["rows"]] == ["eager", "compile", "eager",
                                                                 "+ freezing"]
    assert joined["rows"][0] == {**doc["rows"][0], "part": 0}
    assert [r["part"] for r in joined["rows"]] == [0, 0, 1, 1]
    code, _, err = run_cli(capsys, "--ladder", "--model", TINY, *QUICK, "--dtype", "bf16",
                           "--output", str(lad), "--append")
    cli_run.assert_one_line_error(code, "", err, "--append:", "setting dtype",
                                  "'bf16' here, 'fp32' in the file", prog=PROG)
