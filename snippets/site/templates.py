"""``python -m snippets.site.templates``: the logic left in the pages' Jinja, page by page.

A page's Jinja is meant to be prose with findings placed and an ``{% if %}`` on a verdict; logic
belongs in a tested findings function. This parses every template the macros plugin renders and
counts what is not plain. Plain: placing a name, its attribute, a constant, one of ``FILTERS``
with constant arguments or a call of ``PLACES``; ``set`` a name to a call of ``FETCHES``; ``if``
on such names (``not``, ``==``, ``is none``, ``and``/``or``); ``call`` of ``WRAPS``; ``else``,
``include`` and the text. Everything else (``for``, ``macro``, arithmetic, a subscript, a method
call...) is logic.

    python -m snippets.site.templates            # logic per file, most first
    python -m snippets.site.templates --show F   # each piece of logic in one file, with its line
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import jinja2
from jinja2 import nodes

from snippets.core import cli, render
from snippets.site.build import parse

PROG = "python -m snippets.site.templates"
ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# Filters that only format the one value they are given (``join`` a list of names).
FILTERS = {"fmt", "span", "join"}
# Functions of snippets.site.macros that fetch a run's findings: what a plain ``set`` may name.
FETCHES = {"findings", "bench_runs", "cudnn_fresh", "cold_warm", "explain_agreement",
           "freezing_ways", "together"}
# Functions of snippets.site.macros that place a value or a block where they stand.
PLACES = FETCHES | {"no_run_yet", "headline", "ms"}
# Functions that wrap the words of a ``{% call %}`` block: a results block under a run's stamp.
WRAPS = {"stamped"}


def _value(node: nodes.Node) -> bool:
    """A name, an attribute of one, or a constant: what a page may place or test."""
    if isinstance(node, nodes.Getattr):
        return _value(node.node)
    return isinstance(node, (nodes.Name, nodes.Const))


def _call(node: nodes.Node, allowed: set[str]) -> bool:
    return (isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name)
            and node.node.name in allowed and not node.dyn_args and not node.dyn_kwargs
            and all(_value(a) for a in node.args) and all(_value(k.value) for k in node.kwargs))


def plain_placement(node: nodes.Node) -> bool:
    if isinstance(node, nodes.Filter):
        return (node.name in FILTERS and node.node is not None and _value(node.node)
                and all(isinstance(a, nodes.Const) for a in node.args))
    return _value(node) or _call(node, PLACES)


def plain_test(node: nodes.Node) -> bool:
    if isinstance(node, (nodes.And, nodes.Or)):
        return plain_test(node.left) and plain_test(node.right)
    if isinstance(node, nodes.Not):
        return plain_test(node.node)
    if isinstance(node, nodes.Compare):
        return (_value(node.expr) and len(node.ops) == 1 and node.ops[0].op in ("eq", "ne")
                and isinstance(node.ops[0].expr, nodes.Const))
    if isinstance(node, nodes.Test):
        return node.name in ("none", "defined") and _value(node.node)
    return _value(node)


def logic(source: str) -> Iterator[tuple[int, str]]:
    """(line, what) for each piece of logic in one template's source."""
    tree = jinja2.Environment().parse(source)
    yield from _walk(tree)


def _walk(node: nodes.Node) -> Iterator[tuple[int, str]]:
    if isinstance(node, nodes.Output):
        for child in node.nodes:
            if not isinstance(child, nodes.TemplateData) and not plain_placement(child):
                yield child.lineno, "placement"
            yield from _inner(child)
        return
    if isinstance(node, nodes.If):
        if not plain_test(node.test):
            yield node.lineno, "if"
    elif isinstance(node, nodes.Assign):
        if not (isinstance(node.target, nodes.Name) and _call(node.node, FETCHES)):
            yield node.lineno, "set"
    elif isinstance(node, nodes.CallBlock):
        if not _call(node.call, WRAPS):
            yield node.lineno, "call"
    elif isinstance(node, (nodes.For, nodes.Macro, nodes.Import,
                           nodes.FromImport, nodes.FilterBlock, nodes.AssignBlock, nodes.With)):
        yield node.lineno, type(node).__name__.lower()
    for child in node.iter_child_nodes(exclude=("test",) if isinstance(node, nodes.If) else ()):
        yield from _walk(child)


def _inner(node: nodes.Node) -> Iterator[tuple[int, str]]:
    """Logic nested inside a placement: a conditional expression's branches are placements."""
    if isinstance(node, nodes.CondExpr):
        for branch in (node.expr1, node.expr2):
            if branch is not None and not plain_placement(branch):
                yield branch.lineno, "placement"


def templates() -> list[Path]:
    """Every file the macros plugin renders: the pages with ``render_macros: true`` in their
    front matter, and the passages they include."""
    return ([p for p in sorted(DOCS.glob("*.md")) if "render_macros: true" in _front(p)]
            + sorted((DOCS / "includes").glob("*.md")))


def _front(page: Path) -> str:
    """A page's front matter: the lines between its first two ``---``; "" where it has none."""
    text = page.read_text()
    return text.split("\n---", 1)[0] if text.startswith("---\n") else ""


def counts() -> dict[str, int]:
    """Logic per template, by its path under ``docs/`` (a file with none is left out)."""
    found = {str(p.relative_to(DOCS)): sum(1 for _ in logic(p.read_text())) for p in templates()}
    return {name: n for name, n in found.items() if n}


@dataclass(frozen=True, kw_only=True)
class TemplatesConfig:
    """Every template's count, or one template's logic.

    Attributes:
        show: list each piece of logic in this template, a path under docs/
    """

    show: str | None = None


def main(argv: list[str] | None = None) -> int:
    cfg = parse(PROG, TemplatesConfig, __doc__, argv)
    if cfg.show:
        path = DOCS / cfg.show
        if not path.is_file():
            cli.fail(PROG, f"no template {cfg.show!r} under docs/")
        for line, what in logic(path.read_text()):
            print(f"{cfg.show}:{line}: {what}")
        return 0
    found = counts()
    rows = sorted(found.items(), key=lambda kv: -kv[1]) + [("all", sum(found.values()))]
    print(render.markdown_table(["Template", "Logic"], [[n, f"{c:,}"] for n, c in rows],
                                align="lr"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
