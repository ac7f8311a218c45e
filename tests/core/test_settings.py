"""Configuration: defaults, file + environment, and bad values named in the error."""

import datetime as dt

import pytest

from vllm_digest.core.config.settings import load_settings
from vllm_digest.core.config.values import SettingsError


def test_defaults(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = load_settings({})
    assert s.source == "sample"
    assert [r.full_name for r in s.repos] == ["vllm-project/vllm"]
    assert s.timezone == "Asia/Shanghai"
    assert s.cutoff == dt.time(0, 0)
    assert s.home == tmp_path / "data"
    assert s.github_api_url == "https://api.github.com"
    assert s.github_web_url == "https://github.com"


def test_environment_overrides_file(tmp_path):
    cfg = tmp_path / "cfg.toml"
    cfg.write_text('timezone = "Europe/Berlin"\ncutoff = "08:15"\nrepos = ["a/b", "c/d"]\n')
    s = load_settings({"VLLM_DIGEST_CONFIG": str(cfg), "VLLM_DIGEST_CUTOFF": "11:39"})
    assert s.timezone == "Europe/Berlin"
    assert s.cutoff == dt.time(11, 39)
    assert [r.full_name for r in s.repos] == ["a/b", "c/d"]


def test_github_request_deadline_from_file_and_environment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_settings({}).github_request_deadline == 30
    cfg = tmp_path / "cfg.toml"
    cfg.write_text("github_request_deadline = 45\n")
    assert load_settings({"VLLM_DIGEST_CONFIG": str(cfg)}).github_request_deadline == 45
    env = {"VLLM_DIGEST_CONFIG": str(cfg), "VLLM_DIGEST_GITHUB_DEADLINE": "5"}
    assert load_settings(env).github_request_deadline == 5


def test_enterprise_web_url():
    s = load_settings({"GITHUB_API_URL": "https://ghe.example.com/api/v3"})
    assert s.github_web_url == "https://ghe.example.com"


def test_token_not_in_repr():
    s = load_settings({"GITHUB_TOKEN": "ghp_secret123"})
    assert s.github_token == "ghp_secret123"
    assert "ghp_secret123" not in repr(s)


@pytest.mark.parametrize(
    "env, named",
    [
        ({"VLLM_DIGEST_TIMEZONE": "Mars/Olympus"}, "'Mars/Olympus'"),
        ({"VLLM_DIGEST_CUTOFF": "25:00"}, "'25:00'"),
        ({"VLLM_DIGEST_CUTOFF": "11.39"}, "'11.39'"),
        ({"VLLM_DIGEST_REPOS": "vllm"}, "'vllm'"),
        ({"VLLM_DIGEST_REPOS": "a/b/c"}, "'a/b/c'"),
        ({"VLLM_DIGEST_START_DATE": "2999-01-01"}, "'2999-01-01'"),
        ({"VLLM_DIGEST_START_DATE": "yesterday"}, "'yesterday'"),
        ({"VLLM_DIGEST_SOURCE": "gitlab"}, "'gitlab'"),
        ({"VLLM_DIGEST_LANGUAGES": "zh,fr"}, "'zh,fr'"),
        ({"GITHUB_API_URL": "ftp://x"}, "'ftp://x'"),
        ({"VLLM_DIGEST_GITHUB_DEADLINE": "0"}, "GitHub request deadline (seconds) '0'"),
        ({"VLLM_DIGEST_GITHUB_DEADLINE": "600"}, "GitHub request deadline (seconds) '600'"),
        ({"VLLM_DIGEST_GITHUB_DEADLINE": "soon"}, "'soon'"),
    ],
)
def test_bad_values_are_named(env, named):
    with pytest.raises(SettingsError) as err:
        load_settings(env)
    assert named in str(err.value)


def test_unknown_file_key_is_named(tmp_path):
    cfg = tmp_path / "cfg.toml"
    cfg.write_text('timezon = "UTC"\n')
    with pytest.raises(SettingsError, match="timezon"):
        load_settings({"VLLM_DIGEST_CONFIG": str(cfg)})


def test_orchestration_settings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = load_settings({})
    assert (s.schedule_lag_minutes, s.late_days, s.executor) == (10, 2, "in_process")
    s = load_settings(
        {"VLLM_DIGEST_SCHEDULE_LAG": "45", "VLLM_DIGEST_LATE_DAYS": "0", "VLLM_DIGEST_EXECUTOR": "multiprocess"}
    )
    assert (s.schedule_lag_minutes, s.late_days, s.executor) == (45, 0, "multiprocess")


@pytest.mark.parametrize(
    "env, named",
    [
        ({"VLLM_DIGEST_SCHEDULE_LAG": "-5"}, "'-5'"),
        ({"VLLM_DIGEST_SCHEDULE_LAG": "1440"}, "'1440'"),
        ({"VLLM_DIGEST_SCHEDULE_LAG": "ten"}, "'ten'"),
        ({"VLLM_DIGEST_LATE_DAYS": "31"}, "'31'"),
        ({"VLLM_DIGEST_LATE_DAYS": "1.5"}, "'1.5'"),
        ({"VLLM_DIGEST_EXECUTOR": "celery"}, "'celery'"),
    ],
)
def test_bad_orchestration_values_are_named(env, named):
    with pytest.raises(SettingsError) as err:
        load_settings(env)
    assert named in str(err.value)


# --- the optional narrative ---------------------------------------------------------------------

NARRATIVE_TOML = """
[narrative]
base_url = "http://127.0.0.1:8000/v1"
model = "Qwen/Qwen3-8B"
timeout = 30
max_tokens = 800
temperature = 0.3
refresh = true
"""


def test_narrative_is_off_by_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_settings({}).narrative.enabled is False


def test_narrative_from_file_with_environment_over_it(tmp_path):
    cfg = tmp_path / "cfg.toml"
    cfg.write_text(NARRATIVE_TOML)
    n = load_settings({"VLLM_DIGEST_CONFIG": str(cfg)}).narrative
    assert (n.base_url, n.model, n.timeout, n.max_tokens, n.temperature, n.refresh) == (
        "http://127.0.0.1:8000/v1", "Qwen/Qwen3-8B", 30.0, 800, 0.3, True)
    n = load_settings({"VLLM_DIGEST_CONFIG": str(cfg), "VLLM_DIGEST_LLM_MODEL": "other",
                       "VLLM_DIGEST_LLM_REFRESH": "0", "VLLM_DIGEST_LLM_API_KEY": "sk-abc"}).narrative
    assert (n.model, n.refresh, n.api_key) == ("other", False, "sk-abc")
    # an empty variable turns off what the file turned on
    assert not load_settings({"VLLM_DIGEST_CONFIG": str(cfg), "VLLM_DIGEST_LLM_BASE_URL": ""}).narrative.enabled


def test_narrative_key_not_in_repr():
    s = load_settings({"VLLM_DIGEST_LLM_BASE_URL": "http://127.0.0.1:8000/v1", "VLLM_DIGEST_LLM_MODEL": "m",
                       "VLLM_DIGEST_LLM_API_KEY": "sk-secret-987"})
    assert s.narrative.api_key == "sk-secret-987"
    assert "sk-secret-987" not in repr(s) and "sk-secret-987" not in str(s.narrative)


@pytest.mark.parametrize(
    "line, named",
    [
        ('timeout = "soon"', ["narrative.timeout", "'soon'"]),
        ("max_tokens = 1.5", ["narrative.max_tokens", "'1.5'"]),
        ("temperature = 9", ["narrative.temperature", "'9'"]),
        ('refresh = "maybe"', ["narrative.refresh", "'maybe'"]),
        ('modle = "x"', ["modle"]),
        ('api_key = "sk-in-a-file"', ["narrative.api_key", "VLLM_DIGEST_LLM_API_KEY"]),
    ],
)
def test_bad_narrative_file_values_are_named(tmp_path, line, named):
    cfg = tmp_path / "cfg.toml"
    cfg.write_text(f'[narrative]\nbase_url = "http://127.0.0.1:8000/v1"\nmodel = "m"\n{line}\n')
    with pytest.raises(SettingsError) as err:
        load_settings({"VLLM_DIGEST_CONFIG": str(cfg)})
    for part in named:
        assert part in str(err.value)
    assert "sk-in-a-file" not in str(err.value)


@pytest.mark.parametrize(
    "env, named",
    [
        ({"VLLM_DIGEST_LLM_BASE_URL": "ftp://x/v1"}, ["VLLM_DIGEST_LLM_BASE_URL", "'ftp://x/v1'"]),
        ({"VLLM_DIGEST_LLM_MODEL": ""}, ["VLLM_DIGEST_LLM_MODEL"]),
        ({"VLLM_DIGEST_LLM_TIMEOUT": "0"}, ["VLLM_DIGEST_LLM_TIMEOUT", "'0'"]),
        ({"VLLM_DIGEST_LLM_MAX_TOKENS": "lots"}, ["VLLM_DIGEST_LLM_MAX_TOKENS", "'lots'"]),
    ],
)
def test_bad_narrative_environment_values_are_named(env, named):
    base = {"VLLM_DIGEST_LLM_BASE_URL": "http://127.0.0.1:8000/v1", "VLLM_DIGEST_LLM_MODEL": "m"}
    with pytest.raises(SettingsError) as err:
        load_settings({**base, **env})
    for part in named:
        assert part in str(err.value)


def test_credentials_in_the_base_url_are_refused_without_echoing_them():
    with pytest.raises(SettingsError) as err:
        load_settings({"VLLM_DIGEST_LLM_BASE_URL": "https://me:hunter2@llm.example/v1", "VLLM_DIGEST_LLM_MODEL": "m"})
    assert "VLLM_DIGEST_LLM_BASE_URL" in str(err.value) and "VLLM_DIGEST_LLM_API_KEY" in str(err.value)
    assert "hunter2" not in str(err.value)


def test_end_date_from_file_or_environment(tmp_path):
    cfg = tmp_path / "cfg.toml"
    cfg.write_text('end_date = "2026-03-10"\n')
    assert load_settings({"VLLM_DIGEST_CONFIG": str(cfg)}).end_date == dt.date(2026, 3, 10)
    env = {"VLLM_DIGEST_CONFIG": str(cfg), "VLLM_DIGEST_END_DATE": "2026-03-12"}
    assert load_settings(env).end_date == dt.date(2026, 3, 12)
    assert load_settings({}).end_date is None


@pytest.mark.parametrize(
    "env, message",
    [
        ({"VLLM_DIGEST_END_DATE": "soon"}, "end date 'soon' is not a date YYYY-MM-DD"),
        ({"VLLM_DIGEST_END_DATE": "2999-01-01"}, "end date '2999-01-01' is in the future"),
        (
            {"VLLM_DIGEST_START_DATE": "2026-03-05", "VLLM_DIGEST_END_DATE": "2026-03-04"},
            "end date '2026-03-04' is before the start date '2026-03-05'",
        ),
    ],
)
def test_bad_end_date_is_named(env, message):
    with pytest.raises(SettingsError, match=message):
        load_settings(env)


# --- values that slip past a check, and values too long or not what they name -----------------------

@pytest.mark.parametrize(
    "variable, value, says",
    [
        ("VLLM_DIGEST_REPOS", "vllm-project\n/vllm", "is not of the form owner/name"),
        ("GITHUB_API_URL", "https://api.github.com\n", "is not an http(s) URL"),
        ("GITHUB_WEB_URL", "https://github.example\n", "is not an http(s) URL"),
        ("VLLM_DIGEST_SITE_URL", "https://digest.example/\n", "is not an http(s) URL"),
    ],
)
def test_a_line_break_inside_a_value_is_refused(variable, value, says):
    """``$`` matches before a final newline: a ``^...$`` check passed these, and the line break went on
    into URLs, file names and Dagster keys. Every check matches the whole value."""
    with pytest.raises(SettingsError) as err:
        load_settings({variable: value})
    message = str(err.value)
    assert message.startswith(f"{variable}: ") and repr(value) in message and says in message, message
    assert "\n" not in message


def test_a_line_break_in_a_file_repo_names_the_file_and_key(tmp_path):
    cfg = tmp_path / "cfg.toml"
    cfg.write_text('repos = ["vllm-project\\n/vllm"]\n', encoding="utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings({"VLLM_DIGEST_CONFIG": str(cfg)})
    assert str(err.value).startswith(f"key 'repos' in '{cfg}': repo 'vllm-project\\n/vllm' is not"), err.value


def test_a_very_long_timezone_is_one_capped_line_naming_the_variable():
    """305 characters made zoneinfo open a file whose name is too long: an OSError, not a timezone error."""
    value = "Europe/" + "x" * 298
    with pytest.raises(SettingsError) as err:
        load_settings({"VLLM_DIGEST_TIMEZONE": value})
    message = str(err.value)
    assert message.startswith("VLLM_DIGEST_TIMEZONE: timezone 'Europe/xxx") and "(305 characters)" in message
    assert "is not a known IANA timezone" in message and value not in message and len(message) < 200, message


@pytest.mark.parametrize(
    "content, says",
    [
        (b"root:x:0:0:root:/root:/bin/bash\n", "not valid TOML"),
        (b"\x7fELF\x02\x01\x01\x00\xff\xfe", "not UTF-8 text"),
    ],
    ids=["passwd", "binary"],
)
def test_a_taxonomy_that_is_not_toml_stops_the_settings_naming_it(tmp_path, content, says):
    """Checked only when the definitions were built, it was a traceback; now the settings refuse it."""
    taxonomy = tmp_path / "passwd"
    taxonomy.write_bytes(content)
    with pytest.raises(SettingsError) as err:
        load_settings({"VLLM_DIGEST_TAXONOMY": str(taxonomy)})
    assert str(err.value).startswith(f"VLLM_DIGEST_TAXONOMY: taxonomy '{taxonomy}': {says}"), err.value
    cfg = tmp_path / "cfg.toml"
    cfg.write_text(f'taxonomy = "{taxonomy}"\n', encoding="utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings({"VLLM_DIGEST_CONFIG": str(cfg)})
    assert str(err.value).startswith(f"key 'taxonomy' in '{cfg}': taxonomy '{taxonomy}': {says}"), err.value
