"""Building the site in tests: a copy of its sources in a temporary folder, built strictly in a
subprocess (so a failure is an exit code and the checkout is never touched), and deployed as
versions with mike into a temporary git repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from snippets.core import folders

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent  # mike and mkdocs, installed beside this Python
# mike commits; a test machine may have no git identity of its own.
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "site test", "GIT_AUTHOR_EMAIL": "site-test@localhost",
                "GIT_COMMITTER_NAME": "site test", "GIT_COMMITTER_EMAIL": "site-test@localhost"}


@dataclass(frozen=True)
class Deployment:
    """Versions of the site deployed with mike."""

    src: Path  # the site copy the versions were built from
    remote: Path  # the bare repository mike pushed gh-pages to
    root: Path  # gh-pages checked out: what a web server would serve
    current: str  # deployed last, with the alias latest, the default
    older: str


def site_copy(dest: Path) -> Path:
    """A buildable copy of the site: its config, pages and templates copied, the snippets
    linked."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "mkdocs.yml", dest / "mkdocs.yml")
    shutil.copy(ROOT / "README.md", dest / "README.md")  # the home page includes its commands
    shutil.copytree(ROOT / "docs", dest / "docs")
    shutil.copytree(ROOT / "overrides", dest / "overrides")
    (dest / "snippets").symlink_to(ROOT / "snippets", target_is_directory=True)
    return dest


def add_run(src: Path, run: Path) -> None:
    """A real bench run added to a site copy, in a folder of its own, so it never stands in for
    a committed run of the same machine."""
    doc = json.loads(run.read_text())
    folder = src / "docs" / "results" / f"{folders.run_folder(doc['provenance'])}_site-test"
    folder.mkdir(parents=True)
    shutil.copy(run, folder / "bench.json")


def build_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNIPPETS_BUILD")}
    return {**env, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT),
            "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}", **extra}


def start_build(src: Path, *flags: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "build", "--strict", *flags, "-d", str(src / "site")],
        cwd=src, env=build_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


# A whole site build: about a minute on the 2-core CI machine alone, several times that while
# other builds and tests share its cores. The limit is there to end a hung build, not to time one.
BUILD_TIMEOUT_S = 900


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    out, _ = proc.communicate(timeout=BUILD_TIMEOUT_S)
    return proc.returncode, out


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=build_env(**GIT_IDENTITY), check=True,
                          capture_output=True, text=True).stdout


def mike(src: Path, remote: Path, *args: str) -> None:
    """``mike ARGS`` in a site copy, committing to gh-pages and pushing to ``remote``, a
    repository on this machine: no network."""
    proc = subprocess.run([str(BIN / "mike"), *args, "--push", "--remote", str(remote),
                           "--branch", "gh-pages"], cwd=src, env=build_env(**GIT_IDENTITY),
                          capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
