"""The debugging page's renderings: logs as console blocks, counts as tables; nothing measures.
What the minifier's run found is ``snippets.debug.findings``; the page words it."""

from __future__ import annotations

import re
import textwrap
from typing import Any

from snippets import debug
from snippets.core import render
from snippets.debug import minifier as minify


def log(logs: str):
    """A renderer for the output of ``TORCH_LOGS=<logs>``, under the command that made it."""
    def draw(text: str) -> str:
        return f"```console\n$ {debug.command(logs)}\n{text}\n```"

    return draw


def trace(report: dict[str, Any]) -> str:
    """The trace's records by kind, and the files tlparse made of them where it is installed
    (the page says how their folders are named)."""
    table = render.markdown_table(("Record in the trace", "Count"),
                                  sorted(report["records"].items(), key=lambda kv: -kv[1]))
    files = report["tlparse_files"]  # None where tlparse is not installed: nothing to list
    listing = "" if files is None else "\n\n```text\n" + "\n".join(files) + "\n```"
    return f"```console\n$ {debug.TRACE_COMMAND}\n```\n\n{table}{listing}"


def events(rows: list[dict[str, Any]]) -> str:
    return render.markdown_table(("Profiler event", "Calls in three steady calls"),
                                 ((r["name"], r["count"]) for r in rows), left_last=False)


# A registry entry is a template: Dynamo fills "{fn.__name__}" in when it reports the break.
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def template(text: str) -> str:
    """A registry template as Markdown: each placeholder shown as ``<name>`` in code, so that it
    reads as a blank to fill in (raw, ``{value_type}`` at the end of a cell is taken by the
    attribute-list extension and vanishes, and ``{self.value}`` reads as a typo)."""
    def blank(expr: str) -> str:
        # "fn.__name__" -> "name", "cause.func" -> "func": the part that says what goes there.
        return "<" + expr.split(".")[-1].strip("_") + ">"

    parts = text.split("`")  # even parts are prose, odd ones already inside code
    return "`".join(
        _PLACEHOLDER.sub(lambda m: blank(m[1]), part) if i % 2
        else _PLACEHOLDER.sub(lambda m: f"`{blank(m[1])}`", part)
        for i, part in enumerate(parts))


def _hints(hints: list[str]) -> str:
    """The registry's hints are one text cut into lines; joined, without the standing request
    to report an issue, which every entry carries."""
    text = " ".join(h.strip() for h in hints)
    text = re.sub(r"\s*Please report an issue to PyTorch\.", "", text).strip()
    return template(text) or "–"


def registry(rows: list[dict[str, Any]]) -> str:
    head = ("Example", "Registry id", "Dynamo's explanation (template)", "Its hints (template)")
    return render.markdown_table(head, (
        (r["example"], r["id"], template(r["explanation"]), _hints(r["hints"]))
        for r in rows), left_last=True, align="llll")


def minify_commands() -> str:
    """The shell lines that run the demo's script with the minifier on."""
    return f"```bash\n{minify.exports()}\npython {minify.WRONG_ANSWER.name}\n```"


def minifier(doc: dict[str, Any]) -> str:
    """The minifier's steps, then the ``forward`` of the minified graph (``debug.findings`` says
    whether it kept the planted bug)."""
    row = doc["rows"][0]
    found = render.markdown_table(("Step", "Result", "Seconds"), [
        ("Compile with the check on", row["error"] or "no mismatch found",
         render.num(row["detect_s"], ".0f")),
        ("Minify", f"{row['nodes_before']} → {row['nodes_after']} graph nodes, "
                   f"{row['queries']} trial compiles", render.num(row["minify_s"], ".0f")),
    ], align="llr")
    return f"{found}\n\n```python\n{textwrap.dedent(row['repro_forward'])}\n```"
