"""The site's deployment, shared by the version test and the browser test: two versions deployed
with mike into a temporary git repository, and its gh-pages branch checked out to be served."""

from __future__ import annotations

from pathlib import Path

import pytest

from snippets.site import release
from tests.site.builds import Deployment, add_run, git, mike, site_copy

OLDER = "0.0.1"  # a version name older than any the guide has released


@pytest.fixture(scope="session")
def deployed(tmp_path_factory: pytest.TempPathFactory, cpu_bench_run: Path) -> Deployment:
    """This tree deployed twice, as an older version and as the current one aliased latest, the
    way the Contributing page deploys it; the site copy holds a real small CPU run too."""
    tmp = tmp_path_factory.mktemp("deploy")
    src = site_copy(tmp / "src")
    add_run(src, cpu_bench_run)
    # mike commits to a branch of the repository it runs in, naming the commit deployed
    git("init", "-q", "-b", "main", cwd=src)
    git("add", "-A", cwd=src)
    git("commit", "-q", "-m", "the site's sources", cwd=src)
    remote = tmp / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=tmp)
    current = release.name()
    mike(src, remote, "deploy", "--title", f"{OLDER} (an older release)", OLDER)
    mike(src, remote, "deploy", "--update-aliases", "--title",
         release.title(current, src / "docs" / "results"), current, "latest")
    mike(src, remote, "set-default", "latest")
    git("clone", "-q", "--branch", "gh-pages", str(remote), str(tmp / "gh-pages"), cwd=tmp)
    return Deployment(src, remote, tmp / "gh-pages", current, OLDER)
