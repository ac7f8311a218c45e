"""Read our HTML pages back with the standard library's parser: links, tags, text."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

ITEM_LINK = re.compile(r"^https://github\.com/vllm-project/vllm/(issues|pull)/\d+$")


class Page(HTMLParser):
    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def hrefs(self, cls: str | None = None) -> list[str]:
        return [
            a["href"] for tag, a in self.tags
            if tag == "a" and "href" in a and (cls is None or cls in (a.get("class") or "").split())
        ]

    def count(self, tag: str) -> int:
        return sum(1 for t, _ in self.tags if t == tag)

    def attribute_values(self) -> list[str]:
        return [v or "" for _, attrs in self.tags for v in attrs.values()]


def local_target(page: Path, href: str) -> Path | None:
    """The file a relative link of ``page`` points to, or None for an absolute URL or an anchor."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    return (page.parent / parts.path).resolve()


def assert_links_sound(page: Path) -> Page:
    """Every link is one of our GitHub item links or a relative link to a file that exists."""
    parsed = Page(page.read_text(encoding="utf-8"))
    hrefs = parsed.hrefs()
    assert hrefs, f"{page} has no links"
    for href in hrefs:
        if href.startswith("#"):
            continue
        target = local_target(page, href)
        if target is None:
            assert ITEM_LINK.match(href), f"{page.name}: {href}"
        else:
            assert target.is_file(), f"{page.name}: {href} -> {target} does not exist"
    return parsed
