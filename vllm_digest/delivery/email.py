"""E-mail: the day's HTML report as the body, its Markdown as the plain-text alternative, over SMTP.

The sender upgrades the connection with STARTTLS whenever the server offers it, and never sends
a password over a connection that is not encrypted.
"""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from vllm_digest.delivery.digest import DayDigest
from vllm_digest.delivery.webhook import DeliveryError
from vllm_digest.settings import DeliveryConfig

TIMEOUT_SECONDS = 30.0


def with_base(html: str, url: str | None) -> str:
    """The page with ``<base href>`` set to its published address, so its relative links (the other
    language, the site index) work from a mail client; unchanged when there is no address."""
    if not url or "<head>" not in html:
        return html
    escaped = url.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return html.replace("<head>", f'<head>\n<base href="{escaped}">', 1)


def build_message(config: DeliveryConfig, d: DayDigest, lang: str, updated: bool) -> EmailMessage:
    message = EmailMessage()
    # the header is ours (configured name, day, fixed words): no untrusted text reaches a header
    message["Subject"] = d.header(lang, updated)
    message["From"] = config.smtp_from
    message["To"] = ", ".join(config.smtp_to)
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain=config.smtp_from.rsplit("@", 1)[1])
    message.set_content(d.md_paths[lang].read_text(encoding="utf-8"))
    message.add_alternative(with_base(d.html_paths[lang].read_text(encoding="utf-8"), d.page_urls.get(lang)), subtype="html")
    return message


def send(config: DeliveryConfig, message: EmailMessage, timeout: float = TIMEOUT_SECONDS) -> None:
    """One SMTP session: EHLO, STARTTLS when offered, login when configured, send."""
    where = f"SMTP {config.smtp_host}:{config.smtp_port}"
    try:
        with smtplib.SMTP(config.smtp_host, config.smtp_port, timeout=timeout) as smtp:
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
    except DeliveryError:
        raise
    except (smtplib.SMTPException, OSError, ssl.SSLError) as exc:
        text = str(exc)
        if config.smtp_password:
            text = text.replace(config.smtp_password, "***")
        raise DeliveryError(f"{where}: {type(exc).__name__}: {text[:300]}") from None
    if refused:
        # some recipients took it: sending again would repeat it for them, so this counts as sent
        # and the refused addresses show in the log
        raise PartialDelivery(f"{where} refused {sorted(refused)}")


class PartialDelivery(DeliveryError):
    """The server took the message for some recipients and refused others."""
