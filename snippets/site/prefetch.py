"""``python -m snippets.site.prefetch``: execute the build's missing live sections in a second
process while the first renders the pages.

A cold build executes every live section (``snippets.site.live``): each traces or compiles on the
CPU, several start a Python of their own, and one after another they were most of a cold build's
time on a 2-core machine, one core busy and the other idle. At the start of a build the hook
(``start``) finds the sections with no cache entry and hands them to this process, which executes
them from the last page backwards while the pages render from the first. Both go through
``cache.cached``: a section one of them is executing, the other waits for, so none is executed
twice. A warm build finds nothing missing and starts nothing; a refreshing build executes its
sections in page order as before. The hook stops this process when the build ends.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from snippets.core import process
from snippets.site import cache, live
from snippets.site.build import ROOT, Build


def missing(build: Build) -> list[str]:
    """The live sections this build has neither a current record nor a cache entry for, in
    page order."""
    return [name for name, produce in live.SECTIONS.items()
            if cache.recorded(f"live-{name}", produce, build) is None
            and not cache.entry_path(f"live-{name}", produce, build).exists()]


def start(build: Build) -> subprocess.Popen | None:
    """The prefetching process for this build's missing sections, or None where none is needed."""
    names = [] if build.refresh else missing(build)
    if len(names) < 2:  # one section alone: the pages reach it soon enough
        return None
    env = process.child_env()
    argv = [sys.executable, "-m", "snippets.site.prefetch", "--mode", build.mode,
            "--cache-dir", str(build.cache_dir), "--docs-dir", str(build.docs_dir),
            *reversed(names)]
    # Its output is not the build's: a section that fails here fails again, with its message,
    # when its page executes it.
    return subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop(proc: subprocess.Popen | None) -> None:
    """End the prefetcher if it is still running (a failed build, or a section no page shows):
    its lock files are taken over by the next build, whose cache check sees the holder gone."""
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.wait()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m snippets.site.prefetch")
    p.add_argument("--mode", default="recorded")
    p.add_argument("--cache-dir", type=Path, required=True)
    p.add_argument("--docs-dir", type=Path, required=True)
    p.add_argument("names", nargs="*")
    args = p.parse_args(argv)
    build = Build(mode=args.mode, cache_dir=args.cache_dir, docs_dir=args.docs_dir)
    for name in args.names:
        try:
            cache.cached(f"live-{name}", live.producer(name), build)
        except Exception:  # the page executes it again and shows what went wrong
            continue
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
