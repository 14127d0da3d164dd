"""The scale page's tables over a real CPU run, and the rules that set each row against the
one-process run: their shape and their verdicts, never the timings in them."""

from __future__ import annotations

import pytest

from snippets import scale
from snippets.core import results
from snippets.scale import scaling, tables
from tests.markdown import table_rows

from .conftest import MLP


def test_the_page_table_shows_the_main_rows_and_every_column_in_its_block(cpu_scale_run):
    doc = results.load(cpu_scale_run)
    text = tables.report(doc)
    labels = [r[0] for r in table_rows(text)]
    assert labels == [f"{MLP} · single · eager", f"{MLP} · ddp · eager",
                      f"{MLP} · ddp · compiled", f"{MLP} · fsdp2 · per-block"]
    ddp = next(r for r in table_rows(text) if r[0].endswith("ddp · compiled"))
    assert "→" in ddp[4]  # one graph, compiled as DDP's pieces
    assert "<details" in text and all(c in text for c in tables.COLUMNS)
    assert "What the table says, computed from it:" in text


def test_the_tuning_and_node_tables(cpu_scale_run):
    doc = results.load(cpu_scale_run)
    assert [r[0] for r in table_rows(tables.buckets(doc))] == [f"{MLP} · eager · 1",
                                                               f"{MLP} · compiled · 1"]
    assert [r[0] for r in table_rows(tables.blocks(doc))] == [
        "small-transformer · per-block-inplace", f"{MLP} · per-block", f"{MLP} · per-block-inplace"]
    assert tables.autograd(doc) == "No compiled-autograd run is recorded."
    nodes = tables.nodes(doc)
    assert [r[1] for r in table_rows(nodes)] == ["1 × 2", "2 × 1"]
    assert "```bash\ntorchrun --nproc-per-node 1 --nnodes 2" in nodes


def test_the_loss_table_samples_each_curve(cpu_scale_run):
    doc = results.load(cpu_scale_run)
    text = tables.losses(doc)
    head = text.splitlines()[0]
    assert "Step 1 |" in head and "Step 4 |" in head
    assert table_rows(text)[0][1] == f"{doc['rows'][0]['losses'][0]:.4g}"
    assert "every configuration learns as it should (within 0.1 % of the first loss)" in text


def test_the_profile_table_shows_what_each_main_row_waited_for(cpu_scale_run):
    doc = results.load(cpu_scale_run)
    rows = table_rows(tables.time_split(doc))
    assert [r[0] for r in rows] == [r[0] for r in table_rows(tables.table(doc))[:4]]
    assert all(r[2].endswith("%") for r in rows)  # the idle share, from each profile
    # a CPU's profile has no kernels to class: no NCCL share
    assert {r[3] for r in rows} == {"–"}
    unprofiled = {**doc, "rows": [{**r, "profile": None} for r in doc["rows"]]}
    assert tables.time_split(unprofiled).startswith("No profile is recorded in this run")


def test_one_gpu_steps_are_set_side_by_side_per_batch():
    def row(model, variant, bs, ms, idle=None):
        prof = {"span_us_per_call": 1.0, "idle_fraction": idle} if idle is not None else None
        return {"model": model, "variant": variant, "batch_size": bs, "profile": prof,
                "step_ms": {"median": ms}}

    train = {"rows": [row("m", "eager", 32, 20.0), row("m", "eager", 32, 10.0, 0.8),
                      row("m", "eager", 128, 11.0, 0.5), row("m", "step", 128, 5.0),
                      row("m", "model", 128, 5.5)]}
    text = tables.one_gpu(train)
    # of two rows of one group, the one with a profile; variants other than eager and the
    # compiled model are left out
    assert [r[:3] for r in table_rows(text)] == [["m · eager · 32", "10.0", "80 %"],
                                                ["m · eager · 128", "11.0", "50 %"],
                                                ["m · compiled · 128", "5.50", "–"]]
    assert "- m, eager: batch 128 takes 1.10 times as long as batch 32, for 4 times" in text
    assert "- m at batch 128: the compiled step takes 0.50 times eager's." in text


def test_compare_names_what_differs(cpu_scale_run):
    doc = results.load(cpu_scale_run)
    other = {**doc, "provenance": {**doc["provenance"], "settings": {
        **doc["provenance"]["settings"], "steps": 9}}}
    text = tables.compare(doc, other)
    assert len(table_rows(text)) == len(doc["rows"]) and "steps: 4 here, 9 there" in text


def test_cluster_line_is_the_launch_line_with_the_cluster_in_it():
    text = scale.cluster_line(nodes=4, nproc=8)
    line = " ".join(text.replace("\\\n", " ").split())
    assert "torchrun --nproc-per-node 8 --nnodes 4 --node-rank $NODE_RANK" in line
    assert "--rdzv-endpoint $HEAD_NODE:29500 --rdzv-id $JOB_ID -m snippets.scale.rank" in line
    assert all(len(x) <= 80 for x in text.splitlines())  # fits the page's code column


def _row(strategy, variant, median, losses, world=2, **fields):
    """A row reduced to what ``scaling.derive`` reads."""
    row = {"model": "m", "strategy": strategy, "variant": variant, "nodes": 1,
           "nproc_per_node": world, "world_size": world, "global_batch": 8,
           "run_status": "ok", "run_message": "", "step_ms": {"median": median},
           "losses": losses, "batch_norm": False}
    return {**row, **fields}


def test_derive_sets_each_row_against_the_one_process_run():
    rows = scaling.derive([
        _row("single", "eager", 10.0, [2.0, 1.0], world=1),
        _row("ddp", "eager", 6.0, [2.0, 1.0005]),
        _row("ddp", "compiled", 4.0, [2.0, 1.5]),  # learns something else
        _row("fsdp2", "eager", 5.0, [2.0, 1.2], batch_norm=True),  # batch norm: per rank
    ], tolerance=1e-3)
    one, ddp, wrong, norm = rows
    assert one["loss_gap"] is None and one["scaling_efficiency"] is None  # the reference
    assert ddp["scaling_efficiency"] == pytest.approx(10 / (2 * 6))
    assert ddp["loss_gap"] == pytest.approx(0.0005 / 2) and ddp["status"] == "ok"
    assert wrong["scaling_efficiency"] is None  # no compiled run in one process
    assert wrong["status"] == "mismatch" and "from its own eager run" in wrong["message"]
    assert norm["loss_gap"] == pytest.approx(0.1) and norm["status"] == "ok"
    # derived again from the same rows, nothing changes: a status is never carried over
    assert scaling.derive(rows, tolerance=1e-3) == rows


@pytest.mark.parametrize("eff, said", [
    (0.4, "40 % scaling efficiency: 2 GPUs take 1.25 times as long over the batch as one GPU"),
    (0.75, "75 % scaling efficiency, 1.50 times one GPU's throughput"),
    (None, "no one-process run to set it against"),
])
def test_an_efficiency_below_one_over_n_says_the_gpus_took_longer(eff, said):
    assert tables._against_one({"scaling_efficiency": eff, "world_size": 2}).startswith(said)


def test_a_compiled_variant_with_no_graph_is_said_to_have_run_eagerly():
    def row(variant, graphs, ms):
        return {"model": "m", "variant": variant, "graph_count": graphs,
                "step_ms": {"median": ms}}

    text = tables._uncompiled([row("eager", 0, 40.0), row("per-block-inplace", 0, 35.0),
                               row("per-block", 2, 30.0)])
    assert text.strip() == ("- m · per-block-inplace compiled nothing (no graph) and ran "
                            "eagerly: its step, 35.0 ms, against eager's 40.0 ms is the spread "
                            "between two jobs of the same work.")
    assert tables._uncompiled([row("per-block-inplace", 0, 35.0)]) == ""  # no eager row
