"""The ``[delivery]`` settings: publishing the site and sending each day to chat and e-mail
(``vllm_digest/delivery``).

Everything is off until its address is set. A ``[delivery]`` table in the file, each key overridden by its
environment variable (an empty variable overrides the file too, so ``VLLM_DIGEST_WEBHOOK_URL=`` turns the
webhook off). The three secrets have no file key: they are read from the environment only.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from vllm_digest.core.config.values import SettingsError, parse_flag, parse_http_url, parse_int

WEBHOOK_KINDS = ("feishu", "slack", "json")
_DELIVERY_KEYS = {
    "publish_remote": "VLLM_DIGEST_PUBLISH_REMOTE",
    "publish_branch": "VLLM_DIGEST_PUBLISH_BRANCH",
    "webhook_url": "VLLM_DIGEST_WEBHOOK_URL",
    "webhook_kind": "VLLM_DIGEST_WEBHOOK_KIND",
    "smtp_host": "VLLM_DIGEST_SMTP_HOST",
    "smtp_port": "VLLM_DIGEST_SMTP_PORT",
    "smtp_user": "VLLM_DIGEST_SMTP_USER",
    "smtp_from": "VLLM_DIGEST_SMTP_FROM",
    "smtp_to": "VLLM_DIGEST_SMTP_TO",
    "updates": "VLLM_DIGEST_DELIVERY_UPDATES",
    "dry_run": "VLLM_DIGEST_DELIVERY_DRY_RUN",
    "since": "VLLM_DIGEST_DELIVERY_SINCE",
    "deadline": "VLLM_DIGEST_DELIVERY_DEADLINE",
    "publish_deadline": "VLLM_DIGEST_PUBLISH_DEADLINE",
    "on_unknown": "VLLM_DIGEST_DELIVERY_ON_UNKNOWN",
}
# what a run does with a message whose outcome is unknown (sent, no answer): hold it (at most once),
# send it again (at least once), or record it as delivered (the user saw it arrive)
ON_UNKNOWN = ("hold", "resend", "accept")
DEFAULT_DELIVERY_DEADLINE = 30
DEFAULT_PUBLISH_DEADLINE = 300
_DELIVERY_SECRETS = {
    "publish_token": "VLLM_DIGEST_PUBLISH_TOKEN",
    "webhook_secret": "VLLM_DIGEST_WEBHOOK_SECRET",
    "smtp_password": "VLLM_DIGEST_SMTP_PASSWORD",
}
# a git branch name as `git check-ref-format --branch` takes it, minus the exotic corners; both are
# matched against the whole value (fullmatch): ``$`` also matches before a final newline
_BRANCH = re.compile(r"(?!-)(?!.*\.\.)(?!.*//)(?!.*@\{)[A-Za-z0-9._/-]+(?<!\.lock)(?<![/.])")
_MAILBOX = re.compile(r"[^\s@<>,;\"]+@[^\s@<>,;\"]+")
_HOST = re.compile(r"[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]")


@dataclass(frozen=True)
class DeliveryConfig:
    """Where the site is pushed and each day is sent; each channel is off while its address is unset."""

    publish_remote: str | None = None
    publish_branch: str = "gh-pages"
    publish_token: str | None = field(default=None, repr=False)
    # a Slack or Feishu hook URL is itself a credential: kept out of repr, logs and metadata
    webhook_url: str | None = field(default=None, repr=False)
    webhook_kind: str = "json"
    webhook_secret: str | None = field(default=None, repr=False)
    smtp_host: str | None = None
    smtp_port: int = 587
    smtp_user: str | None = None
    smtp_password: str | None = field(default=None, repr=False)
    smtp_from: str | None = None
    smtp_to: tuple[str, ...] = ()
    # send an "updated" message when a delivered day's report changes
    updates: bool = False
    # log what would be published and sent, and publish, send and record nothing
    dry_run: bool = False
    # days before this one are never sent (a backfill of old days stays quiet)
    since: dt.date | None = None
    # seconds one webhook POST or one SMTP session may take in all, connecting to the last byte
    deadline: int = DEFAULT_DELIVERY_DEADLINE
    # seconds one git fetch / ls-remote / push may take before it is killed
    publish_deadline: int = DEFAULT_PUBLISH_DEADLINE
    # a message sent without an answer: hold (default), resend or accept (see ON_UNKNOWN)
    on_unknown: str = "hold"

    @property
    def channels(self) -> tuple[str, ...]:
        """The per-day channels that are on, as the delivery log names them."""
        out = [f"webhook:{self.webhook_kind}"] if self.webhook_url else []
        return (*out, "email") if self.smtp_host else tuple(out)


def _delivery_remote(value: str, name: str) -> str:
    """Any git URL (file://, https://, ssh://, user@host:path or a path), but never one holding a
    password, which git would write into its config and logs; a token goes in VLLM_DIGEST_PUBLISH_TOKEN."""
    text = value.strip()
    if not text or text.startswith("-") or any(c.isspace() for c in text):
        raise SettingsError(f"{name} {text!r} is not a git URL")
    # a password (user:password@), or over http(s) any user part (a token is often put there)
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/@]*:[^/@]*@|^https?://[^/@]*@", text):
        raise SettingsError(
            f"{name} carries credentials (user@ or user:password@); put the token in VLLM_DIGEST_PUBLISH_TOKEN instead"
        )
    return text


def _delivery_mailboxes(value, name: str) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else list(value)
    boxes = tuple(str(x).strip() for x in items if str(x).strip())
    bad = [b for b in boxes if not _MAILBOX.fullmatch(b)]
    if bad or not boxes:
        # a newline or comma inside an address would add a header or a recipient
        raise SettingsError(f"{name} {value!r} is not a comma-separated list of addresses user@host")
    return boxes


def _delivery_since(value, name: str) -> dt.date | None:
    # a day in the future is fine here: delivery then starts with that day
    if value is None or isinstance(value, dt.date) or not str(value).strip():
        return value or None
    try:
        return dt.date.fromisoformat(str(value).strip())
    except ValueError:
        raise SettingsError(f"{name} {value!r} is not a date YYYY-MM-DD") from None


def delivery_from_table(table, env: Mapping[str, str], path: Path | None) -> DeliveryConfig:
    """The ``[delivery]`` table with the environment over it; every error names the key or variable."""
    if not isinstance(table, dict):
        raise SettingsError(f"delivery {table!r} must be a table ([delivery] in the config file)")
    where = f" (in {str(path)!r})" if path else ""
    for key, var in _DELIVERY_SECRETS.items():
        if key in table:
            raise SettingsError(f"delivery.{key}{where}: a secret is read only from the environment ({var}), never from a file")
    unknown = set(table) - set(_DELIVERY_KEYS)
    if unknown:
        raise SettingsError(f"[delivery]{where} has unknown key(s) {sorted(unknown)}; known keys: {sorted(_DELIVERY_KEYS)}")
    values = {k: v for k, v in table.items()}
    names = {k: f"delivery.{k}{where}" for k in table}
    for key, var in _DELIVERY_KEYS.items():
        if var in env:
            values[key], names[key] = env[var], var
    names = {k: names.get(k, var) for k, var in _DELIVERY_KEYS.items()}
    text = {k: str(v).strip() for k, v in values.items() if not isinstance(v, (list, dt.date))}
    secret = {k: env.get(var) or None for k, var in _DELIVERY_SECRETS.items()}
    for key, value in secret.items():
        if value is not None and any(c.isspace() for c in value):
            # the value itself is never echoed: it is a secret
            raise SettingsError(f"{_DELIVERY_SECRETS[key]} contains whitespace")

    kind = text.get("webhook_kind") or "json"
    if kind not in WEBHOOK_KINDS:
        raise SettingsError(f"{names['webhook_kind']} {kind!r} is not one of {list(WEBHOOK_KINDS)}")
    webhook_url = text.get("webhook_url") or None
    if webhook_url:
        parse_http_url(webhook_url, names["webhook_url"])
        if re.match(r"^https?://[^/@]*@", webhook_url):
            raise SettingsError(f"{names['webhook_url']} carries credentials (user@); a hook URL needs none")
    if secret["webhook_secret"] and kind == "slack":
        raise SettingsError("VLLM_DIGEST_WEBHOOK_SECRET is set but Slack incoming webhooks are not signed (feishu and json are)")
    branch = text.get("publish_branch") or "gh-pages"
    if not _BRANCH.fullmatch(branch):
        raise SettingsError(f"{names['publish_branch']} {branch!r} is not a git branch name")
    remote = values.get("publish_remote")
    smtp_host = text.get("smtp_host") or None
    user = text.get("smtp_user") or None
    if smtp_host and not _HOST.fullmatch(smtp_host):
        raise SettingsError(f"{names['smtp_host']} {smtp_host!r} is not a host name")
    if smtp_host and not (values.get("smtp_from") and values.get("smtp_to")):
        missing = [names[k] for k in ("smtp_from", "smtp_to") if not values.get(k)]
        raise SettingsError(f"{names['smtp_host']} is set, so {' and '.join(missing)} must be set too")
    if bool(user) != bool(secret["smtp_password"]) and smtp_host:
        raise SettingsError(
            f"{names['smtp_user']} and VLLM_DIGEST_SMTP_PASSWORD go together: set both to log in, or neither"
        )
    since = values.get("since")
    # an empty value (VLLM_DIGEST_DELIVERY_DEADLINE=) overrides the file with "unset": the default, as
    # an empty address turns its channel off; the number settings below read it so
    on_unknown = text.get("on_unknown") or "hold"
    if on_unknown not in ON_UNKNOWN:
        raise SettingsError(f"{names['on_unknown']} {on_unknown!r} is not one of {list(ON_UNKNOWN)}")
    return DeliveryConfig(
        publish_remote=_delivery_remote(str(remote), names["publish_remote"]) if remote not in (None, "") else None,
        publish_branch=branch,
        publish_token=secret["publish_token"],
        webhook_url=webhook_url,
        webhook_kind=kind,
        webhook_secret=secret["webhook_secret"],
        smtp_host=smtp_host,
        smtp_port=parse_int(values["smtp_port"] if text.get("smtp_port") else 587, names["smtp_port"], 1, 65535),
        smtp_user=user if smtp_host else None,
        smtp_password=secret["smtp_password"] if smtp_host else None,
        smtp_from=_delivery_mailboxes(values["smtp_from"], names["smtp_from"])[0] if smtp_host else None,
        smtp_to=_delivery_mailboxes(values["smtp_to"], names["smtp_to"]) if smtp_host else (),
        updates=parse_flag(values.get("updates", False), names["updates"]),
        dry_run=parse_flag(values.get("dry_run", False), names["dry_run"]),
        since=_delivery_since(since, names["since"]),
        deadline=parse_int(values["deadline"] if text.get("deadline") else DEFAULT_DELIVERY_DEADLINE, names["deadline"], 1, 600),
        publish_deadline=parse_int(values["publish_deadline"] if text.get("publish_deadline") else DEFAULT_PUBLISH_DEADLINE, names["publish_deadline"], 1, 3600),
        on_unknown=on_unknown,
    )
