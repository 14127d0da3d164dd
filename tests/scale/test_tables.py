"""The scale page's tables over a real CPU run: which rows each shows and what their cells hold,
never the timings in them."""

from __future__ import annotations

from snippets import scale
from snippets.core import results
from snippets.scale import compare, tables
from tests.markdown import table_rows

from .conftest import MLP


def flag(line: str, name: str) -> str:
    """The value after ``name`` in a shown command line (continuation lines joined)."""
    words = line.replace("\\\n", " ").split()
    return words[words.index(name) + 1]


def test_the_page_table_shows_the_main_rows_and_every_column_in_its_block(cpu_scale_run):
    doc = results.load(cpu_scale_run)
    text = tables.table(doc)
    labels = [r[0] for r in table_rows(text)]
    assert labels == [f"{MLP} · single · eager", f"{MLP} · ddp · eager",
                      f"{MLP} · ddp · compiled", f"{MLP} · fsdp2 · per-block"]
    ddp = next(r for r in table_rows(text) if r[0].endswith("ddp · compiled"))
    assert "→" in ddp[4]  # one graph, compiled as DDP's pieces
    assert "<details" in text and all(c in text for c in tables.COLUMNS)
    # with no main row, the detail block alone
    tuning = {**doc, "rows": [r for r in doc["rows"] if r["variant"] == "per-block-inplace"]}
    assert tables.table(tuning).startswith("<details")


def test_the_tuning_and_node_tables(cpu_scale_run):
    doc = results.load(cpu_scale_run)
    assert [r[0] for r in table_rows(tables.buckets(doc))] == [f"{MLP} · eager · 1",
                                                               f"{MLP} · compiled · 1"]
    assert [r[0] for r in table_rows(tables.blocks(doc))] == [
        "small-transformer · per-block-inplace", f"{MLP} · per-block", f"{MLP} · per-block-inplace"]
    assert tables.autograd(doc) == ""  # no compiled-autograd row
    nodes = tables.nodes(doc)
    assert [r[1] for r in table_rows(nodes)] == ["1 × 2", "2 × 1"]
    two = next(r for r in doc["rows"] if r["nodes"] == 2)
    assert nodes.endswith("```bash\n" + two["launch"] + "\n```")  # the first node's, as run
    assert (flag(two["launch"], "--nproc-per-node"), flag(two["launch"], "--nnodes")) == ("1", "2")
    assert tables.nodes({**doc, "rows": [r for r in doc["rows"] if r["nodes"] == 1]}) == ""


def test_the_strategies_table_reads_the_findings():
    from .test_findings import row, run

    doc = run([row("m", "single", "eager", 10.0), row("m", "ddp", "eager", 8.0, eff=0.625),
               row("m", "ddp", "compiled", 4.0, eff=0.5), row("m", "fsdp2", "eager", 12.0)])
    assert table_rows(tables.said(doc)) == [
        ["m · ddp", "faster", "0.80", "compiled", "2.00", "–"],
        ["m · fsdp2", "no reference", "–", "–", "–", "1.50"]]
    assert tables.said(run([row("m", "single", "eager", 10.0)])) == ""


def test_the_loss_table_samples_each_curve(cpu_scale_run):
    doc = results.load(cpu_scale_run)
    text = tables.losses(doc)
    head = text.splitlines()[0]
    assert "Step 1 |" in head and "Step 4 |" in head
    assert table_rows(text)[0][1] == f"{doc['rows'][0]['losses'][0]:.4g}"
    assert text.count("\n") == 1 + len(tables.loss_rows(doc))  # the table and nothing else


def test_the_profile_table_shows_what_each_main_row_waited_for(cpu_scale_run):
    doc = results.load(cpu_scale_run)
    rows = table_rows(tables.time_split(doc))
    assert [r[0] for r in rows] == [r[0] for r in table_rows(tables.table(doc))[:4]]
    assert all(r[2].endswith("%") for r in rows)  # the idle share, from each profile
    # a CPU's profile has no kernels to class: no NCCL share
    assert {r[3] for r in rows} == {"–"}
    unprofiled = {**doc, "rows": [{**r, "profile": None} for r in doc["rows"]]}
    assert tables.time_split(unprofiled) == ""


def one_gpu_run():
    """A training run reduced to what the one-GPU table reads."""
    def row(model, variant, bs, ms, idle=None):
        prof = {"span_us_per_call": 1.0, "idle_fraction": idle} if idle is not None else None
        return {"model": model, "variant": variant, "batch_size": bs, "profile": prof,
                "step_ms": {"median": ms}}

    return {"rows": [row("m", "eager", 32, 20.0), row("m", "eager", 32, 10.0, 0.8),
                     row("m", "eager", 128, 11.0, 0.5), row("m", "step", 128, 5.0),
                     row("m", "model", 128, 5.5)]}


def test_one_gpu_steps_are_set_side_by_side_per_batch():
    text = tables.one_gpu(one_gpu_run())
    # of two rows of one group, the one with a profile; variants other than eager and the
    # compiled model are left out
    # each step over its variant's at the smallest batch (the profiled batch-32 row, not the
    # other), and the compiled step over eager's at its batch
    assert table_rows(text) == [["m · eager · 32", "10.0", "80 %", "–", "–"],
                                ["m · eager · 128", "11.0", "50 %", "1.10", "–"],
                                ["m · compiled · 128", "5.50", "–", "–", "0.50"]]
    assert tables.one_gpu({"rows": []}) == ""


def test_compare_names_what_differs(cpu_scale_run):
    doc = results.load(cpu_scale_run)
    other = {**doc, "provenance": {**doc["provenance"], "settings": {
        **doc["provenance"]["settings"], "steps": 9}}}
    text = compare.compare(doc, other)
    assert len(table_rows(text)) == len(doc["rows"])
    assert table_rows(text.split("\n\n")[1]) == [["steps", "4", "9"]]
    assert "\n\n" not in compare.compare(doc, doc)  # the same settings: no second table


def test_cluster_line_is_the_launch_line_with_the_cluster_in_it():
    text = scale.cluster_line(nodes=4, nproc=8)
    line = text.removeprefix("```bash\n").removesuffix("\n```\n")
    assert line.split()[0] == "torchrun"
    assert [flag(line, f) for f in ("--nproc-per-node", "--nnodes", "--node-rank",
                                    "--rdzv-endpoint", "--rdzv-id", "-m")] == [
        "8", "4", "$NODE_RANK", "$HEAD_NODE:29500", "$JOB_ID", "snippets.scale.rank"]
    assert all(len(x) <= 80 for x in text.splitlines())  # fits the page's code column


def test_the_compiled_one_gpu_step_stands_beside_the_eager_step_its_command_timed():
    def row(variant, ms, part, idle=None):
        prof = {"span_us_per_call": 1.0, "idle_fraction": idle} if idle is not None else None
        return {"model": "m", "variant": variant, "batch_size": 32, "profile": prof,
                "step_ms": {"median": ms}, "part": part}

    # The first command's eager is profiled; the compiled step was timed by the second command.
    train = {"rows": [row("eager", 11.8, 0, 0.8), row("eager", 17.2, 1), row("model", 12.1, 1)]}
    assert [r[:3] for r in table_rows(tables.one_gpu(train))] == [
        ["m · eager · 32", "17.2", "–"], ["m · compiled · 32", "12.1", "–"]]
