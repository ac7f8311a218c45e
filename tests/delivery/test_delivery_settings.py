"""Delivery settings: off by default, [delivery] in the file with the environment over it, secrets from
the environment only, and every bad value named with where it came from."""

import datetime as dt

import pytest

from vllm_digest.core.config.settings import load_settings
from vllm_digest.core.config.values import SettingsError
from vllm_digest.delivery.publish import publish_token

SMTP = {"VLLM_DIGEST_SMTP_HOST": "mail.example.org", "VLLM_DIGEST_SMTP_FROM": "digest@example.org",
        "VLLM_DIGEST_SMTP_TO": "a@example.org, b@example.org"}


def test_everything_is_off_by_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = load_settings({}).delivery
    assert config.publish_remote is None and config.webhook_url is None and config.smtp_host is None
    assert config.channels == ()
    assert (config.publish_branch, config.webhook_kind, config.smtp_port) == ("gh-pages", "json", 587)
    assert (config.updates, config.dry_run, config.since) == (False, False, None)


def test_file_table_with_the_environment_over_it(tmp_path):
    cfg = tmp_path / "cfg.toml"
    cfg.write_text(
        "[delivery]\n"
        'publish_remote = "file:///srv/pages.git"\npublish_branch = "pages"\n'
        'webhook_url = "https://open.feishu.cn/open-apis/bot/v2/hook/abc"\nwebhook_kind = "feishu"\n'
        'smtp_host = "mail.example.org"\nsmtp_port = 2525\nsmtp_from = "d@example.org"\nsmtp_to = ["x@example.org"]\n'
        "updates = true\nsince = 2026-03-01\n"
    )
    env = {"VLLM_DIGEST_CONFIG": str(cfg), "VLLM_DIGEST_PUBLISH_BRANCH": "gh-pages", "VLLM_DIGEST_WEBHOOK_SECRET": "s3cret",
           "VLLM_DIGEST_DELIVERY_DRY_RUN": "yes"}
    config = load_settings(env).delivery
    assert config.publish_remote == "file:///srv/pages.git"
    assert config.publish_branch == "gh-pages"
    assert (config.webhook_kind, config.webhook_secret) == ("feishu", "s3cret")
    assert (config.smtp_port, config.smtp_to) == (2525, ("x@example.org",))
    assert (config.updates, config.dry_run, config.since) == (True, True, dt.date(2026, 3, 1))
    assert config.channels == ("webhook:feishu", "email")
    # an empty variable overrides the file too: the webhook is off
    assert load_settings({**env, "VLLM_DIGEST_WEBHOOK_URL": ""}).delivery.channels == ("email",)


@pytest.mark.parametrize("key", ["publish_token", "webhook_secret", "smtp_password"])
def test_secrets_are_refused_as_file_keys(tmp_path, key):
    cfg = tmp_path / "cfg.toml"
    cfg.write_text(f'[delivery]\n{key} = "in-a-file"\n')
    with pytest.raises(SettingsError) as err:
        load_settings({"VLLM_DIGEST_CONFIG": str(cfg)})
    assert f"delivery.{key}" in str(err.value) and str(cfg) in str(err.value) and "environment" in str(err.value)
    assert "in-a-file" not in str(err.value)


def test_secrets_stay_out_of_repr():
    s = load_settings({**SMTP, "VLLM_DIGEST_SMTP_USER": "bot", "VLLM_DIGEST_SMTP_PASSWORD": "pw-123",
                       "VLLM_DIGEST_PUBLISH_TOKEN": "tok-456", "VLLM_DIGEST_WEBHOOK_SECRET": "sec-789",
                       "VLLM_DIGEST_WEBHOOK_URL": "https://hooks.slack.invalid/services/HOOK-TOKEN"})
    assert s.delivery.smtp_password == "pw-123" and s.delivery.publish_token == "tok-456"
    for secret in ("pw-123", "tok-456", "sec-789", "HOOK-TOKEN"):
        assert secret not in repr(s)


@pytest.mark.parametrize(
    "env, named",
    [
        ({"VLLM_DIGEST_WEBHOOK_KIND": "teams", "VLLM_DIGEST_WEBHOOK_URL": "https://x.invalid/h"}, "VLLM_DIGEST_WEBHOOK_KIND 'teams'"),
        ({"VLLM_DIGEST_WEBHOOK_URL": "ftp://x.invalid/h"}, "VLLM_DIGEST_WEBHOOK_URL 'ftp://x.invalid/h'"),
        ({"VLLM_DIGEST_PUBLISH_BRANCH": "gh..pages"}, "VLLM_DIGEST_PUBLISH_BRANCH 'gh..pages'"),
        ({"VLLM_DIGEST_PUBLISH_REMOTE": "--upload-pack=sh"}, "VLLM_DIGEST_PUBLISH_REMOTE '--upload-pack=sh'"),
        ({"VLLM_DIGEST_PUBLISH_REMOTE": "https://user:pw@github.com/o/r.git"}, "VLLM_DIGEST_PUBLISH_REMOTE carries credentials"),
        ({"VLLM_DIGEST_PUBLISH_REMOTE": "https://ghp_tok@github.com/o/r.git"}, "VLLM_DIGEST_PUBLISH_REMOTE carries credentials"),
        ({**SMTP, "VLLM_DIGEST_SMTP_PORT": "99999"}, "VLLM_DIGEST_SMTP_PORT '99999'"),
        ({**SMTP, "VLLM_DIGEST_SMTP_TO": "a@example.org\nBcc: b@example.org"}, "VLLM_DIGEST_SMTP_TO"),
        ({**SMTP, "VLLM_DIGEST_SMTP_FROM": ""}, "VLLM_DIGEST_SMTP_FROM must be set"),
        ({**SMTP, "VLLM_DIGEST_SMTP_USER": "bot"}, "VLLM_DIGEST_SMTP_PASSWORD go together"),
        ({"VLLM_DIGEST_DELIVERY_DRY_RUN": "maybe"}, "VLLM_DIGEST_DELIVERY_DRY_RUN 'maybe'"),
        ({"VLLM_DIGEST_DELIVERY_SINCE": "March"}, "VLLM_DIGEST_DELIVERY_SINCE 'March'"),
        ({"VLLM_DIGEST_WEBHOOK_KIND": "slack", "VLLM_DIGEST_WEBHOOK_URL": "https://x.invalid/h",
          "VLLM_DIGEST_WEBHOOK_SECRET": "s"}, "Slack incoming webhooks are not signed"),
    ],
)
def test_bad_values_are_named(env, named):
    with pytest.raises(SettingsError) as err:
        load_settings(env)
    assert named in str(err.value)


def test_bad_file_value_names_the_key_and_the_file(tmp_path):
    cfg = tmp_path / "cfg.toml"
    cfg.write_text('[delivery]\nwebhook_kind = "discord"\n')
    with pytest.raises(SettingsError) as err:
        load_settings({"VLLM_DIGEST_CONFIG": str(cfg)})
    assert f"delivery.webhook_kind (in '{cfg}') 'discord'" in str(err.value)


def test_github_token_is_offered_only_to_the_github_host():
    github = load_settings({"GITHUB_TOKEN": "gh-tok", "VLLM_DIGEST_PUBLISH_REMOTE": "https://github.com/o/r.git"})
    other = load_settings({"GITHUB_TOKEN": "gh-tok", "VLLM_DIGEST_PUBLISH_REMOTE": "https://git.example.org/o/r.git"})
    own = load_settings({"GITHUB_TOKEN": "gh-tok", "VLLM_DIGEST_PUBLISH_TOKEN": "own",
                         "VLLM_DIGEST_PUBLISH_REMOTE": "https://git.example.org/o/r.git"})
    assert (publish_token(github), publish_token(other), publish_token(own)) == ("gh-tok", None, "own")


def test_an_empty_number_variable_means_its_default_over_the_file(tmp_path):
    # as an empty address turns its channel off, an empty number overrides the file with "unset"
    cfg = tmp_path / "cfg.toml"
    cfg.write_text('[delivery]\ndeadline = 9\npublish_deadline = 99\nsmtp_port = 2525\n')
    empty = {"VLLM_DIGEST_CONFIG": str(cfg), **SMTP, "VLLM_DIGEST_DELIVERY_DEADLINE": "",
             "VLLM_DIGEST_PUBLISH_DEADLINE": " ", "VLLM_DIGEST_SMTP_PORT": ""}
    config = load_settings(empty).delivery
    assert (config.deadline, config.publish_deadline, config.smtp_port) == (30, 300, 587)
    assert load_settings({"VLLM_DIGEST_CONFIG": str(cfg), **SMTP}).delivery.deadline == 9
    with pytest.raises(SettingsError) as caught:
        load_settings({**empty, "VLLM_DIGEST_DELIVERY_DEADLINE": "soon"})
    assert str(caught.value) == "VLLM_DIGEST_DELIVERY_DEADLINE 'soon' is not a whole number from 1 to 600"
