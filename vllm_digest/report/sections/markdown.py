"""A section's body as Markdown: ``md_inline`` on every untrusted field, so each line is ours up to the first
untrusted byte. The HTML template renders the same ``Section`` with autoescaping."""

from __future__ import annotations

from vllm_digest.core.text.limits import LEAD_CHARS, WHAT_CHARS
from vllm_digest.core.text.markdown_safe import md_inline
from vllm_digest.report.day.model import Link, Part, Quote, Section


def doc_markdown(section: Section, colon: str) -> str:
    """A section's body as Markdown; every line of it is ours up to the first untrusted byte."""
    out = [md_inline(section.lead, LEAD_CHARS)] if section.lead else []
    for group in section.groups:
        out.append("")
        if group.heading:
            out.append(f"**{md_inline(group.heading, 200)}**")
        for e in group.items:
            parts = []
            if e.url:
                parts.append(f"[{e.ref}]({e.url})")
            if e.title:
                parts.append(md_inline(e.title, 200))
            line = "- " + " ".join(parts)
            if e.gist:
                line += f" — {md_inline(e.gist, WHAT_CHARS)}"
            if e.meta:
                line += f" ({_meta_markdown(e.meta_parts) if _has_link(e.meta_parts) else md_inline(e.meta, 300)})"
            out.append(line)
            for q in e.quotes:
                out.append(f"  - {md_inline(q.author, 80)}: “{md_inline(q.text, 160)}”")
    if section.tail:
        out.append("")
        out.append(f"**{section.tail_label}**{colon}{md_inline(section.tail, LEAD_CHARS)}")
    return "\n".join(out)


def _has_link(parts: tuple[Part, ...]) -> bool:
    return any(isinstance(p, Link) for p in parts)


def _meta_markdown(parts: tuple[Part, ...]) -> str:
    """A line with links of ours: each text part made safe on its own, each link written as a link."""
    return "".join(f"[{md_inline(p.text, 80)}]({p.md_href})" if isinstance(p, Link) else
                   md_inline(p.quote if isinstance(p, Quote) else p, 300) for p in parts)
