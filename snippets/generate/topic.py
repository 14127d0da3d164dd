"""Generation: its one topic record (``snippets.core.topic``)."""

from __future__ import annotations

from snippets.core.topic import Findings, Topic
from snippets.generate import findings, hf_findings, kinds, ladder_findings, loop_findings
from snippets.generate import ladder, loop, retune_findings, tables, traps

TOPIC = Topic("generate", (kinds.GENERATE, kinds.HF, kinds.LADDER, kinds.LOOP, kinds.TRAPS),
              findings={
    "generate": Findings(findings.of, ("generate",)),
    "generate-ladder": Findings(ladder_findings.ladder, ("generate-ladder",)),
    "generate-ladder-int8": Findings(ladder_findings.ladder, ("generate-ladder-int8",)),
    "generate-ladder-8": Findings(ladder_findings.ladder, ("generate-ladder-8",)),
    "generate-max-autotune": Findings(findings.of, ("generate-max-autotune",)),
    traps.KIND: Findings(findings.traps, (traps.KIND,)),
    "generate-hf": Findings(hf_findings.of, ("generate-hf",)),
    # The 7 B decoder: its ladder, and its loops and int8 weights (one file per command).
    "generate-ladder-7b": Findings(ladder_findings.ladder, ("generate-ladder-7b",)),
    "generate-loop": Findings(loop_findings.of, ("generate-loop",)),
    "generate-loop-7b": Findings(loop_findings.of, ("generate-loop-7b",)),
    "generate-loop-unwrap": Findings(loop_findings.of, ("generate-loop-unwrap",)),
    "generate-loop-7b-torchao": Findings(loop_findings.of, ("generate-loop-7b-torchao",)),
    "generate-loop-7b-int4": Findings(loop_findings.of, ("generate-loop-7b-int4",)),
    "generate-loop-7b-int8-fresh": Findings(retune_findings.retuned, (  # two fresh processes
        "generate-loop-7b-int8-fresh-1", "generate-loop-7b-int8-fresh-2")),
    # What the recap box leads with: both sizes' ladders and loops, read together.
    "generate-advice": Findings(ladder_findings.advice, (
        "generate-ladder", "generate-ladder-7b", "generate-loop", "generate-loop-7b",
        "generate-loop-7b-int4")),
    # The decode recipe's one figure per batch size: every run that timed it beside eager.
    "generate-figures": Findings(findings.figures, (
        "generate", "generate-max-autotune", "generate-max-autotune-gemm", "generate-ladder")),
    # max-autotune beside reduce-overhead in the same rounds: one file per command.
    "generate-autotuned": Findings(findings.against, (
        "generate-max-autotune", "generate-max-autotune-gemm", "generate-max-autotune-prefill",
        "generate-max-autotune-prefill-8", "generate-max-autotune-prefill-32")),
    # The products' share of that: one command timed max-autotune-gemm beside both.
    "generate-autotune-split": Findings(findings.split, ("generate-max-autotune-gemm",)),
}, tables={kinds.GENERATE.name: tables.report, kinds.HF.name: tables.hf_table,
           ladder.KIND: tables.ladder_table, traps.KIND: tables.traps_table,
           loop.KIND: tables.loop_table})
