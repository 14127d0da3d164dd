from __future__ import annotations

from snippets.site import hooks, pages


def test_a_link_from_the_site_root_is_made_relative_to_the_page_it_lands_on() -> None:
    note = pages.no_run_yet("bench", "cuda")
    assert "](../" not in hooks.site_links(note, "")  # the home page: no way back to take
    assert "](cli/#python-m-snippetsbench)" in hooks.site_links(note, "")
    assert "](../cli/#python-m-snippetsbench)" in hooks.site_links(note, "speed/")
    html = f'<a href="{pages.SITE_ROOT}cli/">'
    assert hooks.site_links(html, "zoo/") == '<a href="../cli/">'
    assert hooks.site_links("no link here", "zoo/") == "no link here"


def test_a_note_placed_in_markdown_links_the_page_source_for_mkdocs_to_resolve() -> None:
    note = pages.no_run_yet("bench-ladder", "cuda")
    assert "](cli.md#python-m-snippetsspeed)" in hooks.site_sources(note)
    assert hooks.site_sources(f"[all]({pages.SITE_ROOT}cli/)") == "[all](cli.md)"
