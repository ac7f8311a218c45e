"""What every part of the configuration shares: its error, and the value checks more than one part uses.

The settings (``settings.py``), the ``[delivery]`` table (``delivery.py``) and the ``[narrative]`` table
(``narrative.py``) each raise ``SettingsError``; it lives here, below all three, so none of them imports
another to raise it.
"""

from __future__ import annotations

import re


class SettingsError(ValueError):
    """A configuration value is unusable; the message names it."""


def parse_http_url(value: str, name: str = "GitHub API URL") -> str:
    if not re.match(r"^https?://[^\s/]+(/[^\s]*)?$", value):
        raise SettingsError(f"{name} {value!r} is not an http(s) URL")
    return value.rstrip("/")


def parse_int(value, name: str, low: int, high: int) -> int:
    text = str(value).strip()
    if isinstance(value, bool) or not re.fullmatch(r"\d+", text) or not low <= int(text) <= high:
        raise SettingsError(f"{name} {value!r} is not a whole number from {low} to {high}")
    return int(text)


# the words a yes/no setting may be written with (lower case; an empty value is no)
YES_WORDS, NO_WORDS = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


def parse_flag(value, name: str) -> bool:
    """A yes/no setting: a TOML boolean, or true/false, yes/no, on/off, 1/0 (an empty value is no)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in YES_WORDS + NO_WORDS:
        raise SettingsError(f"{name} {value!r} is not a yes/no value (true, false, 1, 0)")
    return text in YES_WORDS
