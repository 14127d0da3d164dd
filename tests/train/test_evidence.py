"""The training page's evidence tables (profiles, two runs side by side) over made-up rows and a
real CPU run: their rows and cells, never the timings in them."""

from __future__ import annotations

import json
import re

from snippets.core import folders, results
from snippets.train import evidence, repeat
from tests.markdown import all_rows, label, row, table_rows

from .rows import pair, timed


def _counts_in_summary(text: str) -> list[str]:
    """The numbers in the summary of the last block that opens."""
    return re.findall(r"\d+", re.findall(r"<summary>(.*?)</summary>", text)[-1])


def test_two_runs_of_the_same_commands_are_set_side_by_side(cpu_train_run, tmp_path):
    from snippets.site import build, pages

    doc = results.load(cpu_train_run)
    site = build.Build(docs_dir=tmp_path / "docs", cache_dir=tmp_path / "cache")
    folder = site.results_dir / folders.run_folder(doc["provenance"])
    folder.mkdir(parents=True)
    (folder / "train.json").write_text(cpu_train_run.read_text())
    missing = pages.repeated("train", evidence.agreement, device="cpu", build=site)
    assert missing == pages.no_run_yet("train-repeat", "cpu")  # the note, not a table
    again = json.loads(cpu_train_run.read_text())
    again["rows"][1]["speedup"] = doc["rows"][1]["speedup"] * 1.2  # `model` 20 % apart
    (folder / "train-repeat.json").write_text(json.dumps(again))
    out = pages.repeated("train", evidence.agreement, device="cpu", build=site)
    compiled = [r for r in doc["rows"] if r["variant"] != "eager"]
    rows = table_rows(out)
    assert [r[0] for r in rows] == [f"tiny-cnn · 4 · {r['variant']}" for r in compiled]
    assert rows[0][3] == "+20.0" and all(r[3] == "+0.0" for r in rows[1:])
    stamp = out.split('<p class="stamp">')[1].split("</p>")[0]  # both runs' provenance
    assert all(stamp.count(doc["provenance"][f]) == 2 for f in ("device", "torch"))
    moved = table_rows([t for t in out.split("\n\n") if t.startswith("|")][1])  # what moved
    assert [r[0] for r in moved] == ["tiny-cnn · 4 · model"]
    agreed = repeat.agreement(doc, again)
    assert agreed.agree == len(compiled) - 1 and [p.key[2] for p in agreed.apart] == ["model"]


def test_what_moved_between_two_runs_is_read_against_each_run_s_own_eager():
    doc = {"provenance": {}, "rows": pair("reduce-overhead", 20.0, 5.0, 4.0)}
    again = {"provenance": {}, "rows": pair("reduce-overhead", 25.0, 5.1, 4.9, canary=500.0)}
    text = evidence.moved(repeat.agreement(doc, again))
    assert table_rows(text)[0] == ["m · 32 · reduce-overhead", "20.0 → 25.0", "5.00 → 5.10",
                                   "400 → 500"]


def test_a_later_row_is_marked_in_the_agreement_table():
    def doc(rows, *dates):
        return {"provenance": {"parts": [{"date": d} for d in dates]}, "rows": rows}

    first = doc([*pair("model", 20.0, 10.0, 2.0), *pair("step", 20.0, 10.0, 2.0, part=1)],
                "2026-01-01T01:00:00+00:00", "2026-01-01T05:00:00+00:00")
    again = doc([*pair("model", 20.0, 10.0, 2.02), *pair("step", 20.0, 10.0, 2.0)],
                "2026-01-01T03:00:00+00:00")
    assert [r[0] for r in table_rows(evidence.agreement(first, again))] == [
        label("m", 32, "model"), label("m", 32, "step (later)")]


def test_the_profiles_take_run_2_s_for_a_row_run_1_did_not_profile():
    doc = {"provenance": {"device_type": "cuda"},
           "rows": [timed("m", 32, "model", 12.0), timed("m", 32, "reduce-overhead", 4.0)]}
    again = json.loads(json.dumps(doc))
    again["rows"][0]["profile"] = {"device_type": "cuda", "idle_fraction": 0.6, "calls": 5,
                                   "kernels_per_call": 400.0, "launches_per_call": 399.0,
                                   "span_us_per_call": 10.0, "busy_us_per_call": 4.0,
                                   "top": [{"name": "Optimizer.step#AdamW.step",
                                            "us_per_call": 1.0, "count_per_call": 1.0,
                                            "share": 0.1}],
                                   "annotations": ["Optimizer.step#AdamW.step"]}
    text = evidence.where(doc, again)
    assert row(text, "m", 32, "model (repeat run)") is not None
    assert _counts_in_summary(text) == ["5"]  # the steps run 2 profiled
    assert "`Optimizer.step#AdamW.step`" in text.split("Annotations")[1]  # named as one
    assert evidence.where(doc) == ""  # neither run profiled a row


def test_the_cpu_report_is_the_results_and_the_profiles(cpu_train_run):
    from snippets.train import tables

    doc = results.load(cpu_train_run)
    text = evidence.report(doc)
    assert [r[0] for r in table_rows(text)] == [f"tiny-cnn · 4 · {r['variant']}"
                                                for r in doc["rows"]]
    assert "<details" in text and all(c in text for c in tables.COLUMNS)
    assert _counts_in_summary(text) == ["2"]  # the steps each variant was profiled for
    block = text.rsplit("</summary>", 1)[1]
    shown = [cells[0] for cells in all_rows(block)]
    assert all(label("tiny-cnn", 4, r["variant"]) in shown for r in doc["rows"])
    # a CPU's profile table has no launches column, and no table of kernel classes follows
    profiled = table_rows(block)
    assert [len(r) for r in profiled] == [5] * len(doc["rows"])
    # after that table, the top ops of the group's fastest variant, and of no other
    rest = block[block.index("\n\n", block.index("|")):]
    fastest = min(doc["rows"], key=tables.step_median)
    named = [r["variant"] for r in doc["rows"]
             if re.search(re.escape(label("tiny-cnn", 4, r["variant"])) + r"(?![\w+])", rest)]
    assert named == [fastest["variant"]]


def test_which_variant_pays_and_its_rival_from_another_command():
    rows = [*pair("reduce-overhead", 16.0, 4.0, 4.0, canary=400.0),
            *pair("max-autotune", 11.0, 3.0, 3.7, part=1, canary=250.0)]
    for r in rows:
        r["compile_s"] = 1.0
    assert table_rows(evidence.picks({"rows": rows})) == [
        ["m · 32", "`max-autotune`", "3.70", "0", "`reduce-overhead`", "4.00", "60"]]
    nothing = [{**r, "status": "error"} for r in rows]
    assert table_rows(evidence.picks({"rows": nothing})) == [
        ["m · 32", "nothing timed", "–", "–", "–", "–", "–"]]


def test_the_readings_each_get_a_table_where_they_have_rows():
    doc = {"provenance": {"device_type": "cuda"},
           "rows": [timed("m", 32, "model", 12.0), timed("m", 32, "reduce-overhead", 4.0),
                    timed("m", 128, "model", 12.6)]}
    again = {"provenance": {"device_type": "cuda"}, "rows": [{**timed("m", 32, "model", 12.0),
             "profile": {"device_type": "cuda", "idle_fraction": 0.6, "kernels_per_call": 400.0}}]}
    text = evidence.readings(doc, again)
    assert table_rows(text) == [["m · 32", "host", "12.0", "4.00", "8.00", "67", "128", "1.05"]]
    idle = table_rows(text.split("\n\n**")[1])
    assert idle == [["m · 32 (repeat run)", "60", "400", "–"]]
    assert text.count("**") == 4  # two tables: no busy eager step, no goal on these models
    assert evidence.readings({"provenance": {"device_type": "cpu"}, "rows": []}) == ""
