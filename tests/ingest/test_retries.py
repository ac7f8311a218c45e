"""Retries of the raw fetch: the HTTP client retries in-process, the raw asset's
RetryPolicy is the outer layer, and only errors a later attempt can fix reach it."""

from __future__ import annotations

import logging

import dagster as dg
import pytest

from vllm_digest.core.calendar import window_for_day
from vllm_digest.core.keys import RAW_ASSET
from vllm_digest.definitions import build_definitions
from vllm_digest.ingest.assets import FETCH_RETRY_POLICY, fetch_or_fail
from vllm_digest.ingest.github.client import GitHubClient, GitHubError, RateLimitError
from vllm_digest.ingest.resources import ActivitySourceResource
from vllm_digest.testing.github_emulator import Dataset, Fault, GitHubEmulator
from vllm_digest.testing.github_fixtures import FAST, REPO, TOKEN


DAY = "2026-03-22"
ISSUES = "repos/vllm-project/vllm/issues"


def raw_asset(defs: dg.Definitions) -> dg.AssetsDefinition:
    key = dg.AssetKey([*REPO.key_prefix, RAW_ASSET])
    return next(a for a in defs.assets if key in a.keys)


def test_raw_asset_carries_exponential_retry_policy_with_jitter(make_settings):
    defs = build_definitions(make_settings())
    raw = raw_asset(defs)
    assert raw.op.retry_policy == FETCH_RETRY_POLICY
    assert (FETCH_RETRY_POLICY.max_retries, FETCH_RETRY_POLICY.delay) == (3, 30)
    assert FETCH_RETRY_POLICY.backoff == dg.Backoff.EXPONENTIAL
    assert FETCH_RETRY_POLICY.jitter == dg.Jitter.PLUS_MINUS
    # no other asset retries: a SQL or template error is a bug, not a blip
    others = [a for a in defs.assets if a is not raw]
    assert others and all(a.op.retry_policy is None for a in others)


@pytest.fixture
def emulator():
    with GitHubEmulator(Dataset.from_sample(), token=TOKEN) as emu:
        yield emu


def get_error(client: GitHubClient, path: str) -> GitHubError:
    with pytest.raises(GitHubError) as caught:
        client.get(path)
    return caught.value


def test_client_errors_say_whether_a_later_attempt_can_succeed(emulator):
    with GitHubClient(api_url=emulator.base_url, token=TOKEN, **FAST) as client:
        emulator.faults.append(Fault("502", match="/issues", count=100))
        persistent_5xx = get_error(client, ISSUES)
        emulator.faults.clear()
        emulator.faults.append(Fault("truncate", match="/issues", count=100))
        cut_body = get_error(client, ISSUES)
        emulator.faults.clear()
        emulator.faults.append(Fault("garble", match="/issues"))
        not_json = get_error(client, ISSUES)
        missing_repo = get_error(client, "repos/vllm-project/no-such-repo/issues")
        emulator.set_budget("core", 0, reset_in=3600)
        with pytest.raises(RateLimitError) as limited:
            client.get(ISSUES)
    with GitHubClient(api_url=emulator.base_url, token="ghp_wrong", **FAST) as client:
        bad_token = get_error(client, ISSUES)
    assert (persistent_5xx.status, persistent_5xx.transient) == (502, True)
    # shorter than its Content-Length: cut off in transit, may come whole next time
    assert (cut_body.status, cut_body.transient) == (None, True)
    # a whole body that is not JSON comes the same way again
    assert (not_json.status, not_json.transient) == (200, False)
    assert (missing_repo.status, missing_repo.transient) == (404, False)
    assert (bad_token.status, bad_token.transient) == (401, False)
    # the reset is an hour away: retries within minutes cannot outlast it
    assert limited.value.transient is False


def test_fetch_passes_transient_errors_to_the_retry_policy_and_fails_the_rest(make_settings, emulator):
    window = window_for_day(DAY, make_settings())
    # every request the plan makes for a day touches an /issues path (list, events, search, comments)
    emulator.faults.append(Fault("truncate", match="/issues", count=100))
    source = ActivitySourceResource(kind="github", github_api_url=emulator.base_url, github_token=TOKEN)
    with pytest.raises(GitHubError) as transient:
        fetch_or_fail(source, REPO, window, None)
    assert transient.value.transient
    emulator.faults.clear()
    emulator.faults.append(Fault("garble", match="/issues", count=100))
    with pytest.raises(dg.Failure) as garbled:
        fetch_or_fail(source, REPO, window, None)
    assert garbled.value.allow_retries is False and "response is not JSON" in garbled.value.description
    wrong = ActivitySourceResource(kind="github", github_api_url=emulator.base_url, github_token="ghp_wrong")
    with pytest.raises(dg.Failure) as permanent:
        fetch_or_fail(wrong, REPO, window, None)
    assert permanent.value.allow_retries is False
    assert "vllm-project/vllm 2026-03-22" in permanent.value.description
    assert "401" in permanent.value.description


def test_permanent_fetch_error_fails_the_run_once_without_retry(make_settings, emulator):
    settings = make_settings(
        VLLM_DIGEST_SOURCE="github", GITHUB_API_URL=emulator.base_url, GITHUB_TOKEN="ghp_wrong"
    )
    defs = build_definitions(settings)
    result = dg.materialize(
        [raw_asset(defs)], resources=defs.resources, partition_key=DAY,
        instance=dg.DagsterInstance.ephemeral(), raise_on_error=False,
    )
    assert not result.success
    types = [e.event_type_value for e in result.all_events]
    assert types.count("STEP_FAILURE") == 1
    assert types.count("STEP_UP_FOR_RETRY") == 0
    [failure] = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert "401" in failure.step_failure_data.error.message
    assert not (settings.raw_dir / REPO.owner / REPO.name / DAY).exists()


EVENTS = "repos/vllm-project/vllm/issues/events"
# a 1 s deadline and a window that fits all five attempts of it: the drip would take hours
DEADLINE = {**FAST, "request_deadline_seconds": 1.0, "max_retry_seconds": 60.0}
CLIENT_LOG = "vllm_digest.ingest.github.client"


def retry_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == CLIENT_LOG and r.levelname == "WARNING"]


def test_a_dripping_body_ends_each_attempt_at_the_deadline_and_retries_follow_the_policy(emulator, caplog):
    """One byte every half second resets httpx's read timeout forever; the request deadline
    ends each attempt, the client tries 5 times in all (the README's policy) and says why."""
    caplog.set_level("WARNING", logger=CLIENT_LOG)
    emulator.faults.append(Fault("drip", match="/issues/events", count=100, delay=0.5, drip_for=5))
    with GitHubClient(api_url=emulator.base_url, token=TOKEN, **DEADLINE) as client:
        error = get_error(client, EVENTS)
    assert error.transient and error.status is None
    assert "no complete response within the 1s request deadline" in str(error)
    assert "gave up after 5 attempts" in str(error)
    assert sum(1 for r in emulator.requests if r.path.endswith("/issues/events")) == 5
    lines = retry_lines(caplog)
    assert len(lines) == 4
    for attempt, line in enumerate(lines, 1):
        assert line.startswith("GitHub GET /repos/vllm-project/vllm/issues/events: ")
        assert "no complete response within the 1s request deadline" in line
        assert f"(attempt {attempt} of 5)" in line


def test_a_dripping_head_is_cut_off_too_and_the_next_attempt_succeeds(emulator, caplog):
    """Trickled from the status line on, the response never reaches the body loop: the deadline
    covers the whole exchange, not only the reading of the body."""
    caplog.set_level("WARNING", logger=CLIENT_LOG)
    emulator.faults.append(Fault("drip_head", match="/issues/events", count=1, delay=0.5, drip_for=5))
    with GitHubClient(api_url=emulator.base_url, token=TOKEN, **DEADLINE) as client:
        response = client.get(EVENTS)
        assert [r.status for r in client.records] == [0, 200]
    assert response.status == 200 and isinstance(response.data, list) and response.data
    [line] = retry_lines(caplog)
    assert "no complete response within the 1s request deadline" in line and "(attempt 1 of 5)" in line


def test_attempts_stop_within_the_retry_window(emulator):
    """Five 1 s attempts do not fit a 2.5 s window: the last attempt gets what is left of it,
    and the client gives up inside the window instead of running over it."""
    emulator.faults.append(Fault("drip", match="/issues/events", count=100, delay=0.5, drip_for=5))
    with GitHubClient(api_url=emulator.base_url, token=TOKEN,
                      **{**DEADLINE, "max_retry_seconds": 2.5}) as client:
        error = get_error(client, EVENTS)
    attempts = sum(1 for r in emulator.requests if r.path.endswith("/issues/events"))
    assert 2 <= attempts < 5
    assert "retries stop at 2.5s" in str(error)


def test_the_runs_log_shows_each_retry_with_its_cause(make_settings, emulator):
    """The deadline comes from the settings, and the client's retries land in the step's log
    in Dagster's run log, not only in a Python logger nobody reads."""
    emulator.faults.append(Fault("drip", match="/issues/events", count=2, delay=0.5, drip_for=5))
    settings = make_settings(VLLM_DIGEST_SOURCE="github", GITHUB_API_URL=emulator.base_url,
                             GITHUB_TOKEN=TOKEN, VLLM_DIGEST_GITHUB_DEADLINE="1")
    defs = build_definitions(settings)
    instance = dg.DagsterInstance.ephemeral()
    result = dg.materialize([raw_asset(defs)], resources=defs.resources, partition_key=DAY, instance=instance)
    assert result.success
    messages = [e.user_message for e in instance.all_logs(result.run_id) if e.level == logging.WARNING]
    retries = [m for m in messages if "/issues/events" in m]
    assert len(retries) == 2, messages
    assert all("no complete response within the 1s request deadline" in m for m in retries)
