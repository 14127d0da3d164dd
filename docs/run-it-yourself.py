# ---
# jupyter:
#   jupytext:
#     formats: py:percent,ipynb
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Run it yourself
#
# <div class="admonition tip">
# <p class="admonition-title">What to do</p>
# <ul>
# <li>Run the benchmark cell on your machine, and compare runs by the median and its spread,
# not by one number. <a href="#the-benchmark-on-a-tiny-model">The benchmark</a></li>
# <li>Find a model's graph breaks with <code>explain</code> before timing it: it compiles
# nothing. <a href="#graph-breaks">Graph breaks</a></li>
# <li>Count the compiles your shapes cause before choosing how to mark them.
# <a href="#dynamic-shapes">Dynamic shapes</a></li>
# </ul>
# </div>
#
# The guide's three tools on sizes a laptop's CPU runs in about a minute: the benchmark, the
# graph-break explainer and dynamic shapes. Every cell calls the tested `snippets` package, the
# code the site's tables come from, so what you see here is what the pages measure, only
# smaller.
#
# To run it, clone the repository (or take the code download from the home page) and start
# Jupyter in its root folder, so that `snippets` imports:
#
# ```bash
# python3 -m venv .venv && .venv/bin/pip install -e ".[docs]" jupyterlab
# .venv/bin/jupyter lab docs/run-it-yourself.ipynb
# ```
#
# The outputs stored with this notebook come from one real execution, on the machine and at the
# date its stamp names (above this text on the site, in the notebook's metadata here). Yours
# will differ: that is the point.

# %%
import logging

import torch

from snippets.core import machine

# Inductor's C++ backend logs "No CUDA runtime is found" on every CPU-only
# machine: expected there, and not a problem.
logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
print(machine.device_name(torch.device("cpu")), "· torch", torch.__version__)

# %% [markdown]
# ## The benchmark, on a tiny model
#
# A two-layer perceptron at batch 1 and 256, eager against the default mode, in five
# interleaved rounds. The first call of the compiled model is timed apart as compile time. On
# the [benchmark page](benchmark.md) the same code times ResNet-50 and a transformer encoder.

# %%
from IPython.display import HTML, Markdown, display

from snippets import bench
from snippets.bench import findings, plots, tables
from snippets.core import models, render

cfg = bench.BenchConfig(
    models=(),  # none of the built-in models: the tiny one below
    factories=(("tiny_mlp", models.tiny_mlp),),
    batch_sizes=(1, 256),
    modes=("eager", "default"),
    device="cpu",
    rounds=5,
)
doc = bench.document(cfg)

# The run as the pages draw it: a dot per mode, its bar the speedup's spread.
HTML(plots.speedup(doc))

# %% [markdown]
# The same run as a table, and the fastest mode of each row, computed from its rows:

# %%
rows = map(tables.key_cells, doc["rows"])
display(Markdown(render.markdown_table(tables.key_columns(doc), rows)))
display(Markdown(tables.fastest(findings.of(doc))))

# %% [markdown]
# Expect the compiled model to lose here, surely at batch 1. A two-layer perceptron is little
# arithmetic, and a compiled call adds a fixed cost of its own on every call: checking
# Dynamo's guards and entering the generated code. On a CPU there are no kernel
# launches for compilation to save: what compiling can remove is the per-call overhead of
# Python and the dispatcher, which grows little with the batch. [When compile does not pay](when-not-to-compile.md) measures the same on the
# guide's other pages. A laptop or a shared machine also runs other work between the rounds,
# and a row marked "noisy" has a wide interquartile range: compare runs by the median and its
# spread, not by one number.

# %% [markdown]
# `doc` is a whole results document, raw samples and provenance included: save it with
# `json.dump` and set it beside a recorded run with
# `python -m snippets.bench --compare FILE`, or plot it your way.

# %% [markdown]
# ## Graph breaks
#
# A block whose middle copies a value to Python with `.item()`, and the same block with the
# branch kept on the device by `torch.where`. The explainer traces each with Dynamo, compiles
# nothing, and reports every break with the line it happened at ([Finding graph
# breaks](graph-breaks.md) has the other causes).

# %%
from snippets import explain
from snippets.explain import breaks

x = breaks.example_input()
for block in (breaks.ItemBranch(), breaks.WhereBranch()):
    print(type(block).__name__)
    print(explain.text_report(explain.explain_quietly(block, x)), "\n")

# %% [markdown]
# ## Dynamic shapes
#
# How often the small encoder of [Dynamic shapes and recompilation](dynamic-shapes.md) compiles
# over the page's schedule of shapes, per strategy. Counted with Dynamo alone (the `eager`
# backend), so no kernel is generated and it takes seconds.

# %%
from snippets import dynamic
from snippets.dynamic import producer
from snippets.dynamic import tables as dynamic_tables

# dynamic=False reaches the recompile limit on purpose; the table's last
# column counts what Dynamo's warning about it would say.
logging.getLogger("torch._dynamo").setLevel(logging.ERROR)
display(Markdown(dynamic_tables.counts(producer.counts_doc())))

# %% [markdown]
# With Inductor, a call that compiles stalls its caller. Three shapes, the last one repeated,
# compiled for each shape (`dynamic=False`) and compiled once for all of them (`dynamic=True`):

# %%
# (batch, sequence length); the last shape twice, to show a repeat
shapes = ((2, 16), (4, 16), (4, 24), (4, 24))
for strategy in ("dynamic=False", "dynamic=True"):
    print(strategy)
    for call in dynamic.run_schedule(strategy, schedule=shapes):
        compiled = "compiled" if call["compiled"] else "reused"
        print(f"  {call['batch']}×{call['seq']}: {call['ms']:8.1f} ms  {compiled}")

# %% [markdown]
# A "reused" call compiled nothing, but that does not make it fast. The first call at a size
# the compiled code has not run at before can take longer than a warm call, which the repeated
# last shape is there to compare against. And each call is timed once, whole, on a machine that
# may be doing other work, so a single slow call can also be noise; this notebook does not
# split the two apart. Read those rows as "no compile", not as the speed of a dynamic kernel.
# [Dynamic shapes](dynamic-shapes.md#dynamic-kernels-against-specialized-ones) times dynamic and
# specialized kernels at one shape after warm-up, in interleaved rounds. [When compile does
# not pay](when-not-to-compile.md) says when a model this small is better left eager.
