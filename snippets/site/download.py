"""The project's code as one zip file, built with the site: what the README's two commands need.

Entries are sorted and dated alike, so an unchanged tree gives the same bytes at every build.
Each keeps its executable bit (``.ci/run`` runs as a program), and a ``COMMIT`` file names the
commit, which ``results.git_commit`` reads in an unzipped copy that has no git.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from snippets.core import results

ROOT = Path(__file__).resolve().parents[2]
NAME = "download/torch-compile-in-practice.zip"
FILES = ("README.md", "pyproject.toml", "mkdocs.yml", ".ci/run")
FOLDERS = ("snippets", "tests", "docs", "overrides")
SKIP = {"__pycache__", ".pytest_cache"}
EPOCH = (2000, 1, 1, 0, 0, 0)  # a fixed date for every entry: the bytes depend on content only


def files(root: Path = ROOT) -> list[Path]:
    found = [root / name for name in FILES if (root / name).is_file()]
    for folder in FOLDERS:
        found += [p for p in (root / folder).rglob("*")
                  if p.is_file() and not SKIP & set(p.relative_to(root).parts)]
    return sorted(found)


def _entry(name: str, mode: int) -> zipfile.ZipInfo:
    entry = zipfile.ZipInfo(f"torch-compile-in-practice/{name}", EPOCH)
    entry.compress_type = zipfile.ZIP_DEFLATED
    entry.external_attr = (0o100000 | mode) << 16  # a regular file, with its permission bits
    return entry


def mode_of(path: Path) -> int:
    """0o755 for a file its owner may run, else 0o644: not the builder's umask."""
    return 0o755 if path.stat().st_mode & 0o100 else 0o644


def source_zip(root: Path = ROOT, commit: str | None = None) -> bytes:
    """The zip's bytes; ``commit`` None asks git (through the results layer, as a run would)."""
    commit = commit or results.git_commit(root)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files(root):
            archive.writestr(_entry(path.relative_to(root).as_posix(), mode_of(path)),
                             path.read_bytes())
        if commit:
            archive.writestr(_entry(results.COMMIT_FILE, 0o644), commit + "\n")
    return buffer.getvalue()
