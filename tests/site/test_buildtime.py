"""Tests of python -m snippets.buildtime: reading a log, timing a command, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snippets.site import buildtime

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "docs/results/nvidia-h200_torch-2.11.0"


def test_buildtime_reads_mkdocs_own_time_from_a_log(tmp_path, capsys):
    log = tmp_path / "build.log"
    log.write_text("INFO    -  Cleaning site directory\n"
                   "INFO    -  Documentation built in 12.34 seconds\n")
    out = tmp_path / "site-build.json"
    code = buildtime.main(["--label", "fresh", "--output", str(out), "--from-log", str(log),
                           "--provenance-from", str(H200 / "bench.json")])
    assert code == 0
    doc = json.loads(out.read_text())
    assert doc["rows"] == [{"label": "fresh", "seconds": 12.34, "samples_s": [12.34]}]
    assert doc["provenance"]["device"] == "NVIDIA H200"  # the build's machine, not this one


def test_buildtime_times_a_command_and_replaces_a_row_of_the_same_label(tmp_path, capsys):
    out = tmp_path / "site-build.json"
    for _ in range(2):
        assert buildtime.main(["--label", "noop", "--output", str(out), "--", "true"]) == 0
    assert [r["label"] for r in json.loads(out.read_text())["rows"]] == ["noop"]


def test_buildtime_keeps_each_rows_own_date_and_commit(tmp_path, monkeypatch):
    """A row added later does not restamp the rows already there, nor drop the file's history."""
    out = tmp_path / "site-build.json"
    monkeypatch.setenv("SNIPPETS_COMMIT", "a" * 12)
    assert buildtime.main(["--label", "one", "--output", str(out), "--", "true"]) == 0
    first = json.loads(out.read_text())
    first["provenance"]["migrations"] = [{"name": "m/1"}]
    out.write_text(json.dumps(first))
    monkeypatch.setenv("SNIPPETS_COMMIT", "b" * 12)
    assert buildtime.main(["--label", "two", "--output", str(out), "--repeat", "3", "--",
                           "true"]) == 0
    doc = json.loads(out.read_text())
    parts = doc["provenance"]["parts"]
    commits = {r["label"]: parts[r["part"]]["commit"] for r in doc["rows"]}
    assert commits == {"one": "a" * 12, "two": "b" * 12}
    assert doc["provenance"]["migrations"] == [{"name": "m/1"}]
    assert len(doc["rows"][1]["samples_s"]) == 3


@pytest.mark.parametrize("argv, expect", [
    (["--label", "x", "--output", "o.json"], "-- COMMAND or --from-log"),
    (["--label", "x", "--output", "o.json", "--from-log", "b.log"], "needs --provenance-from"),
    (["--label", "x", "--output", "o.json", "--", "false"], "exit 1"),
    (["--label", "x", "--output", "o.json", "--repeat", "0", "--", "true"], "--repeat: 0"),
])
def test_buildtime_mistakes_get_one_line_and_exit_2(tmp_path, capsys, monkeypatch, argv, expect):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        buildtime.main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and expect in err[0]


def test_buildtime_an_unreadable_output_file_is_one_line_not_a_traceback(tmp_path, capsys):
    out = tmp_path / "site-build.json"
    out.write_text("{not json")
    with pytest.raises(SystemExit) as exc:
        buildtime.main(["--label", "noop", "--output", str(out), "--", "true"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and "not valid JSON" in err[0]


def test_buildtime_refuses_another_machines_run_folder(tmp_path, capsys):
    other = tmp_path / "results" / "nvidia-h200_torch-2.11.0"
    other.mkdir(parents=True)
    with pytest.raises(SystemExit) as exc:
        buildtime.main(["--label", "noop", "--output", str(other / "site-build.json"), "--",
                        "true"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and "belongs in results/" in err[0]
