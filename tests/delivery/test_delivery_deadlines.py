"""Nothing waits forever and nothing is sent twice unasked: every network exchange of delivery and of
the LLM provider has a total deadline, and a message that went out without an answer is ``unknown``,
held by default (at most once), sent again only when asked (at least once) with the same idempotency key.

Each server here is real and misbehaves on 127.0.0.1 (vllm_digest/testing/slow_servers.py). The tests assert on
outcomes; ``finishes`` only guards against a hang (the old code waited forever on these servers)."""

import dataclasses
import datetime as dt
import json
import socket
import ssl
import threading

import dagster as dg
import pytest

from vllm_digest.testing.pipeline import materialize, settings_at
from tests.delivery_helpers import (DAY, EARLIER, SmtpServer, copy_home, deliver_days, log_rows, render_days,
                              self_signed_cert)
from vllm_digest.testing.openai_emulator import OpenAIEmulator, Reply
from vllm_digest.testing.slow_servers import (LATE, TRICKLE, DeafTcpServer, ScriptedSmtp, SilentTcpServer, SlowReceiver,

                                StallingSmtp, TricklingSmtp)
from vllm_digest.core.config.narrative import NarrativeConfig
from vllm_digest.core.config.settings import load_settings
from vllm_digest.core.config.values import SettingsError
from vllm_digest.core.sqlmodel.state import StateResource
from vllm_digest.core.taxonomy.loader import DEFAULT_TAXONOMY, TaxonomyError, load_taxonomy
from vllm_digest.delivery import webhook
from vllm_digest.delivery.deliver import overdue
from vllm_digest.delivery.log import read_log
from vllm_digest.delivery.publish import PublishError, publish
from vllm_digest.delivery.webhook import DeliveryError, DeliveryUnknown, WebhookRequest
from vllm_digest.report.narrative.provider import ChatProvider
from vllm_digest.testing.webhook_receiver import WebhookReceiver
# the deadline every test here sets: short, so a test takes seconds, yet long enough for connecting
# and EHLO on a loaded machine (a test that must hit it waits it out in full); the guard is far beyond it
FAST_SECONDS = 5
FAST = {"VLLM_DIGEST_DELIVERY_DEADLINE": str(FAST_SECONDS)}
WITHIN_FAST = f"no answer within the {FAST_SECONDS}s delivery deadline (delivery.deadline, VLLM_DIGEST_DELIVERY_DEADLINE)"
GUARD_SECONDS = 60
MAIL = {"VLLM_DIGEST_SMTP_HOST": "127.0.0.1", "VLLM_DIGEST_SMTP_FROM": "digest@example.org",
        "VLLM_DIGEST_SMTP_TO": "a@example.org"}
DELIVERY = dg.AssetKey(["vllm_project", "vllm", "daily_delivery"])
# the documented header (README, "At most once"), spelled out so a rename shows here
IDEMPOTENCY_HEADER = "Idempotency-Key"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    return render_days(tmp_path_factory.mktemp("rendered") / "home", EARLIER, DAY)


def finishes(work):
    """``work()``'s result; fails the test (instead of hanging it) if it is still running after the guard."""
    out: dict = {}

    def run():
        try:
            out["value"] = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(GUARD_SECONDS)
    assert not thread.is_alive(), f"still waiting after {GUARD_SECONDS}s: no total deadline"
    if "error" in out:
        raise out["error"]
    return out["value"]


def rows_of(settings) -> dict:
    with StateResource(path=str(settings.state_path)).connect(read_only=True) as con:
        return read_log(con, settings.repos[0].full_name)


# --- webhooks -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, outcome", [("json", "sent"), ("feishu", "unknown")])
def test_a_trickling_receiver_cannot_hold_a_send(rendered, tmp_path, kind, outcome):
    # a success status, then one byte a second, endlessly: each byte restarts a per-read timeout
    with SlowReceiver(default=TRICKLE) as rx:
        settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url(),
                             VLLM_DIGEST_WEBHOOK_KIND=kind, **FAST)
        run = finishes(lambda: deliver_days(settings, DAY))
    [attempt] = run.attempts
    # the status is the answer of a Slack or JSON hook: taken; Feishu says so only in the body, which
    # never came whole: it may have arrived
    assert attempt.outcome == outcome
    if outcome == "unknown":
        assert WITHIN_FAST in attempt.error and "T0KEN" not in attempt.error
    assert log_rows(settings) == [(DAY, f"webhook:{kind}", outcome, "new", int(outcome != "sent"), outcome == "sent")]


def _slow_lookups(monkeypatch) -> tuple[threading.Event, list[threading.Thread]]:
    """Name lookups of the sending thread wait until the returned event is set, then resolve for real:
    a slow name server (as a slow TLS handshake or proxy CONNECT), with the deadline passing meanwhile.
    Patching the lookup only delays a real resolution and connection to a real server."""
    release, waiting = threading.Event(), []
    real = socket.getaddrinfo

    def slow(*args, **kwargs):
        if threading.current_thread().name.startswith("http-"):
            waiting.append(threading.current_thread())
            release.wait(GUARD_SECONDS)
        return real(*args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    return release, waiting


def test_a_send_whose_deadline_passes_while_connecting_never_goes_out(monkeypatch):
    with SlowReceiver() as rx:
        release, waiting = _slow_lookups(monkeypatch)
        request = WebhookRequest(url=rx.url(), body=b'{"day": 1}', headers={"Content-Type": "application/json"})
        with pytest.raises(DeliveryError) as caught:
            finishes(lambda: webhook.post("json", request, deadline=1))
        release.set()  # the lookup answers after the deadline, and the worker goes on...
        [worker] = waiting
        worker.join(GUARD_SECONDS)
        assert not worker.is_alive()
        # ... but sends nothing: recorded failed (retried next run), so it must not have arrived
        assert rx.requests == []
    assert not isinstance(caught.value, DeliveryUnknown)
    assert str(caught.value) == (f"json webhook http://127.0.0.1:{rx.port}/…: no answer within the 1s delivery "
                                 "deadline (delivery.deadline, VLLM_DIGEST_DELIVERY_DEADLINE)")


def test_a_send_whose_deadline_passes_halfway_through_the_request_is_unknown():
    # the server never reads: the request's headers go out, its large body sticks in the buffers
    with DeafTcpServer() as server:
        request = WebhookRequest(url=f"http://127.0.0.1:{server.port}/hook", body=b" " * (64 << 20),
                                 headers={"Content-Type": "application/json"})
        with pytest.raises(DeliveryUnknown) as caught:
            finishes(lambda: webhook.post("json", request, deadline=FAST_SECONDS))
    assert "the message went out, then " + WITHIN_FAST in str(caught.value)


def test_a_late_answer_is_unknown_and_not_sent_again_unless_asked(rendered, tmp_path):
    # the receiver takes the message and answers only after the client gave up
    with SlowReceiver(answers=[LATE]) as rx:
        settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url(), **FAST)
        first = finishes(lambda: deliver_days(settings, DAY))
        assert [(a.day, a.outcome) for a in first.attempts] == [(DAY, "unknown")]
        # the next run, for the same day and for another: the unknown one is held (at most once)
        again = finishes(lambda: deliver_days(settings, EARLIER, DAY))
        assert [(a.day, a.outcome) for a in again.attempts] == [(EARLIER, "sent")]
        assert again.held_unknown == [f"{DAY} webhook:json"]
        assert [json.loads(r["body"])["day"] for r in rx.requests] == [DAY, EARLIER]
        # at least once, asked for: a run of any day sends it again, with the same idempotency key
        resend = settings_at(settings.home, VLLM_DIGEST_WEBHOOK_URL=rx.url(), VLLM_DIGEST_DELIVERY_ON_UNKNOWN="resend", **FAST)
        third = finishes(lambda: deliver_days(resend, EARLIER))
        assert [(a.day, a.outcome) for a in third.attempts] == [(DAY, "sent")]
    first_send, _, second_send = rx.requests
    key = first_send["headers"][IDEMPOTENCY_HEADER]
    assert len(key) == 64 and second_send["headers"][IDEMPOTENCY_HEADER] == key
    assert rx.requests[1]["headers"][IDEMPOTENCY_HEADER] != key  # another day, another message
    assert [r[:3] for r in log_rows(settings)] == [(EARLIER, "webhook:json", "sent"), (DAY, "webhook:json", "sent")]


def test_accept_records_an_unknown_outcome_as_delivered(rendered, tmp_path):
    with SlowReceiver(answers=[LATE]) as rx:
        settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url(), **FAST)
        finishes(lambda: deliver_days(settings, DAY))
        # the user saw it arrive
        accept = settings_at(settings.home, VLLM_DIGEST_WEBHOOK_URL=rx.url(), VLLM_DIGEST_DELIVERY_ON_UNKNOWN="accept", **FAST)
        run = finishes(lambda: deliver_days(accept, DAY))
    assert [(a.day, a.outcome) for a in run.attempts] == [(DAY, "accepted")]
    assert len(rx.requests) == 1
    assert log_rows(settings) == [(DAY, "webhook:json", "sent", "new", 0, True)]


def test_refused_before_sending_is_a_failure_retried_next_run(rendered, tmp_path):
    # nothing listens: the message never went out, so sending it again cannot duplicate it
    with WebhookReceiver() as rx:
        port = rx.port
    settings = copy_home(rendered, tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=f"http://127.0.0.1:{port}/hook", **FAST)
    [attempt] = finishes(lambda: deliver_days(settings, DAY)).attempts
    assert attempt.outcome == "failed" and "ConnectError" in attempt.error
    with WebhookReceiver() as rx:
        retry = settings_at(settings.home, VLLM_DIGEST_WEBHOOK_URL=rx.url(), **FAST)
        assert [a.outcome for a in deliver_days(retry, EARLIER, DAY).attempts] == ["sent", "sent"]


def test_unknown_shows_in_metadata_and_warns_in_the_check(tmp_path):
    with SlowReceiver(answers=[LATE]) as rx:
        settings = settings_at(tmp_path / "home", VLLM_DIGEST_WEBHOOK_URL=rx.url(), **FAST)
        result = finishes(lambda: materialize(settings, DAY))
    [event] = [e for e in result.get_asset_materialization_events() if e.asset_key == DELIVERY]
    meta = {k: v.value for k, v in event.materialization.metadata.items()}
    assert (meta["sent"], meta["failed"], meta["unknown"], meta["on_unknown"]) == (0, 0, 1, "hold")
    assert "| unknown |" in meta["attempts"]
    [check] = [e for e in result.get_asset_check_evaluations() if e.check_name == "delivery_not_overdue"]
    # not overdue (nothing is owed), but the user should look: a warning that says how to act
    assert not check.passed and check.severity == dg.AssetCheckSeverity.WARN
    assert "VLLM_DIGEST_DELIVERY_ON_UNKNOWN=resend" in check.description and DAY in check.description
    # with at-least-once chosen, the same row is owed like a failure (and overdue, the day being old)
    resend = settings_at(settings.home, VLLM_DIGEST_WEBHOOK_URL=rx.url(), VLLM_DIGEST_DELIVERY_ON_UNKNOWN="resend")
    report = overdue(resend, resend.repos[0], rows_of(resend), dt.datetime.now(dt.timezone.utc))
    assert report.unknown == [] and report.overdue[0].startswith(f"{DAY} webhook:json: new message got no answer 1x")


# --- e-mail -------------------------------------------------------------------------------------

def test_an_smtp_server_that_never_answers_the_message_is_unknown(rendered, tmp_path):
    with StallingSmtp() as server:
        settings = copy_home(rendered, tmp_path / "home", **MAIL, VLLM_DIGEST_SMTP_PORT=str(server.port), **FAST)
        run = finishes(lambda: deliver_days(settings, DAY))
        again = finishes(lambda: deliver_days(settings, DAY))
    [attempt] = run.attempts
    assert attempt.outcome == "unknown" and f"{FAST_SECONDS}s delivery deadline" in attempt.error
    assert len(server.messages) == 1 and again.attempts == [] and again.held_unknown == [f"{DAY} email"]


def test_an_smtp_server_that_trickles_its_reply_cannot_hold_the_session(rendered, tmp_path):
    with TricklingSmtp() as server:
        settings = copy_home(rendered, tmp_path / "home", **MAIL, VLLM_DIGEST_SMTP_PORT=str(server.port), **FAST)
        run = finishes(lambda: deliver_days(settings, DAY))
    [attempt] = run.attempts
    # stalled before the message went out: a plain failure, retried by the next run
    assert attempt.outcome == "failed"
    assert attempt.error == f"SMTP 127.0.0.1:{server.port}: {WITHIN_FAST}"
    assert server.mail_commands == 0


def test_recipients_refused_before_a_late_goodbye_are_still_logged(rendered, tmp_path):
    # the message is answered (one recipient refused), then QUIT gets no answer until the deadline
    with ScriptedSmtp(refuse=("gone@example.org",)) as server:
        settings = copy_home(rendered, tmp_path / "home", **{**MAIL, "VLLM_DIGEST_SMTP_TO": "a@example.org, gone@example.org"},
                             VLLM_DIGEST_SMTP_PORT=str(server.port), **FAST)
        run = finishes(lambda: deliver_days(settings, DAY))
    [attempt] = run.attempts
    assert len(server.messages) == 1
    # taken for one recipient: sent (sending again would repeat it for them), the refused one named
    assert attempt.outcome == "sent" and "gone@example.org" in attempt.error
    assert log_rows(settings) == [(DAY, "email", "sent", "new", 0, False)]


def test_a_session_whose_deadline_passes_during_the_tls_handshake_sends_nothing(rendered, tmp_path, monkeypatch):
    # closing the socket cannot stop a TLS handshake under way (the socket was handed to TLS): once it
    # completes after the deadline, the session must not go on to send what was recorded as failed
    cert, key = self_signed_cert(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    # STARTTLS is answered at half the deadline, so the handshake's own read outlives the deadline by as much
    with ScriptedSmtp(tls=context, starttls_delay=FAST_SECONDS / 2) as server:
        settings = copy_home(rendered, tmp_path / "home", **MAIL, VLLM_DIGEST_SMTP_PORT=str(server.port), **FAST)
        run = finishes(lambda: deliver_days(settings, DAY))
        server.handshake.set()  # the deadline has passed: the handshake completes now
        assert server.ended.wait(GUARD_SECONDS)
    [attempt] = run.attempts
    assert attempt.outcome == "failed" and attempt.error == f"SMTP 127.0.0.1:{server.port}: {WITHIN_FAST}"
    assert server.messages == []


def test_the_same_message_keeps_its_message_id(rendered, tmp_path):
    with StallingSmtp() as stalling:
        settings = copy_home(rendered, tmp_path / "home", **MAIL, VLLM_DIGEST_SMTP_PORT=str(stalling.port), **FAST)
        finishes(lambda: deliver_days(settings, DAY))
    with SmtpServer() as server:
        resend = settings_at(settings.home, **MAIL, VLLM_DIGEST_SMTP_PORT=str(server.port), VLLM_DIGEST_DELIVERY_ON_UNKNOWN="resend")
        deliver_days(resend, DAY)
    first = stalling.messages[0].decode()
    [got] = server.messages
    assert f"Message-ID: {got['message']['Message-ID']}" in first


# --- git ----------------------------------------------------------------------------------------

def test_a_git_remote_that_never_answers_is_stopped_at_the_deadline(tmp_path):
    with SilentTcpServer() as server:
        settings = settings_at(tmp_path / "home", VLLM_DIGEST_PUBLISH_REMOTE=f"http://127.0.0.1:{server.port}/pages.git",
                               VLLM_DIGEST_PUBLISH_DEADLINE="5")  # room for git and its helper to connect on a busy machine
        settings.site_dir.mkdir(parents=True)
        with pytest.raises(PublishError) as caught:
            finishes(lambda: publish(settings))
        assert server.accepted.is_set()
        # git's http helper was killed with git: the connection it held is closed
        assert server.closed.wait(GUARD_SECONDS)
    assert str(caught.value) == (
        "git ls-remote did not finish within the 5s deadline (publish_deadline, VLLM_DIGEST_PUBLISH_DEADLINE): "
        "stopped it and its helpers"
    )


# --- the LLM provider ---------------------------------------------------------------------------

def test_a_trickling_llm_endpoint_costs_one_deadline(tmp_path):
    with OpenAIEmulator() as emulator:
        emulator.queue(Reply(trickle=0.2))
        config = NarrativeConfig.from_values({"BASE_URL": emulator.base_url, "MODEL": "m", "TIMEOUT": "1"})
        with ChatProvider(config) as provider:
            completion = finishes(lambda: provider.complete([{"role": "user", "content": "hi"}]))
    assert not completion.ok
    assert completion.error == "timed out after 1s (the whole request's deadline: VLLM_DIGEST_LLM_TIMEOUT, narrative.timeout)"


# --- display names and untrusted text -----------------------------------------------------------

def test_a_display_name_with_a_newline_is_refused_at_load(tmp_path):
    config = tmp_path / "vllm_digest.toml"
    config.write_text('[display_names]\n"vllm-project/vllm" = "vLLM\\nBcc: someone@example.org"\n', encoding="utf-8")
    with pytest.raises(SettingsError) as caught:
        load_settings({"VLLM_DIGEST_CONFIG": str(config), "VLLM_DIGEST_HOME": str(tmp_path / "home")})
    assert f"display_names.'vllm-project/vllm' (in {str(config)!r})" in str(caught.value)
    assert "line break or control character" in str(caught.value)


def test_a_project_name_with_a_control_character_is_refused(tmp_path):
    text = DEFAULT_TAXONOMY.read_text(encoding="utf-8")
    start = text.index("[project]")
    name_line = text.index("\nname = ", start) + 1
    end = text.index("\n", name_line)
    taxonomy = tmp_path / "taxonomy.toml"
    taxonomy.write_text(text[:name_line] + 'name = "vLLM\\u202e"' + text[end:], encoding="utf-8")
    with pytest.raises(TaxonomyError) as caught:
        load_taxonomy(taxonomy)
    assert str(caught.value).startswith(f"taxonomy {str(taxonomy)!r}: [project]: 'name'")


def test_controls_are_removed_at_delivery_s_own_boundary(rendered, tmp_path):
    settings = copy_home(rendered, tmp_path / "home")
    path = settings.reports_dir / "vllm-project" / "vllm" / f"{DAY}.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    # a bidi override, a bell and a NEL: as if the report stage had let them through
    doc["key_changes"][0]["title"] = "fix\u202e gnp.exe\x07 done\x85next"
    path.write_text(json.dumps(doc), encoding="utf-8")
    # a display name that bypassed the settings' check (set in code)
    named = dataclasses.replace(settings, display_names={"vllm-project/vllm": "vLLM\u2067 digest\x1b"})
    with WebhookReceiver() as rx, SmtpServer() as server:
        env = dict(VLLM_DIGEST_WEBHOOK_URL=rx.url(), **MAIL, VLLM_DIGEST_SMTP_PORT=str(server.port))
        both = dataclasses.replace(settings_at(settings.home, **env), display_names=named.display_names)
        deliver_days(both, DAY)
    [body] = rx.payloads()
    assert body["key_changes"][0]["title"] == "fix gnp.exe done next"
    assert body["header"] == "vLLM digest 开发动态报告 - 2026-03-22"
    # the header, then " — " and the day's headline: one line whatever the names held
    subject = server.messages[0]["message"]["Subject"]
    assert subject.startswith("vLLM digest 开发动态报告 - 2026-03-22 — ") and "\n" not in subject
