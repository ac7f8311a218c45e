"""The HTML report and the site index in a real headless Chromium (Debian's
``chromium`` driven by Playwright), opened from the file system.

Asserted: no console errors, no request but the page itself, every item link
points to a GitHub issue or PR of the repo, the index's links reach files that
exist, and the SVG charts are drawn. Screenshots (desktop and phone width) are
saved under tests/artifacts/browser/ (git-ignored) for review.
"""

import shutil
from pathlib import Path

import pytest

from conftest import materialize, report_path, settings_at
from html_helpers import ITEM_LINK

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "browser"
DAY = "2026-03-22"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    settings = settings_at(tmp_path_factory.mktemp("home"))
    materialize(settings, "2026-03-20", DAY)
    return settings


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (Debian package `chromium`; `make test` installs it when root)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def _open(browser, path: Path, viewport=None):
    """Load a file:// page, recording console messages, page errors and every request."""
    page = browser.new_page(viewport=viewport or {"width": 1000, "height": 900})
    seen = {"console": [], "errors": [], "requests": []}
    page.on("console", lambda m: seen["console"].append((m.type, m.text)))
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    page.on("request", lambda r: seen["requests"].append(r.url))
    url = path.resolve().as_uri()
    page.goto(url, wait_until="load")
    return page, url, seen


def _assert_quiet(url, seen):
    assert [m for m in seen["console"] if m[0] in ("error", "warning")] == []
    assert seen["errors"] == []
    assert seen["requests"] == [url], "the page fetched something besides itself"


def _shot(page, name: str):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(target), full_page=True)
    assert target.stat().st_size > 10_000
    return target


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_report_in_chromium(home, browser, lang):
    path = report_path(home, DAY, f"{lang}.html")
    page, url, seen = _open(browser, path)
    _assert_quiet(url, seen)
    items = page.eval_on_selector_all("a.item", "els => els.map(e => e.getAttribute('href'))")
    assert len(items) > 150
    bad = [h for h in items if not ITEM_LINK.match(h)]
    assert bad == []
    # any other link is a relative one to our own files (the index, the other language, the Markdown)
    others = page.eval_on_selector_all("a:not(.item)", "els => els.map(e => e.getAttribute('href'))")
    assert others and all(not h.startswith(("http:", "https:", "javascript:", "//")) for h in others)
    for chart, shape, rows in (("counts", "rect", 5), ("topics", "polyline", 5), ("hotness", "rect", 5)):
        svgs = page.locator(f"#chart-{chart} svg")
        assert svgs.count() == rows, chart
        drawn = page.eval_on_selector_all(f"#chart-{chart} svg {shape}:not(.track)", "els => els.length")
        assert drawn >= rows, chart
        box = svgs.first.bounding_box()
        assert box["width"] > 200 and box["height"] > 10, (chart, box)
    # the five header counts, as the day's JSON has them
    assert page.eval_on_selector_all(".stat strong", "els => els.map(e => e.textContent)") == ["10", "10", "48", "21", "15"]
    _shot(page, f"report-{DAY}.{lang}")
    page.close()


def test_report_fits_a_phone(home, browser):
    page, url, seen = _open(browser, report_path(home, DAY, "zh.html"), viewport=PHONE)
    _assert_quiet(url, seen)
    # nothing wider than the screen: no horizontal scrolling on a phone
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    _shot(page, f"report-{DAY}.zh.phone")
    page.close()


def test_index_in_chromium(home, browser):
    path = home.site_dir / "index.html"
    page, url, seen = _open(browser, path)
    _assert_quiet(url, seen)
    rows = page.eval_on_selector_all("table.days tbody tr td.d", "els => els.map(e => e.textContent.trim())")
    assert rows == ["2026-03-22", "2026-03-21", "2026-03-20"]
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    files = sorted({h for h in hrefs if h.startswith("file://") and "#" not in h})
    assert len(files) == 7  # two languages for three days, and the feed
    for href in files:
        assert Path(href.removeprefix("file://")).is_file(), href
    assert [h for h in hrefs if not h.startswith("file://")] == []
    drawn = page.eval_on_selector_all("#chart-counts svg rect:not(.track)", "els => els.length")
    assert drawn == 15  # five counts, three days
    _shot(page, "site-index")
    page.goto(next(h for h in hrefs if h.endswith(".html")))  # follow the newest day's first link
    assert page.title() == f"vLLM 开发动态报告 - {DAY}"
    page.close()
