"""The state of one site build, read once from the environment when the build starts (the hook's
``on_config``); pages read ``current()``, tests pass a ``Build`` of their own.

``SNIPPETS_CACHE_DIR`` moves the cache of drawn plots; ``SNIPPETS_COMMIT`` names the commit
where the tree has no git.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snippets.core import cli, config, flags

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, kw_only=True)
class Build:
    cache_dir: Path = ROOT / ".cache" / "snippets"
    # The live sections' recorded values, committed (``snippets.site.produce`` writes them).
    records_dir: Path = ROOT / "live-sections"
    commit: str | None = None  # None: the results layer asks git
    docs_dir: Path = ROOT / "docs"

    @classmethod
    def from_env(cls, docs_dir: str | Path, environ: Mapping[str, str] = os.environ) -> Build:
        return cls(cache_dir=Path(environ.get("SNIPPETS_CACHE_DIR") or cls.cache_dir),
                   commit=environ.get("SNIPPETS_COMMIT") or None, docs_dir=Path(docs_dir))

    @property
    def results_dir(self) -> Path:
        return self.docs_dir / "results"


_current: Build | None = None  # set once per build by the hook; pages read it


def start(build: Build) -> Build:
    global _current
    _current = build
    return build


def current() -> Build:
    """The build under way; outside one (a page function called by hand), the environment's."""
    return _current if _current is not None else Build.from_env(ROOT / "docs")


def built_site(prog: str, site: Path | None) -> Path:
    """``site``, where it holds a built site; else a one-line error, exit code 2."""
    if site is None or not (site / "index.html").is_file():
        cli.fail(prog, f"{site}: no built site here (no index.html)")
    return site


@dataclass(frozen=True, kw_only=True)
class SiteConfig:
    """The site to check.

    Attributes:
        site: a built site's folder (mkdocs build -d SITE)
    """

    site: Path = config.option(Path("site"), flag="SITE")  # where mkdocs build writes


def parse(prog: str, cls: type, doc: str | None, argv: list[str] | None) -> Any:
    """A site tool's configuration from its command line: the flags of ``cls``, the description
    ``doc``'s first paragraph."""
    p = cli.Parser(prog=prog, description=flags.paragraph(doc))
    flags.declare(p, cls)
    return flags.build(prog, cls, p.parse_args(argv))


def site_from_args(prog: str, doc: str | None, argv: list[str] | None) -> Path:
    """The built site a tool that takes nothing else was given (agree, figures)."""
    return built_site(prog, parse(prog, SiteConfig, doc, argv).site)
