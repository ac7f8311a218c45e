"""Headless Chromium for browser tests: Debian's package driven by Python
Playwright (`playwright install` cannot download here, so no bundled browser).

`make browser` installs the package when it can; without it, browser tests
skip and say so. Screenshots go to tests/artifacts/ (git-ignored).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]


def chromium_path() -> str | None:
    found = shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None


def launch_chromium(playwright):
    """A headless browser, or a skip naming what is missing."""
    path = chromium_path()
    if path is None:
        pytest.skip("chromium is not installed (`make browser` installs Debian's chromium as root)")
    return playwright.chromium.launch(executable_path=path, args=LAUNCH_ARGS)
