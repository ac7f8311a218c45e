"""Code says nothing about a particular project, vendor or language: those words live in the taxonomy,
the settings and the message catalogs. A grep over the report, narrative, site and delivery code, the
templates and the catalogs for the bundled taxonomy's names, and for language codes as literals in code."""

import ast
import re
from pathlib import Path

from vllm_digest.core.i18n import BUNDLED, available_languages
from vllm_digest.core.taxonomy.loader import load_taxonomy


PACKAGE = Path(__file__).resolve().parents[2] / "vllm_digest"
CODE_DIRS = ("report", "site", "delivery", "core/i18n", "core/config", "core/text")


def _files(*suffixes: str) -> list[Path]:
    found = [p for d in CODE_DIRS for p in (PACKAGE / d).rglob("*") if p.suffix in suffixes]
    assert found, suffixes
    return sorted(found)


def taxonomy_words() -> set[str]:
    """The bundled taxonomy's project, vendor, focus-area, theme and product names, and the words of
    the focus area's short name ("AMD", "ROCm")."""
    tax = load_taxonomy()
    words = {tax.project.name}
    for area in tax.focus_areas:
        words |= {area.vendor, area.short, area.zh, area.en, area.highlight or "", *re.split(r"[/\s]+", area.short)}
        words |= {name for theme in area.themes for name in (theme.zh, theme.en)}
    return {w for w in words if w}


def test_no_project_vendor_or_theme_name_in_code_templates_or_catalogs():
    words = taxonomy_words()
    assert {"vLLM", "AMD", "ROCm", "Quark", "CI"} <= words
    found = []
    for path in _files(".py", ".j2", ".toml"):
        text = path.read_text(encoding="utf-8")
        for word in sorted(words):
            # whole words: "CI" is a theme, "CIRCLE" is not
            for match in re.finditer(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(PACKAGE)}:{line}: {word}")
    assert not found, "\n".join(found)


def test_no_language_code_in_code_or_templates():
    """The language list lives in the settings; code never branches on a language nor keys text by one."""
    codes = set(available_languages())
    assert {"zh", "en"} <= codes
    found = []
    # the settings hold the language list itself
    for path in (p for p in _files(".py") if p != PACKAGE / "core" / "config" / "settings.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in codes:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}")
    for path in _files(".j2"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"""["'](?:%s)["']""" % "|".join(map(re.escape, codes)), line):
                found.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_one_template_per_format_and_no_texts_in_templates():
    templates = PACKAGE / "report" / "templates"
    names = sorted(p.name for p in templates.iterdir())
    codes = available_languages()
    assert not [n for n in names if any(f".{c}." in n or f"_{c}." in n for c in codes)], names
    assert {"report.md.j2", "report.html.j2"} <= set(names)
    for path in [*templates.iterdir(), *(PACKAGE / "site" / "templates").iterdir()]:
        # a dict literal in a template is a label table: labels belong in the catalogs
        assert not re.search(r"\{%-?\s*set\s+\w+\s*=\s*\{", path.read_text(encoding="utf-8")), path.name
    assert sorted(p.stem for p in BUNDLED.glob("*.toml")) == sorted(codes)
