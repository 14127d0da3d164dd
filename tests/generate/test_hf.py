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


def test_the_findings_read_each_transformers_variant_against_its_dynamic_cache():
    from snippets.generate import hf_findings

    def row(variant, speedup, status="ok", tps=None):
        return {"variant": variant, "speedup": speedup, "status": status, "tokens_per_s": tps}
    doc = {"rows": [row(hf_findings.DYNAMIC, 1.0, "noisy"), row(hf_findings.STATIC, 0.8),
                    row(hf_findings.COMPILED, 5.0, tps=300.0), row("decoder eager", 1.0)]}
    found = hf_findings.of(doc)
    assert (found.static, found.compiled, found.compiled_tokens_per_s) == (0.8, 5.0, 300.0)
    doc["rows"][2]["status"] = "mismatch"
    assert hf_findings.of(doc).compiled is None and hf_findings.of(doc).compiled_tokens_per_s is None
