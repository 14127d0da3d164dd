"""The state of one site build, read once from the environment when the build starts.

- ``SNIPPETS_BUILD=recorded`` (the default, any machine): tables come from the results files in
  ``docs/results/``, stamped "recorded"; nothing is measured.
- ``SNIPPETS_BUILD=fresh``: a section whose device type is this machine's is measured during the
  build, written to ``docs/results/<run-folder>/<kind>.json`` and stamped "fresh"; the others fall
  back to their recorded files, so a CPU number never stands where a GPU one belongs.
- ``SNIPPETS_REFRESH=1`` executes cached snippets again; ``SNIPPETS_CACHE_DIR`` moves the cache
  (default ``.cache/snippets``); ``SNIPPETS_COMMIT`` names the commit where the tree has no git.

The MkDocs hook calls ``start`` in ``on_config``; the exec blocks of the pages then read
``current()``. Tests make a ``Build`` of their own and pass it in.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODES = ("recorded", "fresh")


class BuildError(ValueError):
    """A build setting that cannot be used; the message is the one line the author sees."""


@dataclass(frozen=True, kw_only=True)
class Build:
    mode: str = "recorded"
    refresh: bool = False
    cache_dir: Path = ROOT / ".cache" / "snippets"
    # The live sections' recorded values, committed (``snippets.site.live``): a recorded build
    # from a fresh clone renders them instead of executing every one.
    records_dir: Path = ROOT / "live-sections"
    commit: str | None = None  # None: the results layer asks git
    docs_dir: Path = ROOT / "docs"
    # Results files this build measured and wrote (fresh builds): the Results page says so.
    written: set[Path] = field(default_factory=set, compare=False)

    @classmethod
    def from_env(cls, docs_dir: str | Path, environ: Mapping[str, str] = os.environ) -> Build:
        mode = environ.get("SNIPPETS_BUILD") or "recorded"
        if mode not in MODES:
            raise BuildError(f"SNIPPETS_BUILD={mode!r}: expected one of {', '.join(MODES)}")
        return cls(mode=mode, refresh=environ.get("SNIPPETS_REFRESH", "") not in ("", "0"),
                   cache_dir=Path(environ.get("SNIPPETS_CACHE_DIR") or cls.cache_dir),
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
