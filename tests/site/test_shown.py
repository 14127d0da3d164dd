"""Code shown on the pages runs alone.

A reader copies a shown section into a file of their own, so every section a page includes
(``--8<-- "snippets/<path>.py:<name>"``, or a whole file without ``:name``) must bring what it
uses: every global name its code reads is imported or defined inside it, or is a builtin. That is
checked on the section's text by itself, the way Python binds names (``symtable``), annotations
included (Python 3.10 and 3.11 evaluate them when a function is defined). A section that passes is
then executed alone, in a fresh namespace of a child process, to show that it defines without an
error; its functions are defined, not called, and a program's ``__main__`` block does not run.

Sections not yet whole are listed in ``NOT_YET``. The list only shrinks: an entry that has become
whole must leave it.
"""

from __future__ import annotations

import builtins
import functools
import json
import os
import re
import subprocess
import sys
import symtable
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = re.compile(r'^--8<-- "(snippets/[^":]+\.py)(?::(\w+))?"', re.MULTILINE)
MARK = re.compile(r"--8<-- \[(start|end):(\w+)\]")

# Sections that still read names from the rest of their module. Only shrinks (see the module's
# docstring); none is left.
NOT_YET: frozenset[str] = frozenset()


def included() -> list[str]:
    """Every ``path`` or ``path:name`` the pages include, once each."""
    found = set()
    for page in (ROOT / "docs").glob("*.md"):
        for path, name in INCLUDE.findall(page.read_text()):
            found.add(f"{path}:{name}" if name else path)
    return sorted(found)


def text_of(where: str) -> str:
    """The section as the page shows it: from its first start marker to its end, other markers
    left out, dedented (as pymdownx.snippets extracts it with ``dedent_subsections``)."""
    path, _, name = where.partition(":")
    lines = (ROOT / path).read_text().splitlines()
    if not name:
        return "\n".join(line for line in lines if not MARK.search(line))
    shown, inside = [], False
    for line in lines:
        mark = MARK.search(line)
        if mark and mark.group(2) == name:
            if mark.group(1) == "end":
                break
            inside = True
        elif not mark and inside:
            shown.append(line)
    return textwrap.dedent("\n".join(shown))


def _bound(table: symtable.SymbolTable) -> set[str]:
    return {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}


def _globals_read(table: symtable.SymbolTable, top: bool) -> set[str]:
    """Names this scope and the scopes inside it read from the module's namespace."""
    if top:
        read = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    else:
        read = {s.get_name() for s in table.get_symbols()
                if s.is_referenced() and s.is_global()}
    for child in table.get_children():
        read |= _globals_read(child, top=False)
    return read


def missing(text: str) -> list[str]:
    """The global names ``text`` reads that it neither binds nor gets from builtins; a text that
    is not a whole statement list (a ``return`` cut from a function, say) misses itself."""
    try:
        table = symtable.symtable(text, "<shown>", "exec")
    except SyntaxError as exc:
        return [f"(not a program: {exc.msg})"]
    return sorted(_globals_read(table, top=True) - _bound(table) - set(dir(builtins)))


SHOWN = included()
MISSING = {where: missing(text_of(where)) for where in SHOWN}

# Executes each section in a namespace of its own, and prints what went wrong, if anything.
RUNNER = """
import json, sys
errors = {}
for where, text in json.load(sys.stdin).items():
    try:
        exec(compile(text, where, "exec"), {"__name__": "shown"})
    except Exception as exc:
        errors[where] = f"{type(exc).__name__}: {exc}"
print(json.dumps(errors))
"""


@functools.cache
def execution_errors() -> dict[str, str]:
    """Every section that passes the name check, executed alone in one child process (one torch
    import for all): the error each raised."""
    whole = {where: text_of(where) for where in SHOWN if not MISSING[where]}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps(whole), cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("where", sorted(set(SHOWN) - NOT_YET))
def test_a_shown_section_runs_alone(where: str) -> None:
    assert MISSING[where] == [], f"{where} uses names it does not import or define"
    assert execution_errors().get(where) is None


def test_not_yet_lists_only_sections_that_still_miss_names() -> None:
    for where in NOT_YET:
        assert where in SHOWN, f"{where} is no longer shown: take it out of NOT_YET"
        assert MISSING[where], f"{where} runs alone now: take it out of NOT_YET"


def test_the_pages_include_sections() -> None:
    # the include pattern still matches the pages (an empty list would pass everything above)
    assert len(SHOWN) > 50
    assert "snippets/generate/model.py:steps" in SHOWN
