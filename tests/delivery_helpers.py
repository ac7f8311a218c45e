"""What the delivery tests share: a rendered data home to copy, bare git remotes, an SMTP server
(aiosmtpd, optionally with STARTTLS and login) and a self-signed certificate for it."""

from __future__ import annotations

import email
import email.policy
import shutil
import subprocess
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from vllm_digest.core.config.settings import Settings
from vllm_digest.core.sqlmodel.state import StateResource
from vllm_digest.delivery.deliver import deliver
from vllm_digest.testing.net import free_port
from vllm_digest.testing.pipeline import materialize, settings_at


DAY = "2026-03-22"
EARLIER = "2026-03-21"
SITE_URL = "https://example.org/digest/site"
COUNTS = {"new_issues": 10, "closed_issues": 10, "new_prs": 48, "merged_prs": 21, "closed_unmerged_prs": 15}


def render_days(home: Path, *days: str) -> Path:
    """A data home with ``days`` rendered by the real graph, no delivery configured."""
    settings = settings_at(home)
    materialize(settings, days[0], days[-1])
    return home


def copy_home(template: Path, to: Path, **env: str) -> Settings:
    shutil.copytree(template, to)
    return settings_at(to, **env)


def deliver_days(settings: Settings, *days: str):
    return deliver(settings, settings.repos[0], list(days), StateResource(path=str(settings.state_path)).connect)


def log_rows(settings: Settings) -> list[tuple]:
    with StateResource(path=str(settings.state_path)).connect(read_only=True) as con:
        return con.execute(
            "SELECT CAST(day AS VARCHAR), channel, status, message, attempts, error IS NULL "
            "FROM delivery_log ORDER BY day, channel"
        ).fetchall()


def git(git_dir: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"git {args} failed: {done.stderr}")
    return done.stdout.strip()


def bare_remote(path: Path) -> Path:
    subprocess.run(["git", "init", "--quiet", "--bare", str(path)], check=True)
    return path


def reject_pushes(remote: Path, on: bool) -> None:
    """A pre-receive hook that refuses every push, as a server does when it is down or refuses the token."""
    hook = remote / "hooks" / "pre-receive"
    if on:
        hook.write_text("#!/bin/sh\necho 'refused by the test' >&2\nexit 1\n")
        hook.chmod(0o755)
    else:
        hook.unlink()


def self_signed_cert(folder: Path) -> tuple[Path, Path]:
    """A certificate for localhost and 127.0.0.1 (and its key), made with the openssl command."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    return cert, key


class SmtpServer:
    """aiosmtpd on a free port; records each message with whether it came over TLS and logged in."""

    def __init__(self, tls_context=None, user: str | None = None, password: str | None = None):
        self.messages: list[dict] = []
        self.auth_attempts: list[str] = []
        self.port = free_port()
        server = self

        class Handler:
            async def handle_DATA(self, smtp, session, envelope):
                server.messages.append({
                    "tls": session.ssl is not None,
                    "authenticated": bool(session.authenticated),
                    "rcpt": list(envelope.rcpt_tos),
                    "from": envelope.mail_from,
                    "message": email.message_from_bytes(envelope.original_content, policy=email.policy.default),
                })
                return "250 OK"

        def authenticator(smtp, session, envelope, mechanism, data):
            server.auth_attempts.append(mechanism)
            ok = data.login.decode() == user and data.password.decode() == password
            return AuthResult(success=ok)

        kwargs = {}
        if tls_context is not None:
            kwargs.update(tls_context=tls_context, require_starttls=True)
        if user:
            kwargs.update(authenticator=authenticator, auth_require_tls=True)
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port, **kwargs)

    def __enter__(self) -> "SmtpServer":
        self.controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self.controller.stop()
