"""The project's code as one zip file, built with the site so a reader can get the code of the
version they are reading without leaving it.

It holds what the README's two commands need: the package, its tests, the pages and their results
files, and the project files. Entries are sorted and dated alike, so an unchanged tree gives the
same bytes at every build.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

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


def source_zip(root: Path = ROOT) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files(root):
            entry = zipfile.ZipInfo(f"torch-compile-in-practice/{path.relative_to(root)}", EPOCH)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, path.read_bytes())
    return buffer.getvalue()
