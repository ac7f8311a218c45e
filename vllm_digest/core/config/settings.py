"""The one place configuration is read and validated.

Values come from an optional TOML file (``VLLM_DIGEST_CONFIG``, else
``./vllm_digest.toml`` when it exists) and are overridden by environment
variables. Every bad value stops here, before any run, with a message that
names it.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from vllm_digest.core.config.delivery import DeliveryConfig, delivery_from_table
from vllm_digest.core.config.narrative import NarrativeConfig, narrative_from_table
from vllm_digest.core.config.values import SettingsError, parse_flag, parse_http_url, parse_int, shown
from vllm_digest.core.i18n import Catalog, CatalogError, available_languages, load_catalog
from vllm_digest.core.taxonomy.loader import TaxonomyError, taxonomy_at, taxonomy_from_settings

SOURCES = ("sample", "github")
EXECUTORS = ("in_process", "multiprocess")
# the report's languages unless configured, in the order pages and sections are written; each needs a
# message catalog (vllm_digest/core/i18n/<lang>.toml, or one in catalog_dir)
LANGUAGES = ("zh", "en")
# the Atom feed's language (its titles and the summary an entry shows)
FEED_LANGUAGE = "en"
DEFAULT_REPOS = ("vllm-project/vllm",)
DEFAULT_START_DATE = dt.date(2026, 3, 1)
# seconds one GitHub request (connect, headers, whole body) may take; the client's retries of a
# request stop after 2 minutes, so a deadline beyond that could never be used in full
DEFAULT_GITHUB_DEADLINE = 30
MAX_GITHUB_DEADLINE = 120
MAX_GITHUB_PEOPLE = 1000
MAX_GITHUB_FILES = 20
# on by default for the github source: a day's new authors are few once the cache is warm (issue 18's
# figure: ~16 profile requests on a typical day), and 20 PRs' files is the issue's daily budget
DEFAULT_GITHUB_PEOPLE = 100
DEFAULT_GITHUB_FILES = MAX_GITHUB_FILES

# both are matched against the whole value (fullmatch): ``$`` also matches before a final newline
_REPO_PART = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,99})")
_CUTOFF = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")

# file key -> environment variable
_ENV_KEYS = {
    "home": "VLLM_DIGEST_HOME",
    "source": "VLLM_DIGEST_SOURCE",
    "repos": "VLLM_DIGEST_REPOS",
    "timezone": "VLLM_DIGEST_TIMEZONE",
    "cutoff": "VLLM_DIGEST_CUTOFF",
    "start_date": "VLLM_DIGEST_START_DATE",
    "end_date": "VLLM_DIGEST_END_DATE",
    "languages": "VLLM_DIGEST_LANGUAGES",
    "catalog_dir": "VLLM_DIGEST_CATALOG_DIR",
    "feed_language": "VLLM_DIGEST_FEED_LANGUAGE",
    "taxonomy": "VLLM_DIGEST_TAXONOMY",
    "sample_dir": "VLLM_DIGEST_SAMPLE_DIR",
    "github_api_url": "GITHUB_API_URL",
    "github_web_url": "GITHUB_WEB_URL",
    "github_request_deadline": "VLLM_DIGEST_GITHUB_DEADLINE",
    "github_people_requests": "VLLM_DIGEST_GITHUB_PEOPLE",
    "github_file_requests": "VLLM_DIGEST_GITHUB_FILES",
    "schedule_lag_minutes": "VLLM_DIGEST_SCHEDULE_LAG",
    "late_days": "VLLM_DIGEST_LATE_DAYS",
    "executor": "VLLM_DIGEST_EXECUTOR",
    "site_url": "VLLM_DIGEST_SITE_URL",
    "planned_events_per_run": "VLLM_DIGEST_PLANNED_EVENTS_PER_RUN",
}
_FILE_ONLY_KEYS = {"display_names", "narrative", "delivery"}


@dataclass(frozen=True)
class RepoRef:
    """A GitHub repository, ``owner/name``."""

    owner: str
    name: str

    @classmethod
    def parse(cls, text: str) -> "RepoRef":
        parts = text.strip().split("/")
        if len(parts) != 2 or not all(_REPO_PART.fullmatch(p) for p in parts):
            raise SettingsError(
                f"repo {shown(text)} is not of the form owner/name "
                "(letters, digits, '.', '-', '_')"
            )
        return cls(parts[0], parts[1])

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def slug(self) -> str:
        """A name usable in Dagster op names and file names."""
        return re.sub(r"[^A-Za-z0-9_]", "_", f"{self.owner}__{self.name}")

    @property
    def key_prefix(self) -> list[str]:
        return [re.sub(r"[^A-Za-z0-9_]", "_", p) for p in (self.owner, self.name)]


@dataclass(frozen=True)
class Settings:
    home: Path
    source: str = "sample"
    repos: tuple[RepoRef, ...] = tuple(RepoRef.parse(r) for r in DEFAULT_REPOS)
    timezone: str = "Asia/Shanghai"
    cutoff: dt.time = dt.time(0, 0)
    start_date: dt.date = DEFAULT_START_DATE
    # the last partition; unset: the sample source ends with the last day its data covers,
    # the github source runs to the last closed day (see partitions.last_day)
    end_date: dt.date | None = None
    github_api_url: str = "https://api.github.com"
    github_web_override: str | None = None
    github_token: str | None = field(default=None, repr=False)
    github_request_deadline: int = DEFAULT_GITHUB_DEADLINE
    # account profiles (GET /users/{login}) the github source asks a day, new or due monthly; 0: none
    github_people_requests: int = DEFAULT_GITHUB_PEOPLE
    # PRs whose changed files (GET /pulls/{n}/files) the github source asks a day, key-change and focus
    # candidates first; 0: none, at most MAX_GITHUB_FILES
    github_file_requests: int = DEFAULT_GITHUB_FILES
    # where site/ is published (its index.html's folder); makes the feed's links absolute
    site_url: str | None = None
    languages: tuple[str, ...] = LANGUAGES
    # a folder of extra or replacement message catalogs (<lang>.toml), looked in before the bundled ones
    catalog_dir: Path | None = None
    feed_language: str = FEED_LANGUAGE
    taxonomy: Path | None = None
    sample_dir: Path | None = None
    display_names: Mapping[str, str] = field(default_factory=dict)
    # minutes after the cutoff the daily schedule ticks: GitHub's API lags a
    # little, so the tick waits before fetching the day that just closed
    schedule_lag_minutes: int = 10
    # days before the closed one that each tick re-materializes, so late
    # comments and merges of recent days converge
    late_days: int = 2
    executor: str = "in_process"
    # Dagster's planned-events switch (vllm_digest/orchestration/planned_events.py): off, a run over N days records a
    # planned event per asset and day, and a failed run marks its days failed; on, one per asset
    planned_events_per_run: bool = False
    # the optional LLM narrative; off (no base URL) unless configured
    narrative: NarrativeConfig = field(default_factory=NarrativeConfig)
    # publishing and per-day delivery; every channel off unless configured
    delivery: DeliveryConfig = field(default_factory=DeliveryConfig)

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def warehouse_path(self) -> Path:
        return self.home / "warehouse.duckdb"

    @property
    def state_path(self) -> Path:
        """The state store: what outlives a rebuild of the warehouse (core/sqlmodel/state.py)."""
        return self.home / "state.duckdb"

    @property
    def raw_dir(self) -> Path:
        return self.home / "raw"

    @property
    def reports_dir(self) -> Path:
        return self.home / "reports"

    @property
    def site_dir(self) -> Path:
        return self.home / "site"

    @property
    def github_web_url(self) -> str:
        """Where item pages live: github.com, or a GitHub Enterprise host."""
        if self.github_web_override:
            return self.github_web_override
        api = self.github_api_url.rstrip("/")
        if api == "https://api.github.com":
            return "https://github.com"
        return re.sub(r"/api/v3$", "", api)

    def display_name(self, repo: RepoRef) -> str:
        """``display_names`` of the config file, else the taxonomy's project name, else the repo's name."""
        if repo.full_name in self.display_names:
            return self.display_names[repo.full_name]
        return taxonomy_from_settings(self).display_name(repo.full_name) or repo.name

    def catalog(self, language: str) -> Catalog:
        """The message catalog of one language (read once; checked when the settings load)."""
        return load_catalog(language, self.catalog_dir)


def _config_file(env: Mapping[str, str]) -> Path | None:
    explicit = env.get("VLLM_DIGEST_CONFIG")
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise SettingsError(f"config file {explicit!r} (VLLM_DIGEST_CONFIG) does not exist")
        return path
    default = Path("vllm_digest.toml")
    return default if default.is_file() else None


def _read_file(path: Path | None) -> dict:
    if path is None:
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"config file {str(path)!r} is not valid TOML: {exc}") from exc
    unknown = set(data) - set(_ENV_KEYS) - _FILE_ONLY_KEYS
    if unknown:
        raise SettingsError(
            f"config file {str(path)!r} has unknown key(s) {sorted(unknown)}; "
            f"known keys: {sorted(set(_ENV_KEYS) | _FILE_ONLY_KEYS)}"
        )
    return data


def _parse_timezone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError, TypeError, OSError):
        # OSError: zoneinfo opens a file named by the value, which may be too long or not a file at all
        raise SettingsError(
            f"timezone {shown(value)} is not a known IANA timezone (e.g. Asia/Shanghai)"
        ) from None
    return value


def _parse_cutoff(value: str) -> dt.time:
    match = _CUTOFF.fullmatch(str(value).strip())
    if not match:
        raise SettingsError(f"cutoff {shown(value)} is not a local time HH:MM (00:00 to 23:59)")
    return dt.time(int(match.group(1)), int(match.group(2)))


def _parse_day(value: str | dt.date, timezone: str, name: str) -> dt.date:
    if isinstance(value, dt.date):
        day = value
    else:
        try:
            day = dt.date.fromisoformat(str(value).strip())
        except ValueError:
            raise SettingsError(f"{name} {shown(value)} is not a date YYYY-MM-DD") from None
    today = dt.datetime.now(ZoneInfo(timezone)).date()
    if day > today:
        raise SettingsError(f"{name} {day.isoformat()!r} is in the future (today is {today})")
    return day


def _parse_end_date(value, timezone: str, start: dt.date) -> dt.date | None:
    if value is None or str(value).strip() == "":
        return None
    day = _parse_day(value, timezone, "end date")
    if day < start:
        raise SettingsError(f"end date {day.isoformat()!r} is before the start date {start.isoformat()!r}")
    return day


def _parse_repos(value: str | list) -> tuple[RepoRef, ...]:
    items = value.split(",") if isinstance(value, str) else list(value)
    repos = tuple(RepoRef.parse(str(r)) for r in items if str(r).strip())
    if not repos:
        raise SettingsError(f"repos {shown(value)} names no repository")
    slugs = [r.slug for r in repos]
    if len(set(slugs)) != len(slugs):
        raise SettingsError(f"repos {shown(value)} lists a repository twice")
    return repos


def _parse_languages(value: str | list, catalog_dir: Path | None) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else list(value)
    langs = tuple(str(x).strip() for x in items if str(x).strip())
    known = available_languages(catalog_dir)
    bad = [x for x in langs if x not in known]
    if bad or not langs or len(set(langs)) != len(langs):
        raise SettingsError(
            f"languages {shown(value)}: each must be a language with a message catalog, once: {list(known)}"
        )
    return langs


def _parse_catalog_dir(value) -> Path | None:
    if not value:
        return None
    path = Path(str(value)).expanduser().absolute()
    if not path.is_dir():
        raise SettingsError(f"catalog_dir {shown(str(value))} (VLLM_DIGEST_CATALOG_DIR) is not a folder")
    return path


def _check_catalogs(languages, catalog_dir: Path | None) -> None:
    """Read every catalog the outputs use now, so a missing key stops here and not mid-run."""
    for lang in dict.fromkeys(languages):
        try:
            load_catalog(lang, catalog_dir)
        except CatalogError as exc:
            raise SettingsError(str(exc)) from None


def _parse_taxonomy(value) -> Path | None:
    """The taxonomy file, read and checked now: a file that is not a taxonomy stops here, in one line,
    and not as a traceback while the definitions are built."""
    if not value:
        return None
    path = Path(str(value)).expanduser().absolute()
    try:
        taxonomy_at(path)
    except TaxonomyError as exc:
        raise SettingsError(str(exc)) from None
    return path


def _parse_executor(value: str) -> str:
    # "in-process" is how Dagster's docs spell it; accept both spellings
    name = str(value).strip().replace("-", "_")
    if name not in EXECUTORS:
        raise SettingsError(f"executor {shown(value)} is not one of {list(EXECUTORS)}")
    return name


# a display name goes into headers (the e-mail subject) and one-line titles: a line break would add a
# header, and C0/C1 or bidi controls would garble or mirror what a reader sees
_NAME_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")


def _parse_display_names(value, path: Path | None) -> dict[str, str]:
    if not isinstance(value, dict):
        raise SettingsError(f"display_names {value!r} must be a table repo -> name")
    where = f" (in {str(path)!r})" if path else ""
    out = {}
    for repo, name in value.items():
        if not isinstance(name, str) or not name.strip():
            raise SettingsError(f"display_names.{repo!r}{where}: {name!r} is not a non-empty string")
        if _NAME_CONTROLS.search(name):
            raise SettingsError(
                f"display_names.{repo!r}{where}: {name!r} holds a line break or control character; a display name is one line of text"
            )
        out[str(repo)] = name
    return out


def _origins(env: Mapping[str, str], path: Path | None, in_file) -> dict[str, str]:
    """Where each key's value came from, as an error names it: its environment variable, else the file and key."""
    where = {key: f"key {key!r} in {str(path)!r}" for key in in_file}
    where.update({key: var for key, var in _ENV_KEYS.items() if env.get(var)})
    return where


def _at(origins: Mapping[str, str], key: str, parse, *args):
    """``parse(*args)``, a bad value's message prefixed with where it came from (nothing for a default)."""
    try:
        return parse(*args)
    except SettingsError as exc:
        if key not in origins:
            raise
        raise SettingsError(f"{origins[key]}: {exc}") from None


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read the configuration: TOML file first, environment variables over it. A bad value's error starts
    with where it came from (the variable, or the file and key) and says what is allowed."""
    env = os.environ if env is None else env
    path = _config_file(env)
    raw = _read_file(path)
    origins = _origins(env, path, raw)
    for key, var in _ENV_KEYS.items():
        if env.get(var):
            raw[key] = env[var]

    def at(key: str, parse, *args):
        return _at(origins, key, parse, *args)

    def source_of(value) -> str:
        value = str(value).strip()
        if value not in SOURCES:
            raise SettingsError(f"source {shown(value)} is not one of {list(SOURCES)}")
        return value

    def feed_language_of(value, catalog_dir) -> str:
        value = str(value).strip()
        if value not in available_languages(catalog_dir):
            raise SettingsError(f"feed_language {shown(value)} has no message catalog: {list(available_languages(catalog_dir))}")
        return value

    source = at("source", source_of, raw.get("source", "sample"))
    timezone = at("timezone", lambda v: _parse_timezone(str(v).strip()), raw.get("timezone", "Asia/Shanghai"))
    start_date = at("start_date", _parse_day, raw.get("start_date", DEFAULT_START_DATE), timezone, "start date")
    display_names = at("display_names", _parse_display_names, raw.get("display_names", {}), path)
    catalog_dir = at("catalog_dir", _parse_catalog_dir, raw.get("catalog_dir"))
    languages = at("languages", _parse_languages, raw.get("languages", list(LANGUAGES)), catalog_dir)
    feed_language = at("feed_language", feed_language_of, raw.get("feed_language", FEED_LANGUAGE), catalog_dir)
    _check_catalogs((*languages, feed_language), catalog_dir)
    return Settings(
        home=Path(str(raw.get("home", "data"))).expanduser().absolute(),
        source=source,
        repos=at("repos", _parse_repos, raw.get("repos", list(DEFAULT_REPOS))),
        timezone=timezone,
        cutoff=at("cutoff", _parse_cutoff, raw.get("cutoff", "00:00")),
        start_date=start_date,
        end_date=at("end_date", _parse_end_date, raw.get("end_date"), timezone, start_date),
        github_api_url=at("github_api_url", parse_http_url, str(raw.get("github_api_url", "https://api.github.com"))),
        github_web_override=(
            at("github_web_url", parse_http_url, str(raw["github_web_url"])) if raw.get("github_web_url") else None
        ),
        github_token=env.get("GITHUB_TOKEN") or None,
        github_request_deadline=at(
            "github_request_deadline", parse_int, raw.get("github_request_deadline", DEFAULT_GITHUB_DEADLINE),
            "GitHub request deadline (seconds)", 1, MAX_GITHUB_DEADLINE,
        ),
        github_people_requests=at(
            "github_people_requests", parse_int, raw.get("github_people_requests", DEFAULT_GITHUB_PEOPLE),
            "GitHub people requests a day", 0, MAX_GITHUB_PEOPLE,
        ),
        github_file_requests=at(
            "github_file_requests", parse_int, raw.get("github_file_requests", DEFAULT_GITHUB_FILES),
            "GitHub PR-files requests a day", 0, MAX_GITHUB_FILES,
        ),
        site_url=at("site_url", parse_http_url, str(raw["site_url"]), "site URL") + "/" if raw.get("site_url") else None,
        languages=languages,
        catalog_dir=catalog_dir,
        feed_language=feed_language,
        taxonomy=at("taxonomy", _parse_taxonomy, raw.get("taxonomy")),
        sample_dir=Path(raw["sample_dir"]).expanduser().absolute() if raw.get("sample_dir") else None,
        display_names=display_names,
        # under a day, or the tick would land after the next cutoff and fetch
        # a day that has not closed
        schedule_lag_minutes=at("schedule_lag_minutes", parse_int, raw.get("schedule_lag_minutes", 10),
                                "schedule lag (minutes)", 0, 1439),
        late_days=at("late_days", parse_int, raw.get("late_days", 2), "late days", 0, 30),
        executor=at("executor", _parse_executor, raw.get("executor", "in_process")),
        planned_events_per_run=at("planned_events_per_run", parse_flag, raw.get("planned_events_per_run", False),
                                  "planned_events_per_run"),
        narrative=narrative_from_table(raw.get("narrative", {}), env, path),
        delivery=delivery_from_table(raw.get("delivery", {}), env, path),
    )
