"""snippets.site.download: the zip keeps executable bits and names its commit, and a tree
unzipped from it records that commit in its runs."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from snippets.core import results
from snippets.site import download


def _tree(root: Path) -> None:
    (root / ".ci").mkdir(parents=True)
    (root / ".ci" / "run").write_text("#!/bin/sh\n")
    (root / ".ci" / "run").chmod(0o775)
    (root / "README.md").write_text("readme\n")
    (root / "README.md").chmod(0o664)


def test_entries_keep_the_executable_bit_and_the_zip_names_its_commit(tmp_path: Path) -> None:
    _tree(tmp_path)
    archive = zipfile.ZipFile(io.BytesIO(download.source_zip(tmp_path, commit="0123456789ab")))
    modes = {i.filename.split("/", 1)[1]: (i.external_attr >> 16) & 0o777
             for i in archive.infolist()}
    assert modes == {".ci/run": 0o755, "README.md": 0o644, "COMMIT": 0o644}
    assert archive.read("torch-compile-in-practice/COMMIT") == b"0123456789ab\n"


def test_the_same_tree_gives_the_same_bytes(tmp_path: Path) -> None:
    _tree(tmp_path)
    assert download.source_zip(tmp_path, "abc") == download.source_zip(tmp_path, "abc")


def test_an_unzipped_copy_records_the_commit_it_came_from(tmp_path: Path) -> None:
    _tree(tmp_path)
    zipfile.ZipFile(io.BytesIO(download.source_zip(tmp_path, commit="0123456789ab"))
                    ).extractall(tmp_path / "out")
    assert results.git_commit(tmp_path / "out" / "torch-compile-in-practice") == "0123456789ab"
