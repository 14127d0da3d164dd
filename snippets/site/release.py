"""``python -m snippets.site.release name|title``: what a deployed version of the site is called.

Each release is deployed with mike as a version named for ``version`` in pyproject.toml and
titled with the PyTorch releases its results files were measured on: numbers change with every
PyTorch release, so the version selector says which a version holds.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from snippets.core import cli, config, results
from snippets.site import topics  # noqa: F401 (declares every kind a file read here is of)
from snippets.site.build import parse

ROOT = Path(__file__).resolve().parents[2]
PROG = "python -m snippets.site.release"
DEVICE_WORDS = {"cuda": "GPU", "cpu": "CPU"}


def name(root: Path = ROOT) -> str:
    """The guide's release, from ``version`` in the ``[project]`` table of pyproject.toml."""
    text = (root / "pyproject.toml").read_text()
    project = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
    found = project and re.search(r'^version\s*=\s*"([^"]+)"', project[1], re.MULTILINE)
    if not found:
        raise ValueError(f"{root / 'pyproject.toml'}: no version in its [project] table")
    return found[1]


def torch_releases(results_dir: Path) -> dict[str, set[str]]:
    """Every PyTorch release the results files were measured on (``+cu130`` dropped), with its
    device types."""
    found: dict[str, set[str]] = {}
    for path in sorted(Path(results_dir).rglob("*.json")):
        doc = results.load(path)
        release = str(doc["provenance"]["torch"]).split("+")[0]
        found.setdefault(release, set()).add(results.device_type_of(doc))
    return found


def _release_key(release: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in release.split("."))


def title(version: str, results_dir: Path = ROOT / "docs" / "results") -> str:
    """``0.1.0 (torch 2.11.0 GPU, 2.14.1 CPU)``: the version, and what its numbers ran on."""
    releases = torch_releases(results_dir)
    parts = [f"{r} {'+'.join(DEVICE_WORDS[d] for d in sorted(releases[r], reverse=True))}"
             for r in sorted(releases, key=_release_key)]
    return version + (f" (torch {', '.join(parts)})" if parts else " (no recorded run)")


@dataclass(frozen=True, kw_only=True)
class ReleaseConfig:
    """Which of the two lines to print.

    Attributes:
        what: name: the version to deploy (the guide's release); title: the name and the PyTorch
            releases its numbers were measured on
    """

    what: str = config.option(choices=("name", "title"), flag="what")

    def __post_init__(self) -> None:
        config.check(self)


def main(argv: list[str] | None = None) -> int:
    cfg = parse(PROG, ReleaseConfig, __doc__, argv)
    try:
        print(name() if cfg.what == "name" else title(name()))
    except ValueError as exc:  # ResultsError is one: a results file that cannot be read
        cli.fail(PROG, str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
