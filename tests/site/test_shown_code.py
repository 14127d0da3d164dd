"""Code shown on the pages fits the page's code column.

At 1280 px the theme's code column holds 80 characters of its monospace font (688 px); a longer
line is cut off at the right edge, and a reader cannot see its end. Every section a page includes
(``# --8<-- [start:name]`` ... ``[end:name]``, or a whole file) is measured here as the page shows
it, dedented, so an overlong line fails a quick test instead of a browser run. The browser test checks the built
pages themselves.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COLUMN = 80  # characters of code the page's column shows at 1280 px (688 px, 8.6 px each)
MARK = re.compile(r"--8<-- \[(start|end):(\w+)\]")


def sections() -> dict[str, list[str]]:
    """Every marked section, as ``path:name``, and every whole file, as ``path`` (the included ones
    are measured: a page includes a file whole by its path alone)."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "snippets").rglob("*.py")):
        name, lines = None, []
        text = path.read_text().splitlines()
        found[path.relative_to(ROOT).as_posix()] = [ln for ln in text if not MARK.search(ln)]
        for line in text:
            mark = MARK.search(line)
            if mark and mark.group(1) == "start":
                name, lines = mark.group(2), []
            elif mark and name:
                found[f"{path.relative_to(ROOT).as_posix()}:{name}"] = lines
                name = None
            elif name:
                lines.append(line)
    return found


SECTIONS = sections()
INCLUDED = sorted(set(re.findall(r'^--8<-- "(snippets/[^"]+)"',
                                 "\n".join(p.read_text() for p in (ROOT / "docs").glob("*.md")),
                                 flags=re.MULTILINE)))


@pytest.mark.parametrize("where", sorted(w for w in SECTIONS if ":" in w or w in INCLUDED))
def test_a_shown_section_fits_the_code_column(where: str) -> None:
    shown = textwrap.dedent("\n".join(SECTIONS[where])).splitlines()
    long = [f"{len(line)}: {line}" for line in shown if len(line) > COLUMN]
    assert long == [], f"{where} shows lines longer than {COLUMN} characters"


def test_every_included_section_exists() -> None:
    assert INCLUDED and all(where in SECTIONS for where in INCLUDED)
