"""E-mail through a real local SMTP server (aiosmtpd): STARTTLS when offered, login only over TLS,
the HTML report as the body and its Markdown as the plain-text alternative."""

import json
import ssl

import pytest

from tests.delivery_helpers import DAY, SITE_URL, SmtpServer, copy_home, deliver_days, log_rows, render_days, self_signed_cert

from vllm_digest.delivery.digest import report_folder

MAIL = {"VLLM_DIGEST_SMTP_HOST": "127.0.0.1", "VLLM_DIGEST_SMTP_FROM": "digest@example.org",
        "VLLM_DIGEST_SMTP_TO": "a@example.org,b@example.org"}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    return render_days(tmp_path_factory.mktemp("rendered") / "home", DAY)


@pytest.fixture
def tls(tmp_path, monkeypatch):
    """A server certificate, and the client trusting it the way OpenSSL is told to: SSL_CERT_FILE."""
    cert, key = self_signed_cert(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    return context


def test_starttls_login_and_both_bodies(rendered, tmp_path, tls):
    with SmtpServer(tls_context=tls, user="digest-bot", password="smtp-pw-1") as server:
        settings = copy_home(rendered, tmp_path / "home", **MAIL, VLLM_DIGEST_SMTP_PORT=str(server.port),
                             VLLM_DIGEST_SMTP_USER="digest-bot", VLLM_DIGEST_SMTP_PASSWORD="smtp-pw-1",
                             VLLM_DIGEST_SITE_URL=SITE_URL)
        run = deliver_days(settings, DAY)
    assert [(a.channel, a.outcome) for a in run.attempts] == [("email", "sent")]
    [got] = server.messages
    assert got["tls"] and got["authenticated"] and server.auth_attempts
    assert got["rcpt"] == ["a@example.org", "b@example.org"] and got["from"] == "digest@example.org"
    message = got["message"]
    # the subject: the header, then the day's top story from <day>.json
    headline = json.loads((report_folder(settings, settings.repos[0]) / f"{DAY}.json").read_text("utf-8"))["headline"]["zh"]
    assert headline and message["Subject"] == f"vLLM 开发动态报告 - 2026-03-22 — {headline}"
    assert message.get_content_type() == "multipart/alternative"
    plain, html = message.get_body(("plain",)), message.get_body(("html",))
    folder = settings.reports_dir / "vllm-project" / "vllm"
    # SMTP carries lines ending in CRLF
    assert plain.get_content().replace("\r\n", "\n") == (folder / f"{DAY}.zh.md").read_text(encoding="utf-8")
    page = (folder / f"{DAY}.zh.html").read_text(encoding="utf-8")
    # the report page itself, its relative links resolved against its published address
    base = '<base href="https://example.org/digest/reports/vllm-project/vllm/2026-03-22.zh.html">'
    assert html.get_content().replace("\r\n", "\n") == page.replace("<head>", f"<head>\n{base}", 1)
    assert log_rows(settings) == [(DAY, "email", "sent", "new", 0, True)]


def test_plain_smtp_without_login_still_sends(rendered, tmp_path):
    with SmtpServer() as server:
        settings = copy_home(rendered, tmp_path / "home", **MAIL, VLLM_DIGEST_SMTP_PORT=str(server.port))
        deliver_days(settings, DAY)
    [got] = server.messages
    assert not got["tls"] and got["message"]["Subject"].startswith("vLLM 开发动态报告 - 2026-03-22 — ")
    # no site URL: the page goes as rendered
    assert "<base " not in got["message"].get_body(("html",)).get_content()


def test_no_password_over_a_connection_without_starttls(rendered, tmp_path):
    with SmtpServer() as server:
        settings = copy_home(rendered, tmp_path / "home", **MAIL, VLLM_DIGEST_SMTP_PORT=str(server.port),
                             VLLM_DIGEST_SMTP_USER="digest-bot", VLLM_DIGEST_SMTP_PASSWORD="smtp-pw-2")
        run = deliver_days(settings, DAY)
    [attempt] = run.attempts
    assert attempt.outcome == "failed"
    assert f"SMTP 127.0.0.1:{server.port} offers no STARTTLS" in attempt.error
    assert server.messages == [] and server.auth_attempts == []
    assert log_rows(settings) == [(DAY, "email", "failed", "new", 1, False)]
