"""MkDocs hooks (``hooks:`` in mkdocs.yml): the build's state read once at its start, the code
as a zip file, the links of "no recorded run" notes, the notebook page's stamp and links, and
the site check after the build, whose error even a quiet (``-q``) build reports.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, InclusionLevel
from mkdocs.utils import get_relative_url

from snippets.site import build, download, notebook, pages, sitecheck

log = logging.getLogger("mkdocs.hooks.snippets")


def on_config(config):
    build.start(build.Build.from_env(config.docs_dir))
    return config


def on_files(files, config):
    # The code of this version of the site, for readers to download (linked from the home page).
    # The build's own commit: a tree built from SNIPPETS_COMMIT alone has no git to ask.
    code = download.source_zip(commit=build.current().commit)
    files.append(File.generated(config, download.NAME, content=code,
                                inclusion=InclusionLevel.NOT_IN_NAV))
    return files


def site_links(text: str, page_url: str) -> str:
    """``text`` with each link from ``pages.SITE_ROOT`` made relative to the page served at
    ``page_url`` (``cli/`` from ``speed/`` is ``../cli/``; from the home page, ``cli/``)."""
    return re.sub(re.escape(pages.SITE_ROOT) + r"([^)\"\s]*)",
                  lambda m: get_relative_url(m[1], page_url), text)


def site_sources(markdown: str) -> str:
    """``markdown`` with each link from ``pages.SITE_ROOT`` made a link to the page's source
    (``cli/#x`` is ``cli.md#x``), which MkDocs resolves and checks; every page's source is at
    the top of docs/, so the page's own name is the way to it."""
    return re.sub(re.escape(pages.SITE_ROOT) + r"([\w-]+)/(#[^)\"\s]*)?",
                  lambda m: f"{m[1]}.md{m[2] or ''}", markdown)


def on_page_markdown(markdown, page, config, files):
    # A note a macro placed; hooks run after the plugins, so the macros have run by now.
    return site_sources(markdown)


def on_page_content(html, page, config, files):
    html = site_links(html, page.url)  # a note an exec block printed, now HTML
    if page.file.src_uri != notebook.STORED.name:
        return html

    def url_of(src: str) -> str | None:
        file = files.get_file_from_path(src)
        return None if file is None else get_relative_url(file.url, page.url)

    return notebook.page_html(html, Path(page.file.abs_src_path), url_of)


def on_post_build(config):
    problems = sitecheck.check_site(config.site_dir)
    if problems:
        raise PluginError("the site check failed:\n  " + "\n  ".join(problems))
    log.info("site check: fine")
