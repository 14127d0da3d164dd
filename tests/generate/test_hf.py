"""snippets.generate.hf: transformers' generate beside the package's decoder (the llm extra)."""

from __future__ import annotations

import pytest

from snippets.core import results
from snippets.generate import hf


def test_without_transformers_the_command_says_which_extra_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(hf, "has_transformers", lambda: False)
    with pytest.raises(SystemExit) as exc:
        hf.main(["--device", "cpu"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and ".[llm]" in err[0]


def test_a_long_generation_no_longer_than_the_short_one_is_refused(capsys):
    with pytest.raises(SystemExit) as exc:
        hf.main(["--device", "cpu", "--short", "8", "--long", "8"])
    assert exc.value.code == 2 and "--long" in capsys.readouterr().err


def test_a_cpu_run_times_the_eager_ways_and_keeps_their_tokens(tmp_path):
    pytest.importorskip("transformers", reason='the llm extra: pip install -e ".[llm]"')
    out = tmp_path / "hf.json"
    assert hf.main(["--device", "cpu", "--rounds", "1", "--short", "2", "--long", "4",
                    "--output", str(out), "--format", "json"]) == 0
    doc = results.load(out, hf.KIND)
    by = {r["variant"]: r for r in doc["rows"]}
    assert [r["variant"] for r in doc["rows"]] == list(hf.VARIANTS)
    assert by["hf static cache"]["same_tokens"] is True
    assert by["hf static cache, compiled"]["status"] == "unsupported"
    assert by["decoder eager"]["status"] in ("ok", "noisy")
