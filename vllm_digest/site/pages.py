"""The site's HTML: its own templates (``site/templates/``), which include the report's shared partials
(the page head, its style, the blocks) so the index looks like the report pages it links to."""

from __future__ import annotations

import functools

import jinja2

from vllm_digest.report.render import shared_partials


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    # the report's HTML settings: the shared partials render here byte for byte as in a report page
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.PackageLoader("vllm_digest.site", "templates"), shared_partials()]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_page(name: str, **values) -> str:
    """One of the site's templates, autoescaped, so untrusted text prints as text."""
    return _environment().get_template(name).render(**values)
