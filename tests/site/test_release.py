"""snippets.site.release, and the site deployed as versions with mike into a temporary git
repository (``conftest.deployed``): versions.json, the latest alias and default, both trees, and
the version selector and outdated banner in the built HTML. No network: the remote is a folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from snippets.site import release
from tests.site.builds import Deployment, git

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"


def test_the_name_is_the_guides_release(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[build-system]\nrequires = []\n\n[project]\n'
                                             'name = "x"\nversion = "1.2.3"\n\n[tool.x]\n'
                                             'version = "9"\n')
    assert release.name(tmp_path) == "1.2.3"
    (tmp_path / "pyproject.toml").write_text('[tool.x]\nversion = "9"\n')
    with pytest.raises(ValueError, match="no version in its \\[project\\] table"):
        release.name(tmp_path)


def test_the_title_names_every_torch_release_of_the_results(tmp_path: Path) -> None:
    for folder in ("nvidia-h200_torch-2.11.0", "cpu-amd-epyc_torch-2.14.1"):
        (tmp_path / folder).mkdir()
        shutil.copy(RESULTS / folder / "bench.json", tmp_path / folder / "bench.json")
    assert release.torch_releases(tmp_path) == {"2.11.0": {"cuda"}, "2.14.1": {"cpu"}}
    title = release.title("1.0", tmp_path)
    assert title.startswith("1.0 (torch ") and title.endswith(")")
    assert title.removeprefix("1.0 (torch ").removesuffix(")").split(", ") == ["2.11.0 GPU",
                                                                              "2.14.1 CPU"]
    assert release.title("1.0", tmp_path / "none") == "1.0 (no recorded run)"


def test_the_command_line_prints_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert release.main(["name"]) == 0
    assert capsys.readouterr().out == release.name() + "\n"
    with pytest.raises(SystemExit) as exc:
        release.main(["version"])
    assert exc.value.code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1


def test_two_versions_are_deployed_with_latest_the_default(deployed: Deployment) -> None:
    versions = json.loads(git("show", "gh-pages:versions.json", cwd=deployed.remote))
    assert [v["version"] for v in versions] == [deployed.current, deployed.older]  # newest first
    assert [v["aliases"] for v in versions] == [["latest"], []]
    assert versions[0]["title"] == release.title(deployed.current,
                                                 deployed.src / "docs" / "results")
    assert "torch " in versions[0]["title"]
    tree = set(git("ls-tree", "--name-only", "gh-pages", cwd=deployed.remote).split())
    assert {deployed.current, deployed.older, "latest", "versions.json", "index.html"} <= tree
    for version in (deployed.current, deployed.older, "latest"):
        for page in ("index.html", "benchmark/index.html", "run-it-yourself/index.html"):
            assert (deployed.root / version / page).is_file(), f"{version}/{page}"
    # the root, where the outdated banner's link leads, sends a reader to the latest version
    assert 'href="latest/"' in (deployed.root / "index.html").read_text()


def test_the_built_pages_carry_the_selector_and_the_outdated_banner(
        deployed: Deployment) -> None:
    override = (Path(__file__).resolve().parents[2] / "overrides" / "main.html").read_text()
    banner = override.split("<strong>")[1].split("</strong>")[0]
    for version in (deployed.current, deployed.older):
        page = (deployed.root / version / "index.html").read_text()
        config = json.loads(page.split('id="__config"')[1].split(">", 1)[1].split("</script>")[0])
        assert config["version"] == {"provider": "mike", "default": "latest"}
        assert 'data-md-component="outdated"' in page
        assert banner in page  # the theme override's own words
