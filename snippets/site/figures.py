"""Does the built site give each configuration one headline figure?

A page states a configuration's gain through the ``headline`` macro (``snippets.site.macros``),
which wraps it in ``<span class="headline" data-figure=KEY data-value=VALUE>``. This reports
each configuration stated with more than one value across the built site.

    python -m snippets.site.figures SITE_DIR     # one line per disagreement; exit 1 if any
"""

from __future__ import annotations

import html
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from snippets.site.build import site_from_args

# The span the headline macro writes; attributes in the order it writes them.
HEADLINE = re.compile(r'<span class="headline" data-figure="([^"]*)" data-value="([^"]*)">')


@dataclass(frozen=True)
class Stated:  # one headline figure as a page states it
    page: str  # the page's path in the site, "benchmark/index.html"
    key: str  # the configuration
    value: str  # as shown, "8.68"


def stated(site: Path) -> list[Stated]:
    """Every headline figure of every page of ``site``, in page order."""
    out = []
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site).as_posix()
        for key, value in HEADLINE.findall(page.read_text(encoding="utf-8")):
            out.append(Stated(rel, html.unescape(key), value))
    return out


def disagreements(site: Path) -> list[str]:
    """A line per configuration stated with two or more values, naming where each was."""
    by_key: dict[str, dict[str, list[str]]] = {}
    for s in stated(site):
        by_key.setdefault(s.key, {}).setdefault(s.value, []).append(s.page)
    return [f"{key}: " + "; ".join(f"{value}x on {', '.join(sorted(set(pages)))}"
                                    for value, pages in values.items())
            for key, values in by_key.items() if len(values) > 1]


PROG = "python -m snippets.site.figures"


def main(argv: list[str] | None = None) -> int:
    found = disagreements(site_from_args(PROG, __doc__, argv))
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
