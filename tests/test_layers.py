"""The package's layers, as docs/contributing.md draws them, held to the imports in the code: the
core imports no topic, nothing imports the site or a command line, and a topic imports another
only along an edge the whiteboard below names. An edge marked for removal must still exist: when
it goes, it leaves this list too, so the list only shrinks."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "snippets"
TOPICS = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()} - {
    "core", "site"}

# A topic that builds on another's public tools, and why.
ALLOWED = {
    ("bench", "explain"): "a benchmark row counts the model's graphs and breaks",
    ("cpu", "zoo"): "the CPU comparison builds the zoo's BERT and ViT from its catalog",
    ("debug", "explain"): "the debugging page's logs read the same breaks",
    ("diagnose", "bench"): "a diagnosis times the modes with the benchmark's tolerance",
    ("diagnose", "dynamic"): "and tries the shape strategies of dynamic shapes",
    ("diagnose", "explain"): "and finds the breaks with explain",
    ("production", "bench"): "--modes runs the benchmark on a user's model",
    ("production", "dynamic"): "the request stream serves the shape strategies",
    ("scale", "train"): "scale trains the training page's step and classifiers on more GPUs, "
                        "through the names snippets.train exports",
    ("speed", "bench"): "the ladder and the settings grid are benchmark runs",
    ("speed", "explain"): "a rung's graph count",
    ("zoo", "bench"): "the zoo is the benchmark over a catalog of models",
}
# Edges the one-way layering (issue: one way through the house) takes out; none is left.
TO_REMOVE: dict[tuple[str, str], str] = {}


def _imports(path: Path) -> set[str]:
    """The snippets modules a file imports, as dotted names (a from-import names each member)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("snippets"):
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("snippets"))
    return out


def _package(path: Path) -> str:
    return path.relative_to(ROOT).parts[0].removesuffix(".py")


def _edges() -> dict[tuple[str, str], list[str]]:
    edges: dict[tuple[str, str], list[str]] = {}
    for path in ROOT.rglob("*.py"):
        here = _package(path)
        for name in _imports(path):
            parts = name.split(".")
            there = parts[1] if len(parts) > 1 else ""
            if there in TOPICS | {"core", "site"} and there != here:
                edges.setdefault((here, there), []).append(str(path.relative_to(ROOT)))
    return edges


def test_the_core_imports_no_topic_and_nothing_imports_the_site():
    edges = _edges()
    assert not [e for e in edges if e[0] == "core"], {e: edges[e] for e in edges if e[0] == "core"}
    assert not [e for e in edges if e[1] == "site" and e[0] != "site"]


def test_no_module_imports_a_command_line():
    for path in ROOT.rglob("*.py"):
        mains = [n for n in _imports(path) if n.endswith(".__main__")]
        assert not mains or path.name == "__main__.py", (path, mains)


def test_a_topic_imports_another_only_along_the_whiteboard():
    found = {e for e in _edges() if e[0] in TOPICS and e[1] in TOPICS}
    assert found - ALLOWED.keys() - TO_REMOVE.keys() == set()
    # an edge taken out leaves the list of edges to take out
    assert TO_REMOVE.keys() <= found


def test_scale_uses_only_the_names_train_exports():
    """Scale builds on train's public names and its catalog of classifiers, not on the modules
    inside it (its step, its rows, its tables), so that train can move those without breaking
    scale."""
    inside = {p.stem for p in (ROOT / "train").glob("*.py")} - {"__init__", "classifiers"}
    deep = {(str(path.relative_to(ROOT)), name) for path in (ROOT / "scale").rglob("*.py")
            for name in _imports(path) if name.startswith("snippets.train.")
            and name.split(".")[2] in inside}
    assert not deep, deep
