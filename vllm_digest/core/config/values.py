"""What every part of the configuration shares: its error, and the value checks more than one part uses.

The settings (``settings.py``), the ``[delivery]`` table (``delivery.py``) and the ``[narrative]`` table
(``narrative.py``) each raise ``SettingsError``; it lives here, below all three, so none of them imports
another to raise it.
"""

from __future__ import annotations

import re


class SettingsError(ValueError):
    """A configuration value is unusable; the message names it."""


# characters of a bad value an error quotes: a pasted file or a runaway variable stays one readable line
SHOWN_CHARS = 80


def shown(value) -> str:
    """A bad value as an error quotes it: its repr (control characters escaped), cut to ``SHOWN_CHARS``
    characters with its full length said, so the line stays one line of a readable size."""
    if isinstance(value, str) and len(value) > SHOWN_CHARS:
        return f"{value[:SHOWN_CHARS]!r}... ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]}... ({len(text)} characters)"


# Every check below matches the whole value (fullmatch): ``$`` also matches before a final newline, so
# "https://host\n" would pass a ``^...$`` match and carry its line break into headers and file names.


def parse_http_url(value: str, name: str = "GitHub API URL") -> str:
    if not re.fullmatch(r"https?://[^\s/]+(/[^\s]*)?", value):
        raise SettingsError(f"{name} {shown(value)} is not an http(s) URL")
    return value.rstrip("/")


def parse_int(value, name: str, low: int, high: int) -> int:
    text = str(value).strip()
    # [0-9], not \d: \d takes any script's digits, which int() reads too
    if isinstance(value, bool) or not re.fullmatch(r"[0-9]+", text) or not low <= int(text) <= high:
        raise SettingsError(f"{name} {shown(value)} is not a whole number from {low} to {high}")
    return int(text)


# the words a yes/no setting may be written with (lower case; an empty value is no)
YES_WORDS, NO_WORDS = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


def parse_flag(value, name: str) -> bool:
    """A yes/no setting: a TOML boolean, or true/false, yes/no, on/off, 1/0 (an empty value is no)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in YES_WORDS + NO_WORDS:
        raise SettingsError(f"{name} {shown(value)} is not a yes/no value (true, false, 1, 0)")
    return text in YES_WORDS
