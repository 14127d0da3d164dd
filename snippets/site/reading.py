"""``python -m snippets.site.reading SITE``: how a built site reads, page by page.

Per page: its prose words (outside tables, code, figures and closed blocks), the word its
"What to do" box starts at, the box's lines, and its longest sentence. ``--check`` exits 1 when
a topic page is over a budget (a page a reader can finish, the answer on the first screen).

    python -m snippets.site.reading SITE            # the table, every page
    python -m snippets.site.reading SITE --check    # and exit 1 over budget
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from snippets.core import config, render
from snippets.site.build import built_site, parse

PROG = "python -m snippets.site.reading"
# What a reader reads past to reach the answer: about the words on a first screen at 1280×900
# above the box, the page's title and a line of navigation included.
ANSWER_WITHIN_WORDS = 40
MAX_PROSE_WORDS = 2500
MAX_SENTENCE_WORDS = 40
BOX_LINES = "What to do lines"  # a column, and the budget a page can be over
MAX_BOX_LINES = 5  # "What to do" in at most five lines
BOX_TITLE = "What to do"
# Pages that are reference, not topics: no answer box, no word budget.
REFERENCE = ("index", "results", "cli", "contributing", "glossary", "changelog")
SKIPPED = {"table", "pre", "code", "details", "svg", "script", "style", "figure", "nav",
           "header", "footer"}
# A stamp, and a notebook code cell's copy button and the copy of its code it holds (no <pre>).
SKIPPED_CLASSES = {"stamp", "zeroclipboard-container", "clipboard-copy-txt"}
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'])")


@dataclass(frozen=True)
class Reading:
    page: str
    prose_words: int
    answer_at: int | None  # prose words before the "What to do" box; None: no box
    longest_sentence: int
    longest: str  # its first words, to find it
    box_lines: int = 0  # the items of the "What to do" list

    def over(self) -> list[str]:
        """The budgets this page misses, by name; a reference page has none."""
        if self.page in REFERENCE:
            return []
        out = []
        if self.answer_at is None or self.answer_at > ANSWER_WITHIN_WORDS:
            out.append("answer not first")
        if self.prose_words > MAX_PROSE_WORDS:
            out.append("prose words")
        if self.longest_sentence > MAX_SENTENCE_WORDS:
            out.append("longest sentence")
        if self.box_lines > MAX_BOX_LINES:
            out.append(BOX_LINES)
        return out


class _Prose(HTMLParser):
    """The prose of a page's article, paragraph by paragraph, and where the box begins."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.in_article = False
        self.skipping = 0
        self.blocks: list[list[str]] = [[]]
        self.box_at: int | None = None
        self.words = 0
        self.divs = 0  # open <div>s: the box ends with the one it opened in
        self.box_div: int | None = None  # the depth of the box's <div> while inside it
        self.lists = 0  # open lists inside the box: only its own items count
        self.box_lines = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "div":
            self.divs += 1
        elif self.box_div is not None and tag in ("ul", "ol"):
            self.lists += 1
        elif self.box_div is not None and tag == "li" and self.lists == 1:
            self.box_lines += 1
        if tag == "article":
            self.in_article = True
        elif self.skipping or tag in SKIPPED or SKIPPED_CLASSES.intersection(classes):
            self.skipping += tag not in ("br", "img", "input", "hr")
        elif tag in ("p", "li", "h1", "h2", "h3", "h4", "dd", "dt"):
            self.blocks.append([])

    def handle_endtag(self, tag: str) -> None:
        if tag == "div":
            if self.box_div is not None and self.divs == self.box_div:
                self.box_div = None
            self.divs -= 1
        elif self.box_div is not None and tag in ("ul", "ol"):
            self.lists -= 1
        if tag == "article":
            self.in_article = False
        elif self.skipping and tag not in ("br", "img", "input", "hr"):
            self.skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self.in_article or self.skipping:
            return
        if self.box_at is None and data.strip() == BOX_TITLE:
            self.box_at = self.words
            self.box_div = self.divs
        words = data.replace("¶", " ").split()
        self.words += len(words)
        self.blocks[-1] += words


def read(name: str, html: str) -> Reading:
    prose = _Prose()
    prose.feed(html)
    sentences = [s.split() for block in prose.blocks if block
                 for s in SENTENCE_END.split(" ".join(block))]
    longest = max(sentences, key=len, default=[])
    return Reading(name, prose.words, prose.box_at, len(longest), " ".join(longest[:8]),
                   prose.box_lines)


def readings(site: Path) -> list[Reading]:
    out = []
    for path in sorted(site.glob("**/index.html")):
        rel = path.parent.relative_to(site).as_posix()
        if rel.startswith(("download", "assets", "search")) or "/" in rel:
            continue
        out.append(read(rel if rel != "." else "index", path.read_text()))
    return out


def markdown(found: list[Reading]) -> str:
    return render.markdown_table(
        ("Page", "Prose words", "What to do at word", BOX_LINES, "Longest sentence",
         "Over budget"),
        ((r.page, f"{r.prose_words:,}", render.num(r.answer_at, "d"), r.box_lines or "–",
          r.longest_sentence, ", ".join(r.over()) or "–") for r in found))


@dataclass(frozen=True, kw_only=True)
class ReadingConfig:
    """The site to read, and whether to hold it to the budgets.

    Attributes:
        site: a built site (mkdocs build -d SITE)
        check: exit 1 when a topic page is over budget
    """

    site: Path = config.option(flag="SITE")
    check: bool = False


def main(argv: list[str] | None = None) -> int:
    cfg = parse(PROG, ReadingConfig, __doc__, argv)
    found = readings(built_site(PROG, cfg.site))
    print(markdown(found))
    return 1 if cfg.check and any(r.over() for r in found) else 0


if __name__ == "__main__":
    sys.exit(main())
