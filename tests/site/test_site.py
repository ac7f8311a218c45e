"""The site: index.html and feed.xml over every day on disk, newest first.

The feed is read back with xml.etree as Atom 1.0: its namespace, unique stable
ids, RFC 3339 dates and links to files that exist. A malformed day summary
stops the build with its path and leaves the previous site in place.
"""

import json
import re
import xml.etree.ElementTree as ET

import pytest

from vllm_digest.testing.pipeline import ROOT, materialize, report_path, settings_at
from tests.html_helpers import Page, assert_links_sound, local_target

ATOM = "{http://www.w3.org/2005/Atom}"
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$")
DAYS = ["2026-03-22", "2026-03-21", "2026-03-20"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    settings = settings_at(tmp_path_factory.mktemp("home"))
    # two runs: the site of the second must still list the first run's days
    materialize(settings, "2026-03-20", "2026-03-21")
    materialize(settings, "2026-03-22")
    return settings


def test_feed_is_atom(site):
    path = site.site_dir / "feed.xml"
    root = ET.parse(path).getroot()
    assert root.tag == f"{ATOM}feed"
    assert root.find(f"{ATOM}title").text == "vLLM development digest"
    assert root.find(f"{ATOM}id").text.startswith("urn:uuid:")
    assert root.find(f"{ATOM}author/{ATOM}name").text
    entries = root.findall(f"{ATOM}entry")
    assert len(entries) == 3
    ids = [e.find(f"{ATOM}id").text for e in entries]
    assert len(set(ids) | {root.find(f"{ATOM}id").text}) == 4
    assert all(re.fullmatch(r"urn:uuid:[0-9a-f-]{36}", i) for i in ids)
    updated = [e.find(f"{ATOM}updated").text for e in entries]
    assert all(RFC3339.match(u) for u in updated + [root.find(f"{ATOM}updated").text])
    # newest first; a day's entry is updated at the end of its window
    assert updated == ["2026-03-23T11:39:00+08:00", "2026-03-22T11:39:00+08:00", "2026-03-21T11:39:00+08:00"]
    assert root.find(f"{ATOM}updated").text == updated[0]
    first = entries[0]
    assert first.find(f"{ATOM}title").text.startswith("vLLM 2026-03-22: 10 new issues, 10 closed, 48 new PRs, 21 merged")
    links = first.findall(f"{ATOM}link")
    assert {(link.get("rel"), link.get("hreflang")) for link in links} == {("alternate", "zh"), ("alternate", "en")}
    for entry in entries:
        for link in entry.findall(f"{ATOM}link"):
            target = local_target(path, link.get("href"))
            assert target is not None and target.is_file(), link.get("href")
            assert target.name.endswith(f".{link.get('hreflang')}.html")
    content = Page(first.find(f"{ATOM}content").text)
    # the hottest discussions: the sample has no comment threads, so 💬 lists none and the entry names no item
    assert content.hrefs() == []


def test_site_files_are_readable_by_a_web_server(site):
    # atomic writes go through mkstemp, whose files are private unless we say otherwise
    for path in (site.site_dir / "index.html", site.site_dir / "feed.xml", report_path(site, "2026-03-22", "zh.html")):
        assert path.stat().st_mode & 0o777 == 0o644, path


def test_feed_ids_stable_across_rebuilds(site):
    from vllm_digest.site.build import build_site

    before = (site.site_dir / "feed.xml").read_bytes()
    build_site(site)
    assert (site.site_dir / "feed.xml").read_bytes() == before


def test_index_lists_every_day_newest_first(site):
    path = site.site_dir / "index.html"
    page = assert_links_sound(path)
    text = path.read_text(encoding="utf-8")
    # each day's cell: the day, then its headline when the day told a story
    rows = re.findall(r'<tr><td class="d">(\d{4}-\d\d-\d\d)(?:<div class="headline">[^<]*</div>)?</td>((?:<td>\d+</td>){5})',
                      text)
    assert [day for day, _ in rows] == DAYS
    for day, cells in rows:
        counts = json.loads(report_path(site, day, "json").read_text(encoding="utf-8"))["counts"]
        assert [int(c) for c in re.findall(r"\d+", cells)] == list(counts.values())
    pages = [h for h in page.hrefs() if h.endswith(".html")]
    assert pages[:2] == ["../reports/vllm-project/vllm/2026-03-22.zh.html", "../reports/vllm-project/vllm/2026-03-22.en.html"]
    assert len(pages) == 6
    assert "feed.xml" in page.hrefs()
    assert Page(text.split('id="chart-counts"', 1)[1]).count("rect") > 5


def test_report_pages_link_back_to_the_index(site):
    page = Page(report_path(site, "2026-03-21", "zh.html").read_text(encoding="utf-8"))
    assert page.hrefs()[:3] == ["../../../site/index.html", "2026-03-21.en.html", "2026-03-21.zh.md"]
    assert_links_sound(report_path(site, "2026-03-21", "en.html"))


def test_bad_day_summary_is_named_and_loses_nothing(make_settings):
    from vllm_digest.site.build import build_site
    from vllm_digest.site.catalog import SiteInputError

    settings = make_settings()
    materialize(settings, "2026-03-22")
    before = {n: (settings.site_dir / n).read_bytes() for n in ("index.html", "feed.xml")}
    bad = report_path(settings, "2026-03-22", "json")
    doc = json.loads(bad.read_text(encoding="utf-8"))
    doc["counts"]["merged_prs"] = "many"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(SiteInputError, match=r"2026-03-22\.json: counts\.merged_prs is not a count \(found 'many'\)"):
        build_site(settings)
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(SiteInputError, match=r"2026-03-22\.json: not a readable JSON day summary"):
        build_site(settings)
    assert {n: (settings.site_dir / n).read_bytes() for n in before} == before
    assert sorted(p.name for p in settings.site_dir.iterdir()) == ["feed.xml", "index.html"]


def test_site_url_makes_the_feed_links_absolute(site):
    import dataclasses
    from urllib.parse import urljoin

    from vllm_digest.site.feed import atom_feed
    from vllm_digest.site.catalog import catalog

    published = dataclasses.replace(site, site_url="https://digest.example.org/vllm/site/")
    days = [d for repo_days in catalog(published).values() for d in repo_days]
    root = ET.fromstring(atom_feed(published, days))
    base = root.get("{http://www.w3.org/XML/1998/namespace}base")
    assert base == "https://digest.example.org/vllm/site/"
    entry = root.findall(f"{ATOM}entry")[0]
    zh = next(link.get("href") for link in entry.findall(f"{ATOM}link") if link.get("hreflang") == "zh")
    assert urljoin(base, zh) == "https://digest.example.org/vllm/reports/vllm-project/vllm/2026-03-22.zh.html"
    self_link = next(link.get("href") for link in root.findall(f"{ATOM}link") if link.get("rel") == "self")
    assert urljoin(base, self_link) == "https://digest.example.org/vllm/site/feed.xml"


def test_site_url_must_be_http(make_settings):
    from vllm_digest.core.config.values import SettingsError
    with pytest.raises(SettingsError, match="site URL 'digest.example.org' is not an http"):
        make_settings(VLLM_DIGEST_SITE_URL="digest.example.org")
    assert make_settings(VLLM_DIGEST_SITE_URL="https://d.example.org/s").site_url == "https://d.example.org/s/"


def test_empty_site_is_valid(make_settings):
    from vllm_digest.site.build import build_site

    settings = make_settings()
    built = build_site(settings)
    assert (built.days, built.newest_day) == (0, None)
    root = ET.parse(built.feed).getroot()
    assert root.findall(f"{ATOM}entry") == [] and RFC3339.match(root.find(f"{ATOM}updated").text)
    assert "还没有生成任何日报。" in built.index.read_text(encoding="utf-8")
    assert "feed.xml" in Page(built.index.read_text(encoding="utf-8")).hrefs()


def test_the_site_renders_its_own_templates_and_only_the_reports_partials():
    """The site's pages live in site/templates/; of the report's templates it reaches only the shared
    partials (a leading underscore), through report/render.py, never a page of the report's own."""
    import jinja2

    from vllm_digest.site.pages import render_page

    site_templates = {p.name for p in (ROOT / "vllm_digest" / "site" / "templates").iterdir()}
    assert {"site_index.html.j2", "feed_entry.html.j2"} <= site_templates
    assert not site_templates & {p.name for p in (ROOT / "vllm_digest" / "report" / "templates").iterdir()}
    for page in ("report.html.j2", "weekly.html.j2"):
        with pytest.raises(jinja2.TemplateNotFound):
            render_page(page)
    entry = render_page("feed_entry.html.j2", summaries=[{"lang": "x", "text": "<b>"}], hot=[])
    assert entry == '<p lang="x">&lt;b&gt;</p>\n'
