"""The HTML report and the site index in a real headless Chromium (Debian's
``chromium`` driven by Playwright), opened from the file system.

Asserted: no console errors, no request but the page itself, every item link
points to a GitHub issue or PR of the repo, the index's links reach files that
exist, the SVG charts are drawn, and a title with a right-to-left override does
not reorder the line it sits on. Screenshots (desktop and phone width) are
saved under tests/artifacts/browser/ (git-ignored) for review.
"""

import shutil
from pathlib import Path

import pytest

from conftest import materialize, report_path, settings_at
from html_helpers import ITEM_LINK
from test_hostile_input import write_bidi_sample

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
    assert len(items) > 140  # (the sample's 💬 lists no item: it has no comment threads)
    bad = [h for h in items if not ITEM_LINK.match(h)]
    assert bad == []
    # any other link is a relative one to our own files (the index, the other language, the Markdown)
    others = page.eval_on_selector_all("a:not(.item)", "els => els.map(e => e.getAttribute('href'))")
    assert others and all(not h.startswith(("http:", "https:", "javascript:", "//")) for h in others)
    # (the hotness chart draws the listed discussions: the sample has no comment threads, so it has none to draw)
    assert page.locator("#chart-hotness svg").count() == 0
    for chart, shape, rows in (("counts", "rect", 5), ("topics", "polyline", 5)):
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
    rows = page.eval_on_selector_all("table.days tbody tr td.d", "els => els.map(e => e.firstChild.textContent.trim())")
    assert rows == ["2026-03-22", "2026-03-21", "2026-03-20"]
    # each day's row says what happened: its headline under the date
    headlines = page.eval_on_selector_all("table.days tbody tr td.d .headline", "els => els.map(e => e.textContent.trim())")
    assert len(headlines) == 3 and all(headlines)
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


# where each word is drawn: the first client rect of the first text range holding it, in the appendix
_PLACES = """words => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const li = [...document.querySelectorAll('#appendix li')].find(l => (l.querySelector('a.ref') || {}).textContent === '#910');
  const walker = document.createTreeWalker(li, NodeFilter.SHOW_TEXT);
  const out = {};
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const w of words) {
      const at = node.data.indexOf(w);
      if (at < 0 || w in out) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + w.length);
      const r = range.getClientRects()[0];
      out[w] = [Math.round(r.top), r.left];
    }
  }
  return out;
}"""


def test_a_right_to_left_override_in_a_title_does_not_reorder_the_line(tmp_path, browser):
    """The appendix line of a title carrying an unterminated U+202E: its words, then our labels, the
    author and the time, drawn left to right in the order they are written."""
    write_bidi_sample(tmp_path / "sample")
    settings = settings_at(tmp_path / "home", VLLM_DIGEST_SAMPLE_DIR=str(tmp_path / "sample"))
    materialize(settings, DAY)
    page, url, seen = _open(browser, report_path(settings, DAY, "en.html"))
    _assert_quiet(url, seen)
    words = ["ROCm", "detaerc", "yb", "flaky-ci", "— by", "m4llory", "created"]
    places = page.evaluate(_PLACES, words)
    assert sorted(places) == sorted(words), places
    for before, after in zip(words, words[1:]):
        (top_a, left_a), (top_b, left_b) = places[before], places[after]
        # on the same line (the meta span's smaller font sits a few pixels lower): further right;
        # otherwise on a later line
        assert (abs(top_b - top_a) <= 8 and left_b > left_a) or top_b > top_a + 8, (before, after, places)
    page.close()
