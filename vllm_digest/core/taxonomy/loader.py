"""Load and validate a taxonomy TOML file (see ``vllm.toml`` for the format).

Everything that can be wrong with a taxonomy is found here, before any build: a
message names the file, the topic (or focus area / theme) and the reason. Regexes
are checked with DuckDB's RE2 as well as Python's ``re`` because the marts match
in SQL, and RE2 refuses constructs Python accepts (look-behind, back-references).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import duckdb

DEFAULT_TAXONOMY = Path(str(resources.files("vllm_digest.core.taxonomy") / "vllm.toml"))

_ID = re.compile(r"^[a-z][a-z0-9_]*$")
GROUPS = ("feature", "hardware", "model", "quality", "process")

_TOP_KEYS = {"version", "project", "trend", "links", "topic_rank", "selection", "stories", "follow_ups", "topic",
             "focus", "area"}
_PROJECT_KEYS = {"name", "repos"}
# C0/C1 controls, line and paragraph separators, bidi controls and invisible characters
_NAME_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")
# the names every topic, focus area and theme carries, one per field (mart columns *_zh, *_en); a message
# catalog says which of them its language prints (i18n: language.names)
NAME_FIELDS = ("zh", "en")
_RULE_KEYS = {"tags", "labels", "keywords", "patterns", "paths"}
_TOPIC_KEYS = {"id", *NAME_FIELDS, "group", "risk", "generic"} | _RULE_KEYS
_AREA_KEYS = {"id", *NAME_FIELDS, "paths"}
_FOCUS_KEYS = {"id", *NAME_FIELDS, "short", "vendor", "highlight", "authors", "employee_authors", "employee_logins",
               "employee_profiles", "theme"} | _RULE_KEYS
_THEME_KEYS = {"id", *NAME_FIELDS, "default", "tags", "labels", "keywords", "patterns"}
_TREND_DEFAULTS = {"baseline_days": 7, "rising_ratio": 2.0, "rising_min_items": 3, "falling_ratio": 0.5}
_LINK_DEFAULTS = {"window_minutes": 60, "min_shared_words": 3, "stopwords": []}
# mart_topic_daily's ranking of the day's topics and of the threads listed under each (see vllm.toml)
_RANK_NUMBERS = {
    "surprise_weight": 1.0, "story_weight": 1.0, "noise_z": 2.0, "generic_unusual_z": 3.0, "min_story": 2.0,
    "issue_points": 1.0, "new_points": 2.0, "closed_penalty": 2.0, "merged_penalty": 0.5,
    "proposal_points": 1.0, "lead_tag_points": 0.5, "minor_tag_penalty": 2.0, "thread_points": 0.5,
}
_RANK_TAGS = ("proposal_tags", "lead_tags", "minor_tags")
# What the report features and how far back it looks (see vllm.toml): table -> parameter -> default. The names are
# the SQL parameters of the marts that make each cut (mart_item_hotness, mart_section_picks, mart_hot_stories,
# mart_follow_ups) and of the report, which reads the same values for its wording. A whole-number default is a
# count (days when the name ends in _days), any other a weight or share.
_PICK_DEFAULTS = {
    "selection": {"hot_limit": 3, "discussion_min_comments": 2, "discussion_min_people": 2, "topic_min": 3,
                  "topic_limit": 5, "topic_threads": 3, "top_authors": 3, "weekly_changes": 10},
    "stories": {"story_limit": 1, "story_items": 3, "story_min_items": 3, "story_history_days": 7,
                "story_vocab_share": 0.95, "story_size_weight": 1.0, "story_surprise_weight": 1.0, "hot_groups": 6},
    "follow_ups": {"follow_up_days": 14, "burst_comments": 5, "follow_ups_shown": 10},
}
# shares of something: at most 1
_PICK_SHARES = {"story_vocab_share"}


class TaxonomyError(ValueError):
    """The taxonomy file is unusable; the message names the file, the entry and the reason."""


@dataclass(frozen=True)
class Rules:
    tags: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()

    @property
    def text_regex(self) -> str | None:
        """One case-insensitive RE2 pattern over title and body: keywords and patterns combined,
        so SQL evaluates a single regex per (item, topic) instead of one per keyword."""
        alts = [keyword_regex(k) for k in self.keywords] + [f"(?:{p})" for p in self.patterns]
        return "(?i)(?:" + "|".join(alts) + ")" if alts else None

    @property
    def empty(self) -> bool:
        return not (self.tags or self.labels or self.keywords or self.patterns or self.paths)


@dataclass(frozen=True)
class Topic:
    id: str
    zh: str
    en: str
    group: str
    risk: bool
    rules: Rules
    # a broad bucket (engine core, CI ...): never an item's topic when a narrower one matches, and listed
    # after the specific topics unless it is unusual today
    generic: bool = False


@dataclass(frozen=True)
class Theme:
    id: str
    zh: str
    en: str
    default: bool
    rules: Rules

    def name(self, field: str) -> str:
        """The theme's name in one of NAME_FIELDS."""
        return getattr(self, field)


@dataclass(frozen=True)
class FocusArea:
    id: str
    zh: str
    en: str
    vendor: str
    rules: Rules
    authors: tuple[str, ...]
    employee_authors: tuple[str, ...]
    employee_logins: tuple[str, ...]
    themes: tuple[Theme, ...]
    # how a sentence names the area ("AMD/ROCm"); the vendor's name when not given
    short: str = ""
    # a product the focus section counts on its own: items whose title or body contains it, any case
    highlight: str | None = None
    # RE2 patterns over an author's profile company and bio (GET /users/{login}) marking a vendor employee
    employee_profiles: tuple[str, ...] = ()

    def name(self, field: str) -> str:
        """The area's name in one of NAME_FIELDS."""
        return getattr(self, field)


@dataclass(frozen=True)
class CodeArea:
    """Where in the code a change lands: the changed files' path prefixes that mean it (``vllm/v1/core/``
    is the scheduler); the report says "touches: ..." from them."""

    id: str
    zh: str
    en: str
    paths: tuple[str, ...]


@dataclass(frozen=True)
class Project:
    """Who the taxonomy is for: the display name of its repositories in every output."""

    name: str
    repos: tuple[str, ...]


@dataclass(frozen=True)
class Taxonomy:
    path: Path
    version: int
    topics: tuple[Topic, ...]
    focus_areas: tuple[FocusArea, ...]
    trend: dict = field(default_factory=lambda: dict(_TREND_DEFAULTS))
    links: dict = field(default_factory=lambda: dict(_LINK_DEFAULTS))
    project: Project | None = None
    topic_rank: dict = field(default_factory=lambda: {**_RANK_NUMBERS, **{k: [] for k in _RANK_TAGS}})
    areas: tuple[CodeArea, ...] = ()
    # the report's selection parameters, by SQL name ([selection], [stories], [follow_ups])
    picks: dict = field(default_factory=lambda: {k: v for table in _PICK_DEFAULTS.values() for k, v in table.items()})

    def display_name(self, full_name: str) -> str | None:
        """The project's name for ``owner/name`` when the taxonomy is that repository's, else None."""
        if self.project and full_name.lower() in {r.lower() for r in self.project.repos}:
            return self.project.name
        return None

    @property
    def fingerprint(self) -> str:
        """The version and a digest of the rules: changes whenever a rule does."""
        # the path is left out: the same rules checked out elsewhere are the same code version
        rules = {k: v for k, v in self.params().items() if k != "taxonomy_path"}
        digest = hashlib.sha256(json.dumps(rules, sort_keys=True).encode()).hexdigest()
        return f"v{self.version}-{digest[:12]}"

    def topic(self, topic_id: str) -> Topic:
        return next(t for t in self.topics if t.id == topic_id)

    def rule_rows(self) -> list[dict]:
        """The rules as rows of ``ref_taxonomy_rules`` (one per tag, label, path, text regex ...)."""
        rows: list[dict] = []

        def add(scope, owner, parent, kind, value, pattern, zh, en, grp, risk):
            rows.append(dict(scope=scope, owner_id=owner, parent_id=parent, kind=kind,
                             value=value, pattern=pattern, name_zh=zh, name_en=en,
                             grp=grp, risk=risk, ord=len(rows)))

        def add_rules(scope, owner, parent, r: Rules, zh, en, grp, risk):
            for t in r.tags:
                add(scope, owner, parent, "tag", t.lower(), None, zh, en, grp, risk)
            for lb in r.labels:
                add(scope, owner, parent, "label", lb.lower(), None, zh, en, grp, risk)
            for p in r.paths:
                add(scope, owner, parent, "path", p.lower(), None, zh, en, grp, risk)
            if r.text_regex:
                add(scope, owner, parent, "text", None, r.text_regex, zh, en, grp, risk)

        for t in self.topics:
            add_rules("topic", t.id, None, t.rules, t.zh, t.en, t.group, t.risk)
        for f in self.focus_areas:
            add_rules("focus", f.id, None, f.rules, f.zh, f.en, f.vendor, False)
            for a in f.authors:
                add("focus", f.id, None, "author", None, f"(?i){a}", f.zh, f.en, f.vendor, False)
            for a in f.employee_authors:
                add("focus", f.id, None, "employee_author", None, f"(?i){a}", f.zh, f.en, f.vendor, False)
            for login in f.employee_logins:
                add("focus", f.id, None, "employee_login", login.lower(), None, f.zh, f.en, f.vendor, False)
            for p in f.employee_profiles:
                add("focus", f.id, None, "employee_profile", None, f"(?i){p}", f.zh, f.en, f.vendor, False)
            for th in f.themes:
                add_rules("theme", th.id, f.id, th.rules, th.zh, th.en, f.vendor, False)
                if th.default:
                    add("theme", th.id, f.id, "default", None, None, th.zh, th.en, f.vendor, False)
        return rows

    def params(self) -> dict:
        """SQL parameters: the rules as parallel lists (DuckDB unnests them side by side)."""
        rows = self.rule_rows()
        cols = ("scope", "owner_id", "parent_id", "kind", "value", "pattern", "name_zh", "name_en", "grp", "risk", "ord")
        out = {f"rule_{c}": [r[c] for r in rows] for c in cols}
        out["taxonomy_version"] = self.version
        out["taxonomy_path"] = str(self.path)
        out["trend_baseline_days"] = int(self.trend["baseline_days"])
        out["trend_rising_ratio"] = float(self.trend["rising_ratio"])
        out["trend_rising_min_items"] = int(self.trend["rising_min_items"])
        out["trend_falling_ratio"] = float(self.trend["falling_ratio"])
        out["link_window_minutes"] = int(self.links["window_minutes"])
        out["link_min_shared_words"] = int(self.links["min_shared_words"])
        out["link_stopwords"] = [w.lower() for w in self.links["stopwords"]]
        out["topic_generic"] = [t.id for t in self.topics if t.generic]
        for k in _RANK_NUMBERS:
            out[f"rank_{k}"] = float(self.topic_rank[k])
        for k in _RANK_TAGS:
            out[f"rank_{k}"] = [w.lower() for w in self.topic_rank[k]]
        out.update(self.picks)
        # code areas, one row per (area, path prefix) in file order: a file's area is its longest prefix's
        prefixes = [(a, p) for a in self.areas for p in a.paths]
        out["area_ids"] = [a.id for a, _ in prefixes]
        out["area_prefixes"] = [p for _, p in prefixes]
        out["area_zh"] = [a.zh for a, _ in prefixes]
        out["area_en"] = [a.en for a, _ in prefixes]
        return out


def keyword_regex(keyword: str) -> str:
    """A keyword as an RE2 fragment: word boundaries where the keyword starts or ends with a
    word character (so "c++" still matches), and a space or '-' also matching '_', '-' or nothing."""
    parts = [p for p in re.split(r"[\s-]+", keyword.strip()) if p]
    body = r"[\s_-]?".join(re.sub(r"([^\w])", r"\\\1", p) for p in parts)
    left = r"\b" if re.match(r"\w", keyword.strip()[0]) else ""
    right = r"\b" if re.match(r"\w", keyword.strip()[-1]) else ""
    return f"{left}{body}{right}"


@functools.lru_cache(maxsize=1)
def _re2() -> duckdb.DuckDBPyConnection:
    return duckdb.connect(":memory:")


def _check_regex(pattern: str, where: str) -> None:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise TaxonomyError(f"{where}: pattern {pattern!r} is not a valid regular expression: {exc}") from None
    try:
        _re2().execute("SELECT regexp_matches('', $p)", {"p": pattern}).fetchone()
    except duckdb.Error as exc:
        reason = str(exc).splitlines()[0]
        raise TaxonomyError(
            f"{where}: pattern {pattern!r} is not accepted by RE2 (DuckDB's regex engine): {reason}"
        ) from None


def _strings(entry: dict, key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise TaxonomyError(f"{where}: {key!r} must be a list of non-empty strings, got {value!r}")
    return tuple(v.strip() for v in value)


def _text(entry: dict, key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise TaxonomyError(f"{where}: {key!r} is required and must be a non-empty string")
    return value.strip()


def _unknown(entry: dict, allowed: set[str], where: str) -> None:
    unknown = set(entry) - allowed
    if unknown:
        raise TaxonomyError(f"{where}: unknown key(s) {sorted(unknown)}; known keys: {sorted(allowed)}")


def _id(entry: dict, where: str, seen: set[str]) -> str:
    ident = entry.get("id")
    if not isinstance(ident, str) or not _ID.fullmatch(ident):  # fullmatch: $ matches before a final newline
        raise TaxonomyError(f"{where}: id {ident!r} must match {_ID.pattern}")
    if ident in seen:
        raise TaxonomyError(f"{where}: duplicate id {ident!r}")
    seen.add(ident)
    return ident


def _rules(entry: dict, where: str, allow_paths: bool = True) -> Rules:
    rules = Rules(
        tags=_strings(entry, "tags", where),
        labels=_strings(entry, "labels", where),
        keywords=_strings(entry, "keywords", where),
        patterns=_strings(entry, "patterns", where),
        paths=_strings(entry, "paths", where) if allow_paths else (),
    )
    for p in rules.patterns:
        _check_regex(p, where)
    if rules.text_regex:
        _check_regex(rules.text_regex, where)
    return rules


def _numbers(data: dict, key: str, defaults: dict, src: str) -> dict:
    section = data.get(key, {})
    if not isinstance(section, dict):
        raise TaxonomyError(f"taxonomy {src}: [{key}] must be a table")
    _unknown(section, set(defaults), f"taxonomy {src}: [{key}]")
    out = dict(defaults)
    out.update(section)
    for k, v in out.items():
        if k == "stopwords":
            _strings(out, k, f"taxonomy {src}: [{key}]")
        elif isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
            raise TaxonomyError(f"taxonomy {src}: [{key}] {k} must be a positive number, got {v!r}")
    return out


def _topic_rank(data: dict, src: str) -> dict:
    """[topic_rank]: non-negative numbers (penalties are subtracted) and lists of title tags."""
    where = f"taxonomy {src}: [topic_rank]"
    section = data.get("topic_rank", {})
    if not isinstance(section, dict):
        raise TaxonomyError(f"{where} must be a table")
    _unknown(section, set(_RANK_NUMBERS) | set(_RANK_TAGS), where)
    out: dict = {**_RANK_NUMBERS, **{k: [] for k in _RANK_TAGS}}
    for k, v in section.items():
        if k in _RANK_TAGS:
            out[k] = list(_strings(section, k, where))
        elif isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise TaxonomyError(f"{where} {k} must be a number >= 0, got {v!r}")
        else:
            out[k] = float(v)
    return out


def _picks(data: dict, src: str) -> dict:
    """[selection], [stories] and [follow_ups]: counts are whole numbers (a number of days at least 1), weights
    numbers >= 0, shares at most 1; every parameter of the three tables, each the type of its default."""
    out: dict = {}
    for table, defaults in _PICK_DEFAULTS.items():
        where = f"taxonomy {src}: [{table}]"
        section = data.get(table, {})
        if not isinstance(section, dict):
            raise TaxonomyError(f"{where} must be a table")
        _unknown(section, set(defaults), where)
        for k, default in defaults.items():
            v = section.get(k, default)
            if isinstance(default, int):
                least = 1 if k.endswith("_days") else 0
                if isinstance(v, bool) or not isinstance(v, int) or v < least:
                    raise TaxonomyError(f"{where} {k} must be a whole number >= {least}, got {v!r}")
            elif isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < float("inf"):
                raise TaxonomyError(f"{where} {k} must be a number >= 0, got {v!r}")
            elif k in _PICK_SHARES and not 0 < v <= 1:
                raise TaxonomyError(f"{where} {k} must be a share above 0 and at most 1, got {v!r}")
            else:
                v = float(v)
            out[k] = v
    return out


def _project(data: dict, src: str) -> Project | None:
    table = data.get("project")
    if table is None:
        return None
    where = f"taxonomy {src}: [project]"
    if not isinstance(table, dict):
        raise TaxonomyError(f"{where} must be a table")
    _unknown(table, _PROJECT_KEYS, where)
    repos = _strings(table, "repos", where)
    for repo in repos:
        if not re.fullmatch(r"[^/\s]+/[^/\s]+", repo):
            raise TaxonomyError(f"{where}: repo {repo!r} is not of the form owner/name")
    name = _text(table, "name", where)
    if _NAME_CONTROLS.search(name):
        # the name heads every report and message and is the e-mail subject: one line, nothing hidden
        raise TaxonomyError(f"{where}: 'name' {name!r} holds a line break or control character; it must be one line of text")
    return Project(name, repos)


def load_taxonomy(path: str | Path | None = None) -> Taxonomy:
    """Read and validate a taxonomy file; ``None`` means the packaged ``vllm.toml``."""
    file = Path(path) if path is not None else DEFAULT_TAXONOMY
    src = repr(str(file))
    if not file.is_file():
        raise TaxonomyError(f"taxonomy {src}: file does not exist")
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TaxonomyError(f"taxonomy {src}: not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise TaxonomyError(f"taxonomy {src}: not UTF-8 text (byte {exc.start}), so not a TOML file") from None
    except OSError as exc:
        raise TaxonomyError(f"taxonomy {src}: cannot be read ({exc.strerror or exc})") from None
    _unknown(data, _TOP_KEYS, f"taxonomy {src}")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise TaxonomyError(f"taxonomy {src}: 'version' is required and must be a positive integer, got {version!r}")

    topics: list[Topic] = []
    seen: set[str] = set()
    raw_topics = data.get("topic", [])
    if not isinstance(raw_topics, list) or not raw_topics:
        raise TaxonomyError(f"taxonomy {src}: at least one [[topic]] is required")
    for n, entry in enumerate(raw_topics, 1):
        where = f"taxonomy {src}: topic {entry.get('id', f'#{n}')!r}"
        _unknown(entry, _TOPIC_KEYS, where)
        ident = _id(entry, where, seen)
        group = entry.get("group", "feature")
        if group not in GROUPS:
            raise TaxonomyError(f"{where}: group {group!r} is not one of {list(GROUPS)}")
        risk = entry.get("risk", False)
        if not isinstance(risk, bool):
            raise TaxonomyError(f"{where}: 'risk' must be true or false")
        generic = entry.get("generic", False)
        if not isinstance(generic, bool):
            raise TaxonomyError(f"{where}: 'generic' must be true or false")
        rules = _rules(entry, where)
        if rules.empty:
            raise TaxonomyError(f"{where}: has no rules (tags, labels, keywords, patterns or paths)")
        topics.append(Topic(ident, _text(entry, "zh", where), _text(entry, "en", where), group, risk, rules,
                            generic))

    areas: list[FocusArea] = []
    seen_focus: set[str] = set()
    for n, entry in enumerate(data.get("focus", []), 1):
        where = f"taxonomy {src}: focus area {entry.get('id', f'#{n}')!r}"
        _unknown(entry, _FOCUS_KEYS, where)
        ident = _id(entry, where, seen_focus)
        rules = _rules(entry, where)
        authors = _strings(entry, "authors", where)
        employee_authors = _strings(entry, "employee_authors", where)
        employee_profiles = _strings(entry, "employee_profiles", where)
        for p in authors + employee_authors + employee_profiles:
            _check_regex(p, where)
        if rules.empty and not authors:
            raise TaxonomyError(f"{where}: has no rules (tags, labels, keywords, patterns, paths or authors)")
        themes: list[Theme] = []
        seen_theme: set[str] = set()
        for m, th in enumerate(entry.get("theme", []), 1):
            twhere = f"{where}, theme {th.get('id', f'#{m}')!r}"
            _unknown(th, _THEME_KEYS, twhere)
            tid = _id(th, twhere, seen_theme)
            default = th.get("default", False)
            if not isinstance(default, bool):
                raise TaxonomyError(f"{twhere}: 'default' must be true or false")
            trules = _rules(th, twhere, allow_paths=False)
            if trules.empty and not default:
                raise TaxonomyError(f"{twhere}: has no rules and is not the default theme")
            themes.append(Theme(tid, _text(th, "zh", twhere), _text(th, "en", twhere), default, trules))
        if sum(t.default for t in themes) > 1:
            raise TaxonomyError(f"{where}: more than one theme has default = true")
        vendor = _text(entry, "vendor", where)
        areas.append(FocusArea(
            ident, _text(entry, "zh", where), _text(entry, "en", where),
            vendor, rules, authors, employee_authors,
            _strings(entry, "employee_logins", where), tuple(themes),
            short=_text(entry, "short", where) if "short" in entry else vendor,
            highlight=_text(entry, "highlight", where) if "highlight" in entry else None,
            employee_profiles=employee_profiles,
        ))

    code_areas: list[CodeArea] = []
    seen_area: set[str] = set()
    for n, entry in enumerate(data.get("area", []), 1):
        where = f"taxonomy {src}: area {entry.get('id', f'#{n}')!r}"
        _unknown(entry, _AREA_KEYS, where)
        paths = _strings(entry, "paths", where)
        if not paths:
            raise TaxonomyError(f"{where}: has no paths")
        for p in paths:
            if p.startswith("/") or "\\" in p:
                raise TaxonomyError(f"{where}: path {p!r} must be relative to the repository root, with '/'")
        code_areas.append(CodeArea(_id(entry, where, seen_area), _text(entry, "zh", where), _text(entry, "en", where), paths))

    return Taxonomy(
        areas=tuple(code_areas),
        project=_project(data, src),
        path=file.resolve(),
        version=version,
        topics=tuple(topics),
        focus_areas=tuple(areas),
        trend=_numbers(data, "trend", _TREND_DEFAULTS, src),
        links=_numbers(data, "links", _LINK_DEFAULTS, src),
        topic_rank=_topic_rank(data, src),
        picks=_picks(data, src),
    )


def taxonomy_from_settings(settings) -> Taxonomy:
    """The taxonomy a deployment uses: ``Settings.taxonomy`` (env ``VLLM_DIGEST_TAXONOMY``) or the default;
    read and checked once per version of the file (the report and the site ask for it per page)."""
    return taxonomy_at(settings.taxonomy)


def taxonomy_at(path: str | Path | None) -> Taxonomy:
    """The taxonomy in ``path`` (``None``: the default), read once per version of the file."""
    file = Path(path) if path is not None else DEFAULT_TAXONOMY
    try:
        stat = file.stat()
    except OSError:
        return load_taxonomy(file)  # says the file does not exist, in the loader's words
    return _load_version(str(file), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _load_version(path: str, _mtime_ns: int, _size: int) -> Taxonomy:
    return load_taxonomy(path)
