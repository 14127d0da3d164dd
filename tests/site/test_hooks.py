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
