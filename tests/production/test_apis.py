"""snippets.production.apis: what each newer switch changes, counted on the CPU."""

from __future__ import annotations

import pytest
import torch

from snippets.production import apis, tables
from tests.markdown import all_rows

HAVE = apis.present()


def test_the_installed_torch_is_asked_for_each_switch():
    assert set(HAVE) == set(apis.APIS) and all(isinstance(v, bool) for v in HAVE.values())


@pytest.mark.skipif(not HAVE["eager_then_compile"], reason=f"torch {torch.__version__} has "
                    "no eager_then_compile stance")
def test_stances_change_how_many_graphs_the_schedule_compiles():
    got = {(r["stance"], r["warm_up"]): r["compiles"] for r in apis.stances()}
    assert got == {("default", False): 2,  # the first shape, then dynamic at the second
                   ("eager_then_compile", False): 1,  # dynamic from the start
                   ("eager_on_recompile", False): 0,  # its first compile already counts
                   ("eager_on_recompile", True): 1}  # the warm-up's graph, then eager


def test_torch_compile_disable_compiles_nothing_in_a_process_of_its_own():
    row = apis.disabled()
    assert row["compiles"] == 0 and row["all_correct"]


@pytest.mark.skipif(not HAVE["nested_compile_region"], reason=f"torch {torch.__version__} has "
                    "no torch.compiler.nested_compile_region")
def test_a_marked_block_is_traced_once_and_called_per_block():
    plain, marked = apis.regions(blocks=4)
    assert plain["subgraph_calls"] == 0 and marked["subgraph_calls"] == 4
    assert marked["ops"] * 4 == plain["ops"]  # one block's ops, against every block's
    assert plain["all_correct"] and marked["all_correct"]


@pytest.mark.skipif(not HAVE["skip_guard_on_inbuilt_nn_modules_unsafe"],
                    reason=f"torch {torch.__version__} has no guard filters")
def test_a_guard_filter_still_answers_as_eager():
    assert apis.guards()["all_correct"]


def test_the_tables_show_every_row():
    value = {"torch": "x", "present": {"a": True, "b": False},
             "stances": [{"stance": "default", "warm_up": False, "calls": 3, "compiles": 2,
                          "all_correct": True}],
             "regions": [{"variant": "unmarked", "blocks": 8, "graphs": 1, "ops": 32,
                          "subgraph_calls": 0, "all_correct": True}], "guards": None}
    out = tables.apis(value)
    lines = [line for line in out.splitlines() if line.startswith("|")]
    assert len(lines) == 3 + 3 + 4  # three tables: header, rule and rows each
    rows = all_rows(out)
    assert ["`default`", "no", "3", "2", "yes"] in rows and ["`b`", "no"] in rows
