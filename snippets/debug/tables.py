"""The debugging page's renderings: logs as console blocks, counts as tables; nothing measures."""

from __future__ import annotations

import textwrap
from typing import Any

from snippets import debug
from snippets.core import render


def log(logs: str):
    """A renderer for the output of ``TORCH_LOGS=<logs>``, under the command that made it."""
    def draw(text: str) -> str:
        return f"```console\n$ {debug.command(logs)}\n{text}\n```"

    return draw


def trace(report: dict[str, Any]) -> str:
    """The trace's records by kind, and the files tlparse made of them."""
    table = render.markdown_table(("Record in the trace", "Count"),
                                  sorted(report["records"].items(), key=lambda kv: -kv[1]))
    files = report["tlparse_files"]
    listing = ("tlparse is not installed here, so there is no report to list."
               if files is None else
               "What `tlparse` wrote, one folder per compiled frame (`-_0_0_0` is frame 0, "
               "compile 0):\n\n```text\n" + "\n".join(files) + "\n```")
    return f"```console\n$ {debug.TRACE_COMMAND}\n```\n\n{table}\n\n{listing}"


def events(rows: list[dict[str, Any]]) -> str:
    return render.markdown_table(("Profiler event", "Calls in three steady calls"),
                                 ((r["name"], r["count"]) for r in rows), left_last=False)


def registry(rows: list[dict[str, Any]]) -> str:
    head = ("Example", "Registry id", "What Dynamo says it is", "What it suggests")
    return render.markdown_table(head, (
        (r["example"], r["id"], r["explanation"], "<br>".join(r["hints"][:2]) or "–")
        for r in rows), left_last=True, align="llll")


def minifier(doc: dict[str, Any]) -> str:
    row = doc["rows"][0]
    found = render.markdown_table(("Step", "Result", "Seconds"), [
        ("Compile with the check on", row["error"] or "no mismatch found",
         render.num(row["detect_s"], ".0f")),
        ("Minify", f"{row['nodes_before']} graph nodes down to {row['nodes_after']}, in "
                   f"{row['queries']} trial compiles", render.num(row["minify_s"], ".0f")),
    ], align="llr")
    verdict = ("What is left is the ReLU, the operation the bug was planted in."
               if "relu" in row["repro_forward"] else
               "What is left is not the ReLU the bug was planted in: read repro.py with care.")
    return (f"{found}\n\nThe `forward` of the minified graph in `repro.py`:\n\n"
            f"```python\n{textwrap.dedent(row['repro_forward'])}\n```\n\n{verdict}")
