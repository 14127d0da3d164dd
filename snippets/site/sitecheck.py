"""The check after a build: no traceback, every results table stamped, every local link leads to
a page or file of the site, and every anchor to an element with that id.

It reads the built HTML, so it holds however the build ran: a quiet build (``-q``) drops the
warning an exec block that raised makes before ``--strict`` counts it, and MkDocs checks no link
in what an exec block or a notebook printed (it reaches MkDocs as finished HTML). The MkDocs hook
runs it last and fails the build on a problem; ``python -m snippets.site.sitecheck [SITE]`` exits
0 on a clean site, 1 on a problem, 2 where there is no site.

A results block is what ``snippets.site.pages`` emits: ``<div class="results">`` holding the
result and a ``<p class="stamp">``. A table outside one whose header names a measured quantity
is a results table without a stamp.
"""

from __future__ import annotations

import posixpath
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from snippets.site.build import site_from_args

TRACEBACK = "Traceback (most recent call last)"
STAMP_STARTS = ("recorded",)  # a build only reads: every stamp says so
# Column headers that only a table of measured numbers has (the benchmark's and its comparison's);
# a timing table of ``core.columns`` heads its times without their unit, which its footer states.
MEASURED_HEADERS = {"Median ms", "IQR ms", "Speedup", "Compile s", "TFLOP/s", "This ms",
                    "Recorded ms", "Median", "Step", "This/recorded"}


class _Page(HTMLParser):
    """Collects a page's text, links, ids and problems (stamps, unstamped result tables)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.links: list[str] = []
        self.ids: set[str] = set()  # what a link's #fragment may name on this page
        self.problems: list[str] = []
        self._stack: list[str] = []  # open divs: "results", "outdated" or ""
        self._blocks: list[dict[str, bool]] = []  # per open results block: has_table, has_stamp
        self._in_stamp = False
        self._stamp_text: list[str] = []
        self._in_th = False
        self._headers: list[str] = []
        self._table_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        classes = (attr.get("class") or "").split()
        if attr.get("id"):
            self.ids.add(attr["id"] or "")
        if tag == "a" and attr.get("name"):  # the older way to name an anchor
            self.ids.add(attr["name"] or "")
        for name in ("href", "src"):
            # The outdated banner links the root of a versioned deployment, above this version's
            # own folder: mike's, not this site's (the deploy test checks it there).
            if attr.get(name) and tag in ("a", "img", "script", "link") and (
                    "outdated" not in self._stack):
                self.links.append(attr[name] or "")
        if tag == "div":
            outdated = attr.get("data-md-component") == "outdated"
            self._stack.append("results" if "results" in classes else
                               "outdated" if outdated else "")
            if "results" in classes:
                self._blocks.append({"table": False, "stamp": False})
        elif tag == "p" and "stamp" in classes:
            self._in_stamp, self._stamp_text = True, []
        elif tag == "table":
            self._table_depth += 1
            self._headers = []
            if self._blocks:
                self._blocks[-1]["table"] = True
        elif tag == "th":
            self._in_th = True
            self._headers.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self._stack:
            if self._stack.pop() == "results":
                block = self._blocks.pop()
                if not block["stamp"]:
                    self.problems.append("unstamped results block")
        elif tag == "p" and self._in_stamp:
            self._in_stamp = False
            stamp = " ".join("".join(self._stamp_text).split())
            if not self._blocks:
                self.problems.append(f"stamp outside results block: {stamp[:60]!r}")
            elif not stamp.startswith(STAMP_STARTS):
                self.problems.append(f"stamp not saying 'recorded': {stamp[:60]!r}")
            else:
                self._blocks[-1]["stamp"] = True
        elif tag == "th":
            self._in_th = False
        elif tag == "table" and self._table_depth:
            self._table_depth -= 1
            measured = MEASURED_HEADERS & {h.strip() for h in self._headers}
            if measured and not self._blocks:
                self.problems.append(f"unstamped results table ({', '.join(sorted(measured))})")

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_stamp:
            self._stamp_text.append(data)
        if self._in_th and self._headers:
            self._headers[-1] += data


def _parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    return page


def _target(link: str, path: Path, site: Path) -> tuple[Path | None, str] | None:
    """The file a local link leads to (None: missing) and its fragment; None for a link to
    another host."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc:
        return None
    if not parts.path:  # "#fragment": this page
        return path, unquote(parts.fragment)
    here = path.parent.relative_to(site).as_posix()
    base = "" if parts.path.startswith("/") else here  # a site served at its root
    target = posixpath.normpath(posixpath.join(base, unquote(parts.path).lstrip("/")))
    file = site / target
    if parts.path.endswith("/") or file.is_dir():
        file = file / "index.html"
    ok = not target.startswith("..") and file.is_file()
    return (file if ok else None), unquote(parts.fragment)


def _broken_links(page: _Page, path: Path, site: Path, ids: dict[Path, set[str]]) -> list[str]:
    """Local links of a built page to no file of the site, or to an anchor not on the page it
    leads to (``ids``: every page's ids). An anchor into a download is not read."""
    out = []
    for link in page.links:
        found = _target(link, path, site)
        if found is None:
            continue
        file, fragment = found
        if file is None:
            out.append(f"broken link {link!r}")
        elif fragment and file.suffix == ".html" and fragment not in ids.get(file, set()):
            out.append(f"missing anchor {link!r}")
    return sorted(set(out))


def check_html(text: str) -> list[str]:  # one page's problems, links apart
    return _problems(_parse(text))


def _problems(page: _Page) -> list[str]:
    problems = list(page.problems)
    # Highlighting splits a traceback into many spans: look in the text, not the markup.
    if TRACEBACK in " ".join("".join(page.text).split()):
        problems.insert(0, "traceback (an exec block raised)")
    return problems


def check_site(site_dir: str | Path) -> list[str]:
    """``"page: problem"`` for every problem in every built page."""
    site = Path(site_dir)
    pages = {path: _parse(path.read_text(encoding="utf-8"))
             for path in sorted(site.rglob("*.html"))}
    ids = {path: page.ids for path, page in pages.items()}
    out = []
    for path, page in pages.items():
        for problem in _problems(page) + _broken_links(page, path, site, ids):
            out.append(f"{path.relative_to(site)}: {problem}")
    return out


PROG = "python -m snippets.site.sitecheck"


def main(argv: list[str] | None = None) -> int:
    site = site_from_args(PROG, __doc__, argv)
    problems = check_site(site)
    for line in problems:
        print(line)
    print(f"{len(problems)} problems in {site}" if problems else f"{site}: fine")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
