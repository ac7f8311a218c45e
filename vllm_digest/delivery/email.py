"""E-mail: the day's HTML report as the body, its Markdown as the plain-text alternative, over SMTP.

The sender upgrades the connection with STARTTLS whenever the server offers it, and never sends
a password over a connection that is not encrypted.
"""

from __future__ import annotations

import smtplib
import socket
import ssl
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from vllm_digest.deadline import Deadline, DeadlineExceeded, run_within
from vllm_digest.delivery.digest import DayDigest, clean_line
from vllm_digest.delivery.webhook import DeliveryError, DeliveryUnknown
from vllm_digest.settings import DeliveryConfig

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
    """smtplib's client, telling how far a session got and stoppable from another thread."""

    def __init__(self, host: str, timeout: float):
        super().__init__(timeout=timeout)  # connects in connect(), in the worker
        # what starttls() checks the certificate against; smtplib sets it only when __init__ connects
        self._host = host
        self.message_sent = False   # the whole message and its final "." went out
        self.accepted = False       # the server answered the message with success
        self.cancelled = False

    def _get_socket(self, host, port, timeout):
        sock = super()._get_socket(host, port, timeout)
        if self.cancelled:
            sock.close()
            raise smtplib.SMTPServerDisconnected("the session's deadline passed while connecting")
        return sock

    def send(self, s):
        super().send(s)
        # smtplib's data() sends the message in one piece, ending with CRLF "." CRLF
        if isinstance(s, bytes) and s.endswith(b"\r\n.\r\n"):
            self.message_sent = True

    def cancel(self) -> None:
        """Called by the waiting thread at the deadline: a blocked read in the worker returns at once."""
        self.cancelled = True
        sock = getattr(self, "sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


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
            refused = smtp.send_message(message)
            smtp.accepted = True
        except BaseException:
            smtp.close()
            raise
        try:
            smtp.quit()
        except (smtplib.SMTPException, OSError):
            smtp.close()  # the message was taken: a goodbye that fails changes nothing
        return refused

    try:
        refused = run_within(session, Deadline(deadline), cancel=smtp.cancel, name="smtp-session")
    except DeliveryError:
        raise
    except (DeadlineExceeded, smtplib.SMTPException, OSError, ssl.SSLError) as exc:
        if smtp.accepted:
            return  # only the goodbye was late
        if isinstance(exc, (DeadlineExceeded, TimeoutError)):
            why = f"no answer within the {deadline:g}s delivery deadline (delivery.deadline, VLLM_DIGEST_DELIVERY_DEADLINE)"
        else:
            why = f"{type(exc).__name__}: {exc}"
        if config.smtp_password:
            why = why.replace(config.smtp_password, "***")
        # an error answer to the message is an answer: the server did not take it
        if smtp.message_sent and not isinstance(exc, smtplib.SMTPResponseException):
            raise DeliveryUnknown(f"{where}: the message went out, then {why[:300]}") from None
        raise DeliveryError(f"{where}: {why[:300]}") from None
    if refused:
        # some recipients took it: sending again would repeat it for them, so this counts as sent
        # and the refused addresses show in the log
        raise PartialDelivery(f"{where} refused {sorted(refused)}")


class PartialDelivery(DeliveryError):
    """The server took the message for some recipients and refused others."""
