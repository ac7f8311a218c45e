"""The HTML of a line given as parts (model.parts_html, printed whole by _blocks.html.j2): a quote in <bdi>,
a link of ours to its HTML address, every piece escaped."""

from vllm_digest.report.day.model import Item, Link, Quote, Section, parts_html


def test_parts_html_escapes_each_part_and_isolates_quotes():
    parts = ("by ", Quote('<b>"mallory"</b>'), " · merged & ", Link("2026-03-20", "2026-03-20.en.md", "2026-03-20.en.html?a=1&b=2"))
    assert parts_html(parts) == (
        'by <bdi>&lt;b&gt;&#34;mallory&#34;&lt;/b&gt;</bdi> · merged &amp; '
        '<a href="2026-03-20.en.html?a=1&amp;b=2">2026-03-20</a>')
    item = Item(7, "pr", "PR #7", "https://github.com/o/r/pull/7", "t", meta_parts=parts)
    assert item.meta_html == parts_html(parts) and item.meta == 'by <b>"mallory"</b> · merged & 2026-03-20'
    section = Section("summary", "📊", "Summary", "mart_daily_counts", "", lead_parts=(Quote("\u202eevil"),))
    assert section.lead_html == "<bdi>\u202eevil</bdi>"
    assert parts_html(()) == ""
