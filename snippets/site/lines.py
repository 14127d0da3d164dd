"""``python -m snippets.site.lines``: the lines of ``snippets/`` by kind, at any commit.

The package's weight is meant to sit in measuring and findings; rendering (turning findings into
text or tables) is held to a share of it (``MAX_RENDERING_SHARE``). A module's kind follows from
its name, as the house style names modules by what they hold:

- **site**: everything under ``snippets/site/`` (the build, its checks, the page macros);
- **CLI**: ``__main__.py``, ``core/cli.py``, ``core/recording.py``, ``core/flags.py``,
  ``core/config.py``;
- **rendering**: ``tables.py``, ``plots.py``, ``report.py``, ``render.py``, ``columns.py``, and,
  inside any other module, a top-level function that draws a table (it calls one of ``DRAWS``)
  or returns a sentence (a string of six words or more);
- **findings**: ``findings.py`` and ``*_findings.py``, ``claims.py``, ``evidence.py``,
  ``goals.py``, ``where.py``, ``stability.py``, ``payoff.py``;
- **measuring**: the rest (models, timing, the tools' runs, results files).

    python -m snippets.site.lines                  # the working tree
    python -m snippets.site.lines --rev d87b0b4    # a commit, read from git
    python -m snippets.site.lines --check          # exit 1 when rendering is over its share
    python -m snippets.site.lines --prose          # the words of prose in code, by module

Prose in code is every string of ``PROSE`` words or more that is not a docstring of a module,
class or function: messages, titles, sentences a function returns. A config's field help lives
in its class docstring's ``Attributes:`` section, which ``--help`` reads. The pages' words belong
in ``docs/``; this says how many are still here.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from snippets.core import cli, flags, render

PROG = "python -m snippets.site.lines"
KINDS = ("measuring", "findings", "rendering", "CLI", "site")
MAX_RENDERING_SHARE = 0.15
RENDERING = {"tables.py", "plots.py", "report.py", "render.py", "columns.py"}
FINDINGS = {"findings.py", "claims.py", "evidence.py", "goals.py", "where.py", "stability.py",
            "payoff.py"}
CLI = {"__main__.py", "core/cli.py", "core/recording.py", "core/flags.py", "core/config.py"}
# Calls that draw a table: a function that makes one is rendering wherever it stands.
DRAWS = {"markdown_table", "rich_table", "markdown", "terminal"}
SENTENCE = 6  # words in one string: a sentence, not a label
PROSE = 4  # words of two letters or more in one string: prose, not a label or a name
WORD = re.compile(r"[A-Za-z]{2,}")
MAX_MODULE_LINES = 300  # a module longer than this holds two things: split it
MAX_PROSE_WORDS = 1_500  # the pages' words belong in docs/: this many may stay in the code
ROOT = Path(__file__).resolve().parents[2]


def module_kind(path: PurePosixPath) -> str:
    """The kind of a module by its path inside ``snippets/`` (``bench/tables.py``)."""
    name = path.name
    if path.parts[0] == "site":
        return "site"
    if name in CLI or str(path) in CLI:
        return "CLI"
    if name in RENDERING:
        return "rendering"
    if name in FINDINGS or name.endswith("_findings.py"):
        return "findings"
    return "measuring"


def _words(n: ast.AST) -> int:
    if isinstance(n, ast.Constant) and isinstance(n.value, str):
        return len(n.value.split())
    if isinstance(n, ast.JoinedStr):
        return sum(_words(v) + (not isinstance(v, ast.Constant)) for v in n.values)
    return 0


def _text(n: ast.AST) -> str | None:
    """A string literal's text; an f-string's pieces joined, each placeholder an ``X``."""
    if isinstance(n, ast.Constant) and isinstance(n.value, str):
        return n.value
    if isinstance(n, ast.JoinedStr):
        return " ".join(v.value if isinstance(v, ast.Constant) else "X" for v in n.values)
    return None


def prose_words(text: str) -> int:
    """The words of a module's strings that hold ``PROSE`` words or more. Left out: the
    docstrings of modules, classes and functions (a config's field help is in its class's), and
    the ``help``, ``description`` and ``epilog`` an argparse call takes. An f-string is one
    string."""
    tree = ast.parse(text)
    skip = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and n.body and isinstance(n.body[0], ast.Expr) and _text(n.body[0].value) is not None}
    skip |= {id(m) for n in ast.walk(tree) if isinstance(n, ast.Call) for k in n.keywords
             if k.arg in ("help", "description", "epilog") for m in ast.walk(k.value)}
    skip |= {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    return sum(len(s.split()) for n in ast.walk(tree)
               if id(n) not in skip and (s := _text(n)) and len(WORD.findall(s)) >= PROSE)


def _renders(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function draws a table or returns a sentence (a string of ``SENTENCE`` words or
    more). A message it records in a row, raises or prints for the user is not the pages'
    prose."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and _name(n) in DRAWS:
            return True
        if isinstance(n, ast.Return) and n.value is not None and any(
                isinstance(m, ast.JoinedStr | ast.Constant) and _words(m) >= SENTENCE
                for m in ast.walk(n.value)):
            return True
    return False


def _name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")


def count(path: PurePosixPath, text: str) -> Counter:
    """The lines of one module by kind: its own kind, less the drawing functions of a module
    whose kind is not rendering, which count as rendering."""
    lines = len(text.splitlines())
    kind = module_kind(path)
    out = Counter({kind: lines})
    if kind in ("rendering", "site", "CLI"):
        return out
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _renders(node):
            span = node.end_lineno - node.lineno + 1 + len(node.decorator_list)
            out[kind] -= span
            out["rendering"] += span
    return out


def _tree() -> Iterator[tuple[PurePosixPath, str]]:
    for f in sorted((ROOT / "snippets").rglob("*.py")):
        yield PurePosixPath(f.relative_to(ROOT / "snippets").as_posix()), f.read_text()


def _at(rev: str) -> Iterator[tuple[PurePosixPath, str]]:
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "snippets/"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    for name in names:
        if name.endswith(".py"):
            text = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=ROOT,
                                  capture_output=True, text=True, check=True).stdout
            yield PurePosixPath(name).relative_to("snippets"), text


def by_kind(modules: Iterable[tuple[PurePosixPath, str]]) -> Counter:
    total: Counter = Counter({k: 0 for k in KINDS})
    for path, text in modules:
        total.update(count(path, text))
    return total


def share(total: Counter, kind: str) -> float:
    return total[kind] / max(sum(total.values()), 1)


@dataclass(frozen=True, kw_only=True)
class LinesConfig:
    """What to count, and where.

    Attributes:
        rev: a commit to count, read from git (default: the working tree)
        check: exit 1 when rendering is over its share of the lines
        prose: count the words of prose in code
    """

    rev: str | None = None
    check: bool = False
    prose: bool = False


def main(argv: list[str] | None = None) -> int:
    p = cli.Parser(prog=PROG, description=__doc__.splitlines()[0])
    flags.declare(p, LinesConfig)
    cfg = flags.build(PROG, LinesConfig, p.parse_args(argv))
    if cfg.prose:
        words = sorted(((prose_words(text), str(path)) for path, text in
                        (_at(cfg.rev) if cfg.rev else _tree())), reverse=True)
        rows = [[m, f"{n:,}"] for n, m in words[:15] if n]
        rows.append(["all", f"{sum(n for n, _ in words):,}"])
        print(render.markdown_table(["Module", "Prose words"], rows))
        return 0
    try:
        total = by_kind(_at(cfg.rev) if cfg.rev else _tree())
    except subprocess.CalledProcessError as e:
        cli.fail(PROG, f"--rev {cfg.rev}: {e.stderr.strip().splitlines()[-1]}")
    rows = [[k, f"{total[k]:,}", f"{share(total, k):.1%}"] for k in KINDS]
    rows.append(["all", f"{sum(total.values()):,}", "100%"])
    print(render.markdown_table(["Kind", "Lines", "Share"], rows))
    if cfg.check and share(total, "rendering") > MAX_RENDERING_SHARE:
        print(f"rendering is {share(total, 'rendering'):.1%} of the lines, over "
              f"{MAX_RENDERING_SHARE:.0%}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
