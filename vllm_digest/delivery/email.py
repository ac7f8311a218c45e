"""E-mail: the day's HTML report as the body, its Markdown as the plain-text alternative, over SMTP.

The sender upgrades the connection with STARTTLS whenever the server offers it, and never sends
a password over a connection that is not encrypted.
"""

from __future__ import annotations

import smtplib
import socket
import ssl
import threading
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from vllm_digest.core.config.delivery import DeliveryConfig
from vllm_digest.core.deadline import Deadline, DeadlineExceeded, run_within
from vllm_digest.delivery.digest import DayDigest, clean_line
from vllm_digest.delivery.webhook import DeliveryError, DeliveryUnknown
# seconds one SMTP session may take in all (delivery.deadline), connecting to the goodbye
DEADLINE_SECONDS = 30.0


def with_base(html: str, url: str | None) -> str:
    """The page with ``<base href>`` set to its published address, so its relative links (the other
    language, the site index) work from a mail client; unchanged when there is no address."""
    if not url or "<head>" not in html:
        return html
    escaped = url.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return html.replace("<head>", f'<head>\n<base href="{escaped}">', 1)


def build_message(config: DeliveryConfig, d: DayDigest, lang: str, updated: bool, key: str | None = None) -> EmailMessage:
    """The message; ``key`` (the message's idempotency key) makes its Message-ID the same every time
    the same message is sent, so a mail system that drops duplicates by Message-ID can."""
    message = EmailMessage()
    # the header is ours (configured name, day, fixed words) and the headline the day's top story (cleaned at
    # read), cleaned again as a header must be one line
    message["Subject"] = clean_line(d.title(lang, updated))
    message["From"] = config.smtp_from
    message["To"] = ", ".join(config.smtp_to)
    message["Date"] = formatdate(localtime=False)
    domain = config.smtp_from.rsplit("@", 1)[1]
    message["Message-ID"] = f"<{key[:40]}.vllm-digest@{domain}>" if key else make_msgid(domain=domain)
    message.set_content(d.md_paths[lang].read_text(encoding="utf-8"))
    message.add_alternative(with_base(d.html_paths[lang].read_text(encoding="utf-8"), d.page_urls.get(lang)), subtype="html")
    return message


class _SMTP(smtplib.SMTP):
    """smtplib's client, telling how far a session got and stoppable from another thread.

    ``cancel()`` (the waiting thread, at the deadline) and the worker share a lock: the worker checks
    it once its socket is connected (before smtplib stores it in ``sock``, where cancel would not see
    it yet) and before every byte it sends. So once ``cancel()`` returned, nothing more goes out, and
    ``message_started`` no longer changes: False means the message never went out and never will."""

    def __init__(self, host: str, timeout: float):
        super().__init__(timeout=timeout)  # connects in connect(), in the worker
        # what starttls() checks the certificate against; smtplib sets it only when __init__ connects
        self._host = host
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None  # the connected socket, before smtplib stores it
        self.message_started = False  # the message itself began to go out
        self.message_sent = False     # the whole message and its final "." went out
        self.accepted = False         # the server answered the message with success
        self.refused: dict = {}       # the recipients it refused (with accepted)
        self.cancelled = False

    def _get_socket(self, host, port, timeout):
        sock = super()._get_socket(host, port, timeout)
        with self._lock:
            if self.cancelled:
                sock.close()
                raise smtplib.SMTPServerDisconnected("the session's deadline passed while connecting")
            self._socket = sock
        return sock

    def send(self, s):
        # smtplib's data() sends the message in one piece, ending with CRLF "." CRLF
        message = isinstance(s, bytes) and s.endswith(b"\r\n.\r\n")
        with self._lock:
            if self.cancelled:
                raise smtplib.SMTPServerDisconnected("the session's deadline passed")
            self.message_started = self.message_started or message
        super().send(s)
        if message:
            self.message_sent = True

    def cancel(self) -> None:
        """Called by the waiting thread at the deadline: a blocked read in the worker returns at once."""
        with self._lock:
            self.cancelled = True
            socks = [getattr(self, "sock", None), self._socket]
        for sock in socks:
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # closed already, or detached into the TLS socket that ``sock`` now is


def send(config: DeliveryConfig, message: EmailMessage, deadline: float = DEADLINE_SECONDS) -> None:
    """One SMTP session (EHLO, STARTTLS when offered, login when configured, send), all of it within
    ``deadline`` seconds: a server that stalls or trickles its replies cannot hold it longer.

    No answer to the message itself (the server stalled or dropped the connection after the message
    went out) is a ``DeliveryUnknown``: the server may have taken it."""
    where = f"SMTP {config.smtp_host}:{config.smtp_port}"
    smtp = _SMTP(config.smtp_host, timeout=deadline)

    def session() -> dict:
        try:
            smtp.connect(config.smtp_host, config.smtp_port)
            smtp.ehlo()
            if smtp.has_extn("starttls"):
                smtp.starttls(context=ssl.create_default_context())
                smtp.ehlo()
            elif config.smtp_user:
                raise DeliveryError(
                    f"{where} offers no STARTTLS: the password is not sent over an unencrypted connection"
                )
            if config.smtp_user:
                smtp.login(config.smtp_user, config.smtp_password or "")
            smtp.refused = smtp.send_message(message)
            smtp.accepted = True
        except BaseException:
            smtp.close()
            raise
        try:
            smtp.quit()
        except (smtplib.SMTPException, OSError):
            smtp.close()  # the message was taken: a goodbye that fails changes nothing
        return smtp.refused

    try:
        refused = run_within(session, Deadline(deadline), cancel=smtp.cancel, name="smtp-session")
    except DeliveryError:
        raise
    except (DeadlineExceeded, smtplib.SMTPException, OSError, ssl.SSLError) as exc:
        if smtp.accepted:
            refused = smtp.refused  # only the goodbye was late: the answer to the message stands
        else:
            raise _failure(where, smtp, exc, deadline, config.smtp_password) from None
    if refused:
        # some recipients took it: sending again would repeat it for them, so this counts as sent
        # and the refused addresses show in the log
        raise PartialDelivery(f"{where} refused {sorted(refused)}")


def _failure(where: str, smtp: _SMTP, exc: BaseException, deadline: float, password: str | None) -> DeliveryError:
    """What a session that got no success answer to the message comes to: failed or unknown."""
    if isinstance(exc, (DeadlineExceeded, TimeoutError)):
        why = f"no answer within the {deadline:g}s delivery deadline (delivery.deadline, VLLM_DIGEST_DELIVERY_DEADLINE)"
    else:
        why = f"{type(exc).__name__}: {exc}"
    if password:
        why = why.replace(password, "***")
    # cancelled at the deadline with the worker still busy: a message that had begun to go out may
    # still arrive whole; else the worker ended on its own, with the message out in full or not
    went_out = smtp.message_started if smtp.cancelled else smtp.message_sent
    # an error answer to the message is an answer: the server did not take it
    if went_out and not isinstance(exc, smtplib.SMTPResponseException):
        return DeliveryUnknown(f"{where}: the message went out, then {why[:300]}")
    return DeliveryError(f"{where}: {why[:300]}")


class PartialDelivery(DeliveryError):
    """The server took the message for some recipients and refused others."""
