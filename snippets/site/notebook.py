"""``python -m snippets.site.notebook``: execute the "Run it yourself" notebook and store it with
its outputs, for the site to render.

Its source, ``docs/run-it-yourself.py`` (jupytext's percent format, so a change reads as a diff
of code), takes longer to execute than the site's whole build budget, so the build does not:
this command runs it in a fresh kernel in the repository's root and writes
``docs/run-it-yourself.ipynb`` with the outputs and their provenance, the page's stamp. A cell
that raises stops it and nothing is written.
"""

from __future__ import annotations

import html
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snippets.core import cli, stamps
from snippets.site.build import parse

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "docs" / "run-it-yourself.py"
STORED = ROOT / "docs" / "run-it-yourself.ipynb"
# The words above the notebook (HTML: nbconvert's output reaches MkDocs finished).
DOWNLOADS = ROOT / "docs" / "includes" / "notebook-downloads.md"
PROG = "python -m snippets.site.notebook"
TIMEOUT_S = 600  # per cell: a cold Inductor compile on two cores takes tens of seconds


def cells(nb: Any) -> list[tuple[str, str]]:  # what a notebook says, outputs apart
    return [(c["cell_type"], "".join(c["source"]).strip()) for c in nb["cells"]]


def read_source(source: Path = SOURCE) -> Any:
    import jupytext

    return jupytext.read(source)


def execute(source: Path = SOURCE, *, commit: str | None = None) -> Any:
    """The notebook of ``source``, executed in a new kernel in the repository's root; raises on
    the first cell that fails."""
    import nbclient
    import torch

    from snippets.core import results

    nb = read_source(source)
    for i, cell in enumerate(nb.cells):  # ids by position: a new execution changes no id
        cell["id"] = f"cell-{i + 1}"
    # No per-cell timestamps: the stored file changes only when an output does.
    client = nbclient.NotebookClient(nb, timeout=TIMEOUT_S, record_timing=False,
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    prov = results.provenance(torch.device("cpu"), {"source": source.name}, commit=commit)
    nb.metadata["snippets"] = {"provenance": prov}
    return nb


def stored(path: Path = STORED) -> dict[str, Any]:
    return json.loads(path.read_text())


def stamp(nb: dict[str, Any]) -> str:
    """Where and when the stored outputs were made."""
    prov = nb["metadata"]["snippets"]["provenance"]
    return stamps.stamp({"provenance": prov, "complete": True}, "recorded")


def stale(source: Path = SOURCE, path: Path = STORED) -> list[str]:
    """The cells where the stored notebook differs from its source; empty if none."""
    want, got = cells(read_source(source)), cells(stored(path))
    # zip stops at the shorter; a difference in length is reported after
    out = [f"cell {i + 1}: {w[1][:50]!r}" for i, (w, g) in
           enumerate(zip(want, got, strict=False)) if w != g]
    if len(want) != len(got):
        out.append(f"cells: {len(want)} in the source, {len(got)} stored")
    return out


# A link from the notebook's Markdown to a page (``benchmark.md``) works in Jupyter, from docs/;
# the site makes it the page's address.
PAGE_LINK = re.compile(r'href="([\w-]+\.md)(#[^"]*)?"')


def page_html(body: str, path: Path, url_of: Callable[[str], str | None]) -> str:
    """The rendered notebook as the site shows it: links to pages made site links (``url_of``;
    None leaves one for the site check), the whole notebook one results block with its stamp
    under the title."""
    def link(m: re.Match) -> str:
        url = url_of(m[1])
        return f'href="{url}{m[2] or ""}"' if url is not None else m[0]

    body = PAGE_LINK.sub(link, body)
    downloads = DOWNLOADS.read_text().format(notebook=path.name, source=f"../{SOURCE.name}")
    header = f'{downloads.strip()}<p class="stamp">{html.escape(stamp(stored(path)))}</p>'
    head = body.find("</h1>") + len("</h1>")
    body = body[:head] + header + body[head:] if head >= len("</h1>") else header + body
    return f'<div class="results">{body}</div>'


@dataclass(frozen=True, kw_only=True)
class NotebookConfig:
    """Execute the notebook, or only compare it with its source.

    Attributes:
        check: execute nothing; exit 1 if the stored notebook differs from its source
    """

    check: bool = False


def main(argv: list[str] | None = None) -> int:
    cfg = parse(PROG, NotebookConfig, __doc__, argv)
    if cfg.check:
        problems = stale()
        for line in problems:
            print(f"{STORED.name}: {line}")
        print(f"{STORED.name}: " + ("stale; run " + PROG if problems else "matches its source"))
        return 1 if problems else 0
    import nbclient.exceptions
    import nbformat

    try:
        nb = execute(commit=cli.commit_from_env())
    except nbclient.exceptions.CellExecutionError as exc:
        cli.fail(PROG, f"a cell failed: {str(exc).strip().splitlines()[-1]}")
    tmp = STORED.with_suffix(".tmp")
    nbformat.write(nb, tmp)
    tmp.replace(STORED)  # whole or not at all: a reader never sees half a notebook
    print(f"wrote {STORED.relative_to(ROOT)}: {stamp(nb)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
