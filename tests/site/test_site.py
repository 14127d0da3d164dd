"""The site: built strictly from a real CPU run, checked, broken on purpose, and read in a browser.

Every build is ``mkdocs build --strict`` in a subprocess, on a copy of the site's sources in a
temporary folder (``tests/site/builds.py``), so a failure is an exit code and the checkout is never
touched. The site is the one deployed with mike (``conftest.deployed``), and the browser reads it
as a reader of the published site would, under ``latest/``; the planted failures build in
parallel.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from snippets.core import folders
from snippets.site import agree, figures, reading, sitecheck
from tests import cli_run
from tests.site.builds import Deployment, finish, site_copy, start_build

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SEARCH_WORD = "interleaved"  # said on the benchmark page, and on no other
PHONE = {"width": 390, "height": 844}
# The pages with results tables or code, checked for clipping at both widths.
READ_PAGES = ("", "benchmark/", "zoo/", "cuda-graphs/", "cpu/", "noise/", "speed/",
              "speed-freezing/", "speed-autotuning/", "speed-settings/", "graph-breaks/", "dynamic-shapes/", "glossary/",
              "when-not-to-compile/", "debugging/", "production/", "training/", "scale/",
              "generation/", "diagnose/", "run-it-yourself/", "results/", "cli/", "contributing/")
# Every table and code block whose content is wider than its box, in every tab of the page: each
# tab of a tabbed block (a GPU run beside a CPU one, say) is opened in turn and the page looked at
# again, then the tabs first shown are shown again. A table or code in a closed <details> (the
# detail block that holds the columns a reader rarely needs) is not visible and not counted.
CLIPPED = """() => {
  const out = new Set();
  const visible = (el) => el.offsetParent !== null && !el.closest('details:not([open])');
  const tab = (el) => {
    const block = el.closest('.tabbed-block');
    if (!block) return '';
    const set = block.closest('.tabbed-set');
    const i = [...set.querySelector('.tabbed-content').children].indexOf(block);
    return ` (tab "${set.querySelectorAll('.tabbed-labels > label')[i]?.innerText}")`;
  };
  const look = () => {
    document.querySelectorAll('.md-content table').forEach((t) => {
      const box = t.closest('.md-typeset__scrollwrap') || t.parentElement;
      if (visible(t) && t.scrollWidth > box.clientWidth + 1)
        out.add(`table "${t.querySelector('th')?.innerText}"${tab(t)} ${t.scrollWidth} > ` +
                `${box.clientWidth}`);
    });
    document.querySelectorAll('.md-content pre > code').forEach((c) => {
      const first = c.innerText.split('\\n')[0].slice(0, 60);
      if (visible(c) && c.scrollWidth > c.clientWidth + 1)
        out.add(`code "${first}"${tab(c)} ${c.scrollWidth} > ${c.clientWidth}`);
    });
  };
  const shown = [...document.querySelectorAll('.tabbed-set > input:checked')];
  look();
  document.querySelectorAll('.tabbed-set > input').forEach((input) => {
    input.click();
    look();
  });
  shown.forEach((input) => input.click());
  return [...out];
}"""


@pytest.fixture(scope="module")
def site(deployed: Deployment) -> Path:
    """The current version of the deployment (``conftest.deployed``): the site built strictly
    from the repository's recorded runs plus a real small CPU run."""
    return deployed.root / deployed.current


def test_build_passes_the_site_check(site: Path) -> None:
    assert sitecheck.check_site(site) == []
    assert sitecheck.main([str(site)]) == 0


def test_every_shown_ratio_agrees_with_the_medians_shown_beside_it(site: Path) -> None:
    assert agree.disagreements(site) == []


def test_every_configuration_has_one_headline_figure_across_the_pages(site: Path) -> None:
    stated = figures.stated(site)
    # the home page states the canonical figures, and another page states some of them too
    pages = {s.page for s in stated}
    assert "index.html" in pages and len(pages) >= 2
    assert figures.disagreements(site) == []


def test_benchmark_page_shows_the_cpu_run_stamped(site: Path) -> None:
    text = (site / "benchmark" / "index.html").read_text()
    assert '<div class="results">' in text and "<table>" in text
    assert '<p class="stamp">recorded: CPU: ' in text
    assert "--8&lt;--" not in text  # every section marker was replaced by its code
    assert '<span class="nf">compare</span>' in text  # the harness, shown whole
    gpu = folders.newest(ROOT / "docs" / "results", "bench", "cuda")
    assert gpu is not None  # the GPU section shows the committed H200 run, stamped as such
    assert f'<p class="stamp">recorded: {gpu["provenance"]["device"]}' in text


def test_results_page_links_every_raw_file(site: Path) -> None:
    text = (site / "results" / "index.html").read_text()
    for path in (site / "results").glob("*/*.json"):
        assert f'href="{path.parent.name}/{path.name}"' in text
    assert list((site / "results").glob("*_site-test/bench.json"))


def test_sitecheck_finds_what_it_should() -> None:
    stamped = '<div class="results"><table><tr><th>Speedup</th></tr></table>' \
              '<p class="stamp">recorded: NVIDIA H200</p></div>'
    assert sitecheck.check_html(stamped) == []
    bare = "<table><tr><th>Model</th><th>Median ms</th></tr></table>"
    (table,) = sitecheck.check_html(bare)  # one problem, naming the measured column
    assert table.startswith("unstamped results table") and "Median ms" in table
    (block,) = sitecheck.check_html('<div class="results"><table></table></div>')
    assert block.startswith("unstamped results block")
    trace = '<pre><span class="n">Traceback</span> <span class="p">(</span>most recent call ' \
            'last<span class="p">):</span></pre>'
    (raised,) = sitecheck.check_html(trace)
    assert raised.startswith("traceback")
    assert sitecheck.check_html("<table><tr><th>Variable</th></tr></table>") == []


def test_sitecheck_follows_links_to_pages_anchors_and_downloads(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<h2 id="here">A</h2><a name="old"></a>')
    (tmp_path / "file.zip").write_bytes(b"")
    links = ["a/", "a/#here", "a/index.html#old", "#top", "file.zip", "file.zip#x",
             "https://elsewhere.example/#nothing"]
    (tmp_path / "index.html").write_text('<p id="top"></p>' + "".join(
        f'<a href="{link}">x</a>' for link in links))
    assert sitecheck.check_site(tmp_path) == []
    (tmp_path / "index.html").write_text('<a href="a/#gone">x</a><a href="#gone">y</a>'
                                         '<a href="none.zip">z</a><a href="../up/">w</a>')
    assert sorted(_link_problem(p) for p in sitecheck.check_site(tmp_path)) == [
        ("index.html", "#gone", "anchor"), ("index.html", "../up/", "nowhere"),
        ("index.html", "a/#gone", "anchor"), ("index.html", "none.zip", "nowhere")]


def _link_problem(problem: str) -> tuple[str, str, str]:
    """A broken link as check_site names it: (the page, the link, ``anchor`` where the page it
    leads to has no such anchor or ``nowhere`` where it leads to no file)."""
    page, said = problem.split(": ", 1)
    wrong = ("anchor" if said.startswith("missing anchor") else
             "nowhere" if said.startswith("broken link") else said)
    return page, said.split("'")[1], wrong


def test_sitecheck_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli_run.assert_one_line_error(*cli_run.run(sitecheck.main, capsys, str(tmp_path)),
                                  "no built site", prog=sitecheck.PROG)
    cli_run.assert_one_line_error(*cli_run.run(sitecheck.main, capsys, "--nope"), "--nope",
                                  prog=sitecheck.PROG)


# ---- planted failures: each must fail the build, for its own reason --------------------------

RAISING = '\n```python exec="on"\nraise RuntimeError("planted failure")\n```\n'
PLANTS = {
    # name: (text appended to a page, build flags, what the output must say)
    "exec-raises": (RAISING, (), "Execution of python code block"),
    "exec-raises-quiet": (RAISING, ("-q",), "the site check failed"),
    "missing-section": ('\n```python\n--8<-- "snippets/bench/__init__.py:no-such-section"'
                        '\n```\n', (), "no-such-section"),
    "broken-link": ("\n[nowhere](no-such-page.md)\n", (), "no-such-page.md"),
    "unstamped-table": ("\n| Model | Median ms |\n|---|--:|\n| m | 1 |\n", (),
                        "unstamped results table"),
    # MkDocs checks the anchors of the links it rewrites; the site check, those an exec block
    # printed, and the downloads.
    "broken-anchor": ("\n[nowhere](benchmark.md#no-such-heading)\n", (), "no-such-heading"),
    "exec-broken-anchor": ('\n```python exec="on"\nprint("[x](../benchmark/#no-such-heading)")'
                           '\n```\n', (), "missing anchor '../benchmark/#no-such-heading'"),
    "exec-broken-download": ('\n```python exec="on"\nprint("[zip](../download/none.zip)")'
                             '\n```\n', (), "broken link '../download/none.zip'"),
}


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory, site: Path) -> dict[str, tuple[int, str]]:
    # After the main build (``site``): its plots are drawn, so these builds only read and render.
    procs = {}
    for name, (text, flags, _) in PLANTS.items():
        src = site_copy(tmp_path_factory.mktemp(name))
        page = src / "docs" / "training.md"
        page.write_text(page.read_text() + text)
        procs[name] = start_build(src, *flags)
    return {name: finish(proc) for name, proc in procs.items()}


@pytest.mark.parametrize("name", list(PLANTS))
def test_planted_failure_fails_the_build(planted: dict[str, tuple[int, str]], name: str) -> None:
    code, out = planted[name]
    assert code != 0, f"{name}: the build passed\n{out[-3000:]}"
    assert PLANTS[name][2] in out, out[-3000:]


def test_a_site_without_gpu_runs_builds_and_says_where_they_are_recorded(
        tmp_path_factory: pytest.TempPathFactory, site: Path) -> None:
    # A fork measured on CPUs alone: every GPU section is the "no recorded run" note, whose
    # links the site check follows from each page (the home page's has no way back to take).
    # After the main build (``site``), as the planted builds are.
    src = site_copy(tmp_path_factory.mktemp("no-gpu"))
    for folder in (src / "docs" / "results").glob("nvidia-*"):
        shutil.rmtree(folder)
    code, out = finish(start_build(src))
    assert code == 0, out[-3000:]
    home = (src / "site" / "index.html").read_text()
    assert 'href="cli/#python-m-snippetsbench"' in home
    assert 'href="../cli/#python-m-snippetsbench"' in (src / "site" / "benchmark" /
                                                        "index.html").read_text()


# ---- in a browser ------------------------------------------------------------------------------

@dataclass
class Browsing:
    page: Any  # playwright's Page, at desktop width
    phone: Any  # a second Page, 390 px wide, dark
    base: str  # the URL of the latest version, as a reader of the published site opens it
    root: str  # the URL of the deployment's root, where every version is a folder
    errors: list[str]  # console errors, uncaught exceptions and failed requests, as they happen


@pytest.fixture(scope="module")
def browser_page(deployed: Deployment):
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing; CI must install Debian's chromium")
        pytest.skip(f"{CHROMIUM} is missing")
    sync_api = pytest.importorskip("playwright.sync_api")
    with socket.socket() as s:  # a free port on the loopback interface
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
         "--directory", str(deployed.root)], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.1)
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                errors: list[str] = []
                page.on("console", lambda m: m.type == "error" and errors.append(
                    f"{page.url}: console: {m.text}"))
                page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
                page.on("response", lambda r: r.status >= 400 and errors.append(
                    f"{page.url}: HTTP {r.status} for {r.url}"))
                phone = browser.new_page(viewport=PHONE, color_scheme="dark")
                root = f"http://127.0.0.1:{port}/"
                yield Browsing(page, phone, root + "latest/", root, errors)
            finally:
                browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_home_and_benchmark_render(browser_page: Browsing) -> None:
    page, base = browser_page.page, browser_page.base
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(base)
    assert page.locator("h1").first.inner_text().startswith("torch.compile in Practice")
    page.screenshot(path=str(ARTIFACTS / "home.png"), full_page=True)
    page.goto(base + "benchmark/")
    table = page.locator(".results table").first
    table.wait_for()
    assert table.is_visible()
    stamps = page.locator(".results .stamp").all_inner_texts()
    assert any(s.startswith("recorded: CPU: ") for s in stamps), stamps
    gpu = folders.newest(ROOT / "docs" / "results", "bench", "cuda")
    assert any(s.startswith(f"recorded: {gpu['provenance']['device']}") for s in stamps)
    page.locator("#results-on-a-cpu").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "benchmark.png"), full_page=True)


def test_search_finds_a_word_from_the_benchmark_page(browser_page: Browsing) -> None:
    page = browser_page.page
    page.goto(browser_page.base)
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially(SEARCH_WORD, delay=20)  # search runs on key events; fill() sends none
    hit = page.locator(".md-search-result__item a[href*='benchmark']").first
    hit.wait_for(timeout=15_000)
    page.screenshot(path=str(ARTIFACTS / "search.png"))


def test_no_page_logs_an_error(browser_page: Browsing, site: Path) -> None:
    page, errors = browser_page.page, browser_page.errors
    errors.clear()
    urls = sorted(p.parent.relative_to(site).as_posix() for p in site.rglob("index.html"))
    assert len(urls) >= 10
    for url in urls:
        page.goto(browser_page.base + ("" if url == "." else url + "/"))
        page.wait_for_load_state("networkidle")
    assert errors == []


@pytest.mark.parametrize("url", READ_PAGES)
def test_nothing_is_cut_off_at_desktop_width(browser_page: Browsing, url: str) -> None:
    page = browser_page.page
    page.goto(browser_page.base + url)
    assert page.evaluate(CLIPPED) == []


# Every visible results table whose right edge passes the content column (the article, less its
# padding), by how many pixels: a table grows to fit its cells, past its scroll box's margin and
# into the side column, without being clipped.
PAST_THE_COLUMN = """() => {
  const column = document.querySelector('.md-content__inner');
  const right = column.getBoundingClientRect().right
    - parseFloat(getComputedStyle(column).paddingRight);
  return [...document.querySelectorAll('.md-content .results table')]
    .filter((t) => t.offsetParent !== null && !t.closest('details:not([open])'))
    .map((t) => [t.querySelector('th')?.innerText, Math.round(t.getBoundingClientRect().right
                                                             - right)])
    .filter(([, over]) => over > 0);
}"""
# Each visible results table at the phone's width: whether it scrolls sideways, and whether the
# hint that says so (docs/js/tables.js, docs/css/site.css) is shown above it.
SCROLL_HINTS = """() => [...document.querySelectorAll('.md-content .results table')]
  .filter((t) => t.offsetParent !== null && !t.closest('details:not([open])'))
  .map((t) => {
    const box = t.closest('.md-typeset__scrollwrap');
    const hint = getComputedStyle(box, '::before').content;
    return {head: t.querySelector('th')?.innerText, scrolls: box.scrollWidth > box.clientWidth + 1,
            hint: hint !== 'none' && hint !== 'normal' && hint.includes('Scroll')};
  })"""


@pytest.mark.parametrize("url", READ_PAGES)
def test_no_results_table_passes_the_content_column_at_desktop_width(browser_page: Browsing,
                                                                     url: str) -> None:
    page = browser_page.page
    page.goto(browser_page.base + url)
    assert page.evaluate(PAST_THE_COLUMN) == []


@pytest.mark.parametrize("url", READ_PAGES)
def test_on_a_phone_a_table_that_scrolls_says_so(browser_page: Browsing, url: str) -> None:
    phone = browser_page.phone
    phone.goto(browser_page.base + url)
    tables = phone.evaluate(SCROLL_HINTS)
    assert [t["head"] for t in tables if t["scrolls"] != t["hint"]] == []


def test_a_wide_table_scrolls_on_a_phone_with_its_label_stuck(browser_page: Browsing) -> None:
    """The speed ladder's table is wider than a phone: it scrolls, says so, and its row labels'
    cells are sticky at the left edge."""
    phone = browser_page.phone
    phone.goto(browser_page.base + "speed/")
    assert any(t["scrolls"] and t["hint"] for t in phone.evaluate(SCROLL_HINTS))
    positions = phone.evaluate("""() => [...document.querySelectorAll('.results table')]
      .filter((t) => t.offsetParent !== null)
      .map((t) => getComputedStyle(t.querySelector('td:first-child')).position)""")
    assert positions and set(positions) == {"sticky"}


@pytest.mark.parametrize("url", READ_PAGES)
def test_on_a_phone_code_wraps_and_row_labels_stay_in_view(browser_page: Browsing,
                                                           url: str) -> None:
    phone = browser_page.phone
    phone.goto(browser_page.base + url)
    # Code wraps on a phone; a table may be wider than the screen, but then it scrolls and its
    # first column (the row label) stays at the left edge of the scrolled box.
    assert [c for c in phone.evaluate(CLIPPED) if c.startswith("code")] == []
    stuck = phone.evaluate("""() => [...document.querySelectorAll('.results table')]
      .filter((t) => t.offsetParent !== null && !t.closest('details:not([open])'))
      .map((t) => {
        const box = t.closest('.md-typeset__scrollwrap') || t.parentElement;
        box.scrollLeft = box.scrollWidth;
        const label = t.querySelector('td:first-child, th:first-child').getBoundingClientRect();
        return label.left >= box.getBoundingClientRect().left - 1;
      })""")
    assert all(stuck)


def test_phone_screenshot_shows_the_benchmark_numbers(browser_page: Browsing) -> None:
    phone = _open(browser_page, "phone", "dark", browser_page.base + "benchmark/")
    table = phone.locator(".results table").first
    table.scroll_into_view_if_needed()
    first_row = [c.inner_text() for c in table.locator("tbody tr").first.locator("td").all()]
    median = table.locator("tbody tr").first.locator("td").nth(1).bounding_box()
    assert median["x"] + median["width"] <= PHONE["width"]  # the first number is on screen
    assert first_row[1] not in ("", "–")
    ARTIFACTS.mkdir(exist_ok=True)
    phone.screenshot(path=str(ARTIFACTS / "benchmark-phone-dark.png"))


# ---- versions and plots, light and dark, at both widths ---------------------------------------

SCREENS = [(width, scheme) for width in ("desktop", "phone") for scheme in ("light", "dark")]


def _open(browsing: Browsing, width: str, scheme: str, url: str) -> Any:
    """``url`` at that width in that colour scheme, as a reader whose system asks for it sees it
    on a first visit: the theme keeps the last palette it showed, so that is forgotten first."""
    page = browsing.page if width == "desktop" else browsing.phone
    page.emulate_media(color_scheme=scheme)
    page.goto(url)
    page.evaluate("() => localStorage.clear()")
    page.reload()
    return page


@pytest.mark.parametrize(("width", "scheme"), SCREENS)
def test_the_version_selector_lists_both_versions(browser_page: Browsing,
                                                  deployed: Deployment, width: str,
                                                  scheme: str) -> None:
    page = _open(browser_page, width, scheme, browser_page.base)
    current = page.locator(".md-version__current")
    current.wait_for()
    assert current.inner_text().startswith(deployed.current)
    current.focus()  # the list opens on focus, as for a keyboard (and on hover)
    items = page.locator(".md-version__list .md-version__link")
    items.first.wait_for()
    assert [i.strip() for i in items.all_inner_texts()][1].startswith(deployed.older)
    assert page.locator("[data-md-component=outdated]").is_hidden()
    page.wait_for_timeout(500)  # the list fades in: the screenshot shows it once it has
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"versions-{width}-{scheme}.png"))


def test_an_older_version_says_so_and_leads_to_the_latest(browser_page: Browsing,
                                                          deployed: Deployment) -> None:
    page = _open(browser_page, "desktop", "light", f"{browser_page.root}{deployed.older}/")
    banner = page.locator("[data-md-component=outdated]")
    banner.wait_for()
    assert "older version" in banner.inner_text()
    page.screenshot(path=str(ARTIFACTS / "versions-outdated.png"))
    banner.locator("a").click()
    page.wait_for_url(f"{browser_page.base}**")  # the root redirects to latest/


@pytest.mark.parametrize(("width", "scheme"), SCREENS)
def test_the_benchmark_plot_reads_in_both_schemes(browser_page: Browsing, width: str,
                                                  scheme: str) -> None:
    page = _open(browser_page, width, scheme, browser_page.base + "benchmark/")
    plot = page.locator("figure.plot svg").first
    plot.scroll_into_view_if_needed()
    assert plot.get_attribute("role") == "img" and plot.get_attribute("aria-label")
    box = plot.bounding_box()
    assert box["width"] <= page.viewport_size["width"]  # scaled to the column, never cut off
    # drawn in the page's text colour: dark on the light scheme, light on the dark one
    color = page.evaluate("(el) => getComputedStyle(el).color", plot.element_handle())
    level = sum(int(c) for c in color[color.index("(") + 1:-1].split(",")[:3])
    assert (level < 255) if scheme == "light" else (level > 255 * 2)
    page.evaluate("(el) => { el.closest('figure').scrollIntoView({block: 'start'}); "
                  "window.scrollBy(0, -64); }", plot.element_handle())  # below the header
    page.wait_for_timeout(500)  # the header swaps its title as the page scrolls: let it settle
    page.screenshot(path=str(ARTIFACTS / f"plot-{width}-{scheme}.png"))


def test_every_topic_page_reads_within_its_budgets(site: Path) -> None:
    """What to do on the first screen, a page a reader can finish, sentences an editor keeps
    (``snippets.site.reading``)."""
    over = {r.page: r.over() for r in reading.readings(site) if r.over()}
    assert over == {}
