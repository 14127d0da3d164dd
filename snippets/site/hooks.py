"""MkDocs hooks (``hooks:`` in mkdocs.yml): tie the build to the results files and check its output.

- The build's state (recorded or fresh, cache, commit) is read once, when the build starts.
- Results are read from, and a fresh build writes them to, the docs folder being built.
- The project's code is added to the site as a zip file (``snippets.site.download``).
- The Results page is rendered last, after every page that may write a results file in a fresh
  build, and any file written during the build is added to the site, so it is listed and linked.
- The notebook page ("Run it yourself") gets its stamp and downloads, and site links for the
  links to pages in its Markdown (``snippets.site.notebook``).
- The live sections a cold build must execute start at once in a second process
  (``snippets.site.prefetch``), stopped when the build ends.
- After the build, ``snippets.sitecheck`` must find no traceback, no unstamped results table and
  no broken link; otherwise the build fails with an error, which even a quiet (``-q``) build
  reports.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, InclusionLevel
from mkdocs.utils import get_relative_url

from snippets.site import build, download, notebook, prefetch, sitecheck

RESULTS_PAGE = "results.md"
log = logging.getLogger("mkdocs.hooks.snippets")
_prefetching = None  # the prefetch process of the build under way, if any


def on_config(config):
    global _prefetching
    try:
        started = build.start(build.Build.from_env(config.docs_dir))
    except build.BuildError as exc:  # a misspelt SNIPPETS_BUILD stops the build before any page
        raise PluginError(str(exc)) from None
    prefetch.stop(_prefetching)  # a serve rebuild that began before the last one ended
    _prefetching = prefetch.start(started)
    return config


def on_files(files, config):
    page = files.get_file_from_path(RESULTS_PAGE)
    if page is not None:  # rendered in files order: put it last
        files.remove(page)
        files.append(page)
    # The code of this version of the site, for readers to download (linked from the home page).
    # The build's own commit: a tree built from SNIPPETS_COMMIT alone has no git to ask.
    code = download.source_zip(commit=build.current().commit)
    files.append(File.generated(config, download.NAME, content=code,
                                inclusion=InclusionLevel.NOT_IN_NAV))
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri == RESULTS_PAGE:
        docs = Path(config.docs_dir)
        for path in sorted(build.current().results_dir.glob("*/*.json")):
            uri = path.relative_to(docs).as_posix()
            if files.get_file_from_path(uri) is None:  # written by this (fresh) build
                files.append(File(uri, config.docs_dir, config.site_dir,
                                  config.use_directory_urls, inclusion=InclusionLevel.INCLUDED))
    return markdown


def on_page_content(html, page, config, files):
    if page.file.src_uri != notebook.STORED.name:
        return html

    def url_of(src: str) -> str | None:
        file = files.get_file_from_path(src)
        return None if file is None else get_relative_url(file.url, page.url)

    return notebook.page_html(html, Path(page.file.abs_src_path), url_of)


def on_build_error(error):
    prefetch.stop(_prefetching)


def on_post_build(config):
    prefetch.stop(_prefetching)
    problems = sitecheck.check_site(config.site_dir)
    if problems:
        raise PluginError("the site check failed:\n  " + "\n  ".join(problems))
    log.info("site check: no traceback, every results table stamped, every link leads somewhere")
