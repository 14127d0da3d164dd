"""A graph break's reason in plain words, and the code around the line it happened at: from 2.7
on, Dynamo's ``Explanation:`` and first useful ``Hint:``; before, a translation of its one line
of internal jargon (``generic_jump TensorVariable()``)."""

from __future__ import annotations

import ast
import enum
import functools
import linecache
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    """A break Dynamo words in its own terms, and the short label the explainer says instead
    (the graph-breaks page explains each)."""

    pattern: str  # a regular expression on Dynamo's reason; groups ``op``/``op2`` name an operator
    label: str  # ``{op}`` is the operator matched
    # False: said only where Dynamo gives no ``Explanation:`` (its internal lines of 2.5 and 2.6,
    # and the titles of later ones). True: said over the explanation too, where the user's line
    # shows no ``.item(`` (a tensor read as a number behind the user's back).
    hidden_item: bool = False


# The first that matches is said.
KNOWN: tuple[Known, ...] = (
    Known(r"generic_jump TensorVariable|data.dependent (?:branching|jump)",
          "data-dependent branching"),
    Known(r"Tensor\.item|call_method TensorVariable\(\) item", "Tensor.item() call"),
    Known(r"builtin: print|BuiltinVariable\(print\)|builtin operator `print`", "print() call"),
    Known(r"torch\.save|serialization", "torch.save call"),
    Known(r"dynamic shape operator: (?P<op>aten\.\w+)|(?P<op2>aten\.nonzero)",
          "dynamic output shape: {op}"),
    Known(r"call torch\._dynamo\.disable\(\) wrapped function|torch\.compiler\.disable",
          "torch.compiler.disable function"),
    Known(r"graph_break\(\)", "explicit torch._dynamo.graph_break()"),
    # A tensor used as an index, a slice bound, or passed to int()/range(): read with .item()
    # behind the user's back, which the line itself does not show.
    Known(r"Tensor\.item|item\(\)", "tensor read as a Python number", hidden_item=True),
)
_USELESS_HINTS = ("please report", "file an issue", "report an issue")


@dataclass(frozen=True)
class Plain:
    reason: str
    hint: str  # Dynamo's first hint that is more than "report an issue", or ""
    kind: str  # Dynamo's name for the type of break (its registry's ``Gb_type``), as logged


def _field(text: str, name: str) -> list[str]:
    return [m.strip() for m in re.findall(rf"^\s*{name}:\s*(.+)$", text, re.M)]


def _title(text: str) -> str:
    """The break's type on 2.7 on (the line above ``Explanation:``), else the first line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        if line.startswith("Explanation:") and i:
            return lines[i - 1]
    first = lines[0] if lines else ""
    return first.removeprefix("Unsupported:").strip()


def plain(text: str, source_line: str = "") -> Plain:
    """The reason of one record in plain words; ``source_line`` is the user's line it names."""
    explanation = (_field(text, "Explanation") or [""])[0]
    hints = [h for h in _field(text, "Hint") if not any(u in h.lower() for u in _USELESS_HINTS)]
    kind = _title(text)
    reason = explanation or kind
    for known in KNOWN:
        if known.hidden_item or explanation:
            continue
        match = re.search(known.pattern, reason, re.I)
        if match:
            op = match.groupdict().get("op") or match.groupdict().get("op2") or "the operator"
            reason = known.label.format(op=op)
            break
    for known in KNOWN:
        if known.hidden_item and re.search(known.pattern, reason) and ".item(" not in source_line:
            reason = known.label
    reason = reason.removesuffix(" Message: None")  # graph_break() called without a message
    hint = hints[0] if hints else ""
    return Plain(_no_address(reason.rstrip(".")), _no_address(hint), _no_address(kind))


# Dynamo names a function by its repr, "<function f at 0x7f38a0809260>": the address differs in
# every process, so a page built twice would differ; the name is what a reader needs.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+(?=>)")


def _no_address(text: str) -> str:
    return _ADDRESS.sub("", text)


class Block(str, enum.Enum):
    """A block Dynamo cannot resume a trace inside, as a user calls it."""

    FOR = "for loop"
    WHILE = "while loop"
    WITH = "with block"
    TRY = "try block"


@dataclass(frozen=True)
class Blocker:
    """The innermost such block around a line: which, and the line it starts at."""

    block: Block
    line: int


@dataclass(frozen=True)
class Enclosing:
    function: str  # the innermost def (or lambda) around the line; "<module>" at top level
    blocker: Blocker | None  # the innermost loop, with or try around the line in it, or None


_BLOCKERS = {ast.For: Block.FOR, ast.AsyncFor: Block.FOR, ast.While: Block.WHILE,
             ast.With: Block.WITH, ast.AsyncWith: Block.WITH, ast.Try: Block.TRY}
if hasattr(ast, "TryStar"):  # Python 3.11 on
    _BLOCKERS[ast.TryStar] = Block.TRY


@functools.lru_cache(maxsize=64)
def _tree(file: str) -> ast.Module | None:
    source = "".join(linecache.getlines(file))
    try:
        return ast.parse(source) if source else None
    except SyntaxError:
        return None


def source_line(file: str, line: int) -> str:
    return linecache.getline(file, line).strip()


def enclosing(file: str, line: int, fallback: str = "") -> Enclosing:
    """What surrounds ``file:line``: its function, and the innermost loop, ``with`` or ``try``
    inside that function that the line sits in (Dynamo cannot resume a trace inside those)."""
    tree = _tree(file)
    if tree is None:
        return Enclosing(_user_name(fallback), None)
    function, blocker = "<module>", None
    blocker: Blocker | None
    node: ast.AST = tree
    while True:
        inner = next((child for child in ast.iter_child_nodes(node)
                      if getattr(child, "lineno", None) is not None
                      and child.lineno <= line <= (child.end_lineno or child.lineno)), None)
        if inner is None:
            return Enclosing(function, blocker)
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            function = getattr(inner, "name", "<lambda>")
            blocker = None  # a loop around the def does not hold the trace inside it
        elif type(inner) in _BLOCKERS and _in_body(inner, line):
            blocker = Blocker(_BLOCKERS[type(inner)], inner.lineno)
        node = inner


def _in_body(node: ast.AST, line: int) -> bool:
    """A loop's header (``for x in f():``) is not inside the loop; its body and else are."""
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return True  # the with statement's own line enters the block: a break there is inside
    body = [*getattr(node, "body", []), *getattr(node, "orelse", []),
            *getattr(node, "handlers", []), *getattr(node, "finalbody", [])]
    return any(b.lineno <= line <= (b.end_lineno or b.lineno) for b in body)


def _user_name(name: str) -> str:
    """``torch_dynamo_resume_in_forward_at_12`` is Dynamo's continuation of ``forward``."""
    match = re.fullmatch(r"torch_dynamo_resume_in_(.+)_at_\d+", name)
    return match[1] if match else name
