"""Every number a reader sees on the built site, listed so that two builds can be compared.

A redesign of how pages render must leave the numbers alone. Per page of a built site, this lists
each number in a table cell or in the prose (code blocks and navigation left out), with its
context. The diff matches numbers by page, by table or prose and by value, not by context: a
reworded sentence around the same number is no difference.

    python -m snippets.site.numbers SITE_DIR -o numbers.json     # the inventory of one build
    python -m snippets.site.numbers --diff BEFORE.json AFTER.json  # what changed between two
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from snippets.core import cli, config
from snippets.site.build import built_site, parse

# A number as a reader reads one: digits with an optional sign, thousands commas and decimals.
NUMBER = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")
# Elements whose text is not a page's report: code blocks (inline code stays), the navigation
# around the article, scripts.
SKIPPED = {"pre", "script", "style", "svg", "nav", "header", "footer", "button", "label"}
# Void elements never close: they must not count as opened.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class _Article(HTMLParser):
    """Collects the table cells and the prose text of a page's ``<article>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.cells: list[dict[str, str]] = []  # {"table", "row", "column", "text"}
        self.tables: list[tuple[list[str], list[list[str]]]] = []  # (head, body rows) each
        self.prose: list[str] = []
        self._in_article = 0
        self._skip = 0
        self._tables = 0
        self._table: list[list[str]] | None = None
        self._head: list[str] = []
        self._cell: list[str] | None = None
        self._row: list[str] = []
        self._stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        self._stack.append(tag)
        if tag == "article":
            self._in_article += 1
        if not self._in_article:
            return
        if tag in SKIPPED:
            self._skip += 1
        elif tag == "table" and not self._skip:
            self._tables += 1
            self._table, self._head = [], []
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []
        elif tag in ("p", "li", "div", "h1", "h2", "h3", "h4", "summary", "dd", "dt"):
            self.prose.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or tag not in self._stack:
            return
        while self._stack and self._stack.pop() != tag:  # an element left open ends here too
            pass
        if not self._in_article:
            return
        if tag == "article":
            self._in_article -= 1
        elif tag in SKIPPED:
            self._skip = max(0, self._skip - 1)
        elif tag in ("td", "th") and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._table is not None:
            if not self._head:
                self._head = self._row
            else:
                self._table.append(self._row)
                for i, text in enumerate(self._row):
                    self.cells.append({
                        "table": str(self._tables), "row": self._row[0] if self._row else "",
                        "column": self._head[i] if i < len(self._head) else "", "text": text})
        elif tag == "table" and self._table is not None:
            self.tables.append((self._head, self._table))
            self._table = None

    def handle_data(self, data: str) -> None:
        if not self._in_article or self._skip:
            return
        if self._cell is not None:
            self._cell.append(data)
        elif self._table is None:
            self.prose.append(data)


def page_numbers(html: str) -> list[dict[str, str]]:
    """Each number of one page: ``{"where": "table"|"prose", "value", "context"}``."""
    parser = _Article()
    parser.feed(html)
    out = []
    for cell in parser.cells:
        context = f"table {cell['table']} · {cell['row']} · {cell['column']}: {cell['text']}"
        out += [{"where": "table", "value": _value(m), "context": context}
                for m in NUMBER.findall(cell["text"])]
    text = " ".join("".join(parser.prose).split("\n"))
    for m in NUMBER.finditer(text):
        around = " ".join(text[max(0, m.start() - 60):m.end() + 40].split())
        out.append({"where": "prose", "value": _value(m.group()), "context": around})
    return out


def page_tables(html: str) -> list[tuple[list[str], list[list[str]]]]:
    """The tables of one page's article, each as its header cells and its body rows' cells."""
    parser = _Article()
    parser.feed(html)
    return parser.tables


def _value(token: str) -> str:
    """A number as matched, with the thousands commas and the typographic minus unified."""
    return token.replace(",", "").replace("−", "-")


def inventory(site: Path) -> dict[str, list[dict[str, str]]]:
    """Every page of a built site (``404.html`` left out) and its numbers."""
    pages = {}
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        if rel == "404.html":
            continue
        pages[rel] = page_numbers(path.read_text(encoding="utf-8"))
    return pages


def diff(before: dict[str, list[dict]], after: dict[str, list[dict]]) -> list[str]:
    """A line per number one inventory has more often than the other, by page and where."""
    lines = []
    for page in sorted(set(before) | set(after)):
        for where in ("table", "prose"):
            a = [n for n in before.get(page, []) if n["where"] == where]
            b = [n for n in after.get(page, []) if n["where"] == where]
            ca, cb = Counter(n["value"] for n in a), Counter(n["value"] for n in b)
            for value in sorted((ca - cb) | (cb - ca), key=lambda v: (len(v), v)):
                gone, came = ca[value] - cb[value], cb[value] - ca[value]
                side, count = ("-", gone) if gone > 0 else ("+", came)
                items = a if side == "-" else b
                contexts = [n["context"] for n in items if n["value"] == value][:3]
                lines.append(f"{side} {page} [{where}] {value} (x{count}): "
                             + " | ".join(contexts))
    return lines


PROG = "python -m snippets.site.numbers"


@dataclass(frozen=True, kw_only=True)
class NumbersConfig:
    """A site to list, or two lists to compare.

    Attributes:
        site: a built site's folder
        output: write the inventory here (JSON)
        diff: two inventories to compare, before and after
    """

    site: Path | None = config.option(None, flag="SITE")
    output: Path | None = config.option(None, flag="-o --output")
    diff: tuple[Path, Path] | None = None


def main(argv: list[str] | None = None) -> int:
    cfg = parse(PROG, NumbersConfig, __doc__, argv)
    if cfg.diff:
        try:
            before, after = (json.loads(path.read_text()) for path in cfg.diff)
        except (OSError, ValueError) as exc:
            cli.fail(PROG, str(exc))
        lines = diff(before, after)
        print("\n".join(lines) if lines else "no difference")
        return 1 if lines else 0
    found = inventory(built_site(PROG, cfg.site))
    text = json.dumps(found, indent=1, ensure_ascii=False) + "\n"
    if cfg.output:
        cfg.output.write_text(text)
        total = sum(len(v) for v in found.values())
        print(f"{total} numbers on {len(found)} pages -> {cfg.output}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
