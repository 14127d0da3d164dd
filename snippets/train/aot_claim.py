"""The tutorial's third claim on training, "compiling takes care of the loss and the backward",
held to what AOTAutograd traced (``aot.traced``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from snippets.core import render
from snippets.train import tables


class Aot(str, enum.Enum):
    HOLDS = "holds"
    IN_PART = "holds in part"  # the backward always; the loss only when compiled with the model
    DOES_NOT_HOLD = "does not hold"


@dataclass(frozen=True)
class Traced:
    """What AOTAutograd traced of the model compiled and of the whole step, and the verdict."""

    backward: bool
    loss_with_model: bool
    loss_with_step: tuple[str, ...]
    verdict: Aot


def traced(value: list[dict[str, Any]]) -> Traced:
    seen = {v["variant"]: v for v in value}
    model, step = seen.get("model", {}), seen.get("step", {})
    backward = "backward" in {g["kind"] for g in model.get("graphs", [])}
    loss_with_model = any(g["loss"] for g in model.get("graphs", []))
    verdict = (Aot.DOES_NOT_HOLD if not backward else Aot.HOLDS if loss_with_model
               else Aot.IN_PART)
    return Traced(backward, loss_with_model,
                  tuple(dict.fromkeys(g["kind"] for g in step.get("graphs", []) if g["loss"])),
                  verdict)


def aot_report(value: list[dict[str, Any]]) -> str:
    """The graphs AOTAutograd made, and the claim's parts they settle, with its verdict."""
    t = traced(value)
    body = [["The backward, the model compiled", "yes" if t.backward else "no"],
            ["The loss, the model compiled", "yes" if t.loss_with_model else "no"],
            ["The loss, the whole step compiled",
             " and ".join(t.loss_with_step) if t.loss_with_step else "no"],
            ["Verdict", f"**{t.verdict.value}**"]]
    return (tables.traced(value) + "\n\n"
            + render.markdown_table(("Traced by AOTAutograd", "Seen"), body, left=2))
