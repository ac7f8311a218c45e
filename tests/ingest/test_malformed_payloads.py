"""A malformed GitHub payload fails the fetch at once with what was wrong and where.

A whole body that is not JSON (a proxy's or a login page served with 200) or JSON without a field its
kind carries comes back the same on every attempt: it is not retried, in the client nor by the raw
asset's RetryPolicy, and the error names the endpoint, the object and the field, quoting what it holds.
"""

from __future__ import annotations

import datetime as dt

import dagster as dg
import pytest

from tests.emulator_fixtures import emulator, sample_dataset
from vllm_digest.core.keys import RAW_ASSET
from vllm_digest.definitions import build_definitions
from vllm_digest.ingest.github.client import GitHubClient, GitHubError
from vllm_digest.ingest.github.plan import fetch_day
from vllm_digest.testing.github_emulator import Fault
from vllm_digest.testing.github_fixtures import FAST, REPO, TOKEN, expected_windows, window_of

__all__ = ["emulator", "sample_dataset"]  # fixtures used by name

EVENTS = "/repos/vllm-project/vllm/issues/events"
LAG = dt.timedelta(minutes=10)
LATE = dt.timedelta(days=1)


def asked(emulator, path_end: str) -> int:
    return sum(1 for r in emulator.requests if r.path.endswith(path_end))


def test_an_html_page_served_as_200_is_quoted_and_not_retried_by_the_client(emulator):
    emulator.faults.append(Fault("html", match=EVENTS, count=100))
    with GitHubClient(api_url=emulator.base_url, token=TOKEN, **FAST) as client:
        with pytest.raises(GitHubError) as caught:
            client.get(EVENTS, {"per_page": 100})
    error = caught.value
    assert (error.status, error.transient) == (200, False)
    message = str(error)
    assert message.startswith(f"GitHub GET {EVENTS}?per_page=100 failed (200): response is not JSON "
                              "(Content-Type 'text/html; charset=utf-8', "), message
    # the first bytes, escaped onto one line and capped: never the whole page
    assert "starting '<!DOCTYPE html>\\n<html lang=\"en\">\\n<head>" in message and message.endswith("...)"), message
    assert "\n" not in message and len(message) < 400, message
    assert asked(emulator, EVENTS) == 1


def test_an_html_page_served_as_200_fails_the_run_once_without_retry(make_settings, emulator):
    """The run that took 360 s: the client left the error transient, so the RetryPolicy asked 3 times more."""
    day = expected_windows()[4]
    emulator.now = window_of(day).end + LAG
    emulator.faults.append(Fault("html", match=EVENTS, count=100))
    settings = make_settings(VLLM_DIGEST_SOURCE="github", GITHUB_API_URL=emulator.base_url, GITHUB_TOKEN=TOKEN)
    defs = build_definitions(settings)
    key = dg.AssetKey([*REPO.key_prefix, RAW_ASSET])
    raw = next(a for a in defs.assets if key in a.keys)
    result = dg.materialize([raw], resources=defs.resources, partition_key=day["day"],
                            instance=dg.DagsterInstance.ephemeral(), raise_on_error=False)
    assert not result.success
    types = [e.event_type_value for e in result.all_events]
    assert (types.count("STEP_FAILURE"), types.count("STEP_UP_FOR_RETRY")) == (1, 0)
    assert asked(emulator, EVENTS) == 1
    [failure] = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    message = failure.step_failure_data.error.message
    assert "not retried" in message and f"GET {EVENTS}?per_page=100 failed (200)" in message, message
    assert "text/html" in message and "<!DOCTYPE html>" in message, message
    assert not (settings.raw_dir / REPO.owner / REPO.name / day["day"]).exists()


def _third(rows: list, change) -> list:
    change(rows[2])
    return rows


def _drop(name):
    return lambda obj: obj.pop(name)


def _set(name, value):
    return lambda obj: obj.__setitem__(name, value)


def _number_as_text(event: dict) -> None:
    event["issue"]["number"] = str(event["issue"]["number"])


# (endpoint path end, reshape of its body, what the error says after "malformed payload: ")
BAD_FIELDS = {
    "event without created_at": (EVENTS, lambda rows: _third(rows, _drop("created_at")),
                                 "event 3 of {n} (id {id}): field 'created_at' is missing"),
    "created_at as an integer": (EVENTS, lambda rows: _third(rows, _set("created_at", 1774150740)),
                                 "event 3 of {n} (id {id}): field 'created_at' is 1774150740 (a number), "
                                 "not a time with its offset such as 2026-03-22T03:39:00Z"),
    "created_at without offset": (EVENTS, lambda rows: _third(rows, _set("created_at", "2026-03-22T03:39:00")),
                                  "event 3 of {n} (id {id}): field 'created_at' is \"2026-03-22T03:39:00\" "
                                  "(a string), not a time with its offset such as 2026-03-22T03:39:00Z"),
    "event without issue": (EVENTS, lambda rows: _third(rows, _drop("issue")),
                            "event 3 of {n} (id {id}): field 'issue' is missing"),
    "issue number as a string": (EVENTS, lambda rows: _third(rows, _number_as_text),
                                 "event 3 of {n} (id {id}): field 'issue.number' is \"{number}\" (a string), "
                                 "not a whole number"),
    "event id as a string": (EVENTS, lambda rows: _third(rows, lambda e: e.__setitem__("id", str(e["id"]))),
                             "event 3 of {n}: field 'id' is \"{id}\" (a string), not a whole number"),
}


@pytest.mark.parametrize("case", list(BAD_FIELDS))
def test_an_event_with_a_bad_field_fails_at_once_naming_endpoint_event_and_field(emulator, case):
    """These raised a bare TypeError or AttributeError naming nothing, or landed the day as incomplete
    for a reason that was not the cause."""
    path, reshape, says = BAD_FIELDS[case]
    served = {}

    def keep(rows):
        served["rows"] = [dict(r) for r in rows]
        return reshape(rows)

    w = window_of(expected_windows()[4])
    emulator.now = w.end + LAG
    emulator.faults.append(Fault("reshape", match=path, exact=True, count=100, reshape=keep))
    with pytest.raises(GitHubError) as caught:
        fetch_day(REPO, w, emulator.base_url, TOKEN, None, **FAST)
    rows = served["rows"]
    expected = says.format(n=len(rows), id=rows[2]["id"], number=rows[2]["issue"]["number"])
    assert str(caught.value) == f"GitHub GET {path}?per_page=100 failed (200): malformed payload: {expected}"
    assert caught.value.transient is False
    assert asked(emulator, path) == 1  # the same page comes back the same: asked once


def test_a_search_item_with_its_number_as_a_string_names_the_search_and_the_item(emulator):
    """A late re-run takes its items from created-in-window searches; one item's number as text would be
    dropped from the landed day, and the day called incomplete for a count mismatch."""
    w = window_of(expected_windows()[4])
    emulator.now = w.end + LATE

    def reshape(body):
        body["items"][0]["number"] = str(body["items"][0]["number"])
        return body

    emulator.faults.append(Fault("reshape", match="/search/issues", reshape=reshape))
    with pytest.raises(GitHubError) as caught:
        fetch_day(REPO, w, emulator.base_url, TOKEN, None, **FAST)
    message = str(caught.value)
    assert message.startswith("GitHub GET /search/issues?q=repo%3Avllm-project%2Fvllm"), message
    assert "failed (200): malformed payload: items: issue 1 of " in message, message
    assert "field 'number' is \"" in message and "(a string), not a whole number" in message, message
    assert caught.value.transient is False
