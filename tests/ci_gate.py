"""Under CI (``CI=true``) a skipped test fails the run.

CI installs everything the suite needs itself (``make test``: chromium, PostgreSQL, strace), so a skip
there means a part of the suite silently did not run: the browser tests, the PostgreSQL instance, the
warehouse race. Locally a skip stays a skip, with its reason in pytest's ``-ra`` summary.
"""

from __future__ import annotations

import os

import pytest


def ci_forbids_skips() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail") and ci_forbids_skips():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reason = reason.removeprefix("Skipped: ")
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where every test must run: {reason}"
