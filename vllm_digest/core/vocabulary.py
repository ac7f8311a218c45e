"""The shared vocabulary of every stage: the five sets a day is counted in, the payload kinds a
source lands, what a source returns for a day, and the shape of its manifest. Each is defined here
once; the stages import it, and SQL that names them is checked against it by the tests."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields

# the day's five counts, each the length of its list, in the order the report prints them
SET_NAMES = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")

# the report's analysis sections, by id, in the order it prints them (the narrative and its cache key name them)
SECTION_IDS = ("summary", "focus", "discussions", "topics", "key_changes", "activity", "notable")

# payload kind -> what it holds (GitHub REST shapes); each is landed as <kind>.jsonl
PAYLOAD_KINDS = {
    "issues": "issue objects (issues and PRs) touched in the window",
    "events": "issue events (closed, merged, reopened, ...) in the window",
    "comments": "issue and PR conversation comments created in the window",
    "review_comments": "PR review (diff) comments created in the window",
    "reviews": "PR reviews submitted in the window",
    "pulls": "pull request objects (sizes, draft, merged_at) for PRs of the window",
    "users": "account profiles (GET /users/{login}: name, company, bio) of the day's item authors, as cached",
    "files": "the files changed by the day's key-change and focus candidate PRs (GET /pulls/{n}/files), as cached",
}
MANIFEST = "manifest.json"


@dataclass
class Manifest:
    """How a source landed one day, written as ``manifest.json`` beside the payloads. The typed
    fields are what every source reports and ``stg_fetch_manifest`` reads; ``details`` holds what
    only one source records (the live API's request log, rate limits and replay records)."""

    source: str  # "sample" | "github"
    repo: str
    day: str
    window_start: str  # the window's bounds, ISO 8601 with offset
    window_end: str
    semantics: str  # "events": closings from issue events; "snapshot": from the items' closed_at
    complete: bool
    incomplete_reasons: list[str] = field(default_factory=list)
    request_count: int = 0
    not_modified_count: int = 0
    # set name -> {"count": N, "numbers": [...]}, where the source counted a set itself
    totals: dict[str, dict] = field(default_factory=dict)
    # whether the closed-issue and merged-PR lists were checked against independent search results:
    # {"applied": true, "sets": {set name: {"query", "numbers", "missing"}}} or {"applied": false, "why": ...}
    # (the github source, ``DayPlan.cross_check``); {} in a landing older than the check
    cross_check: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """The file's object: the typed fields and the details side by side, as one flat object."""
        typed = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "details"}
        return {**self.details, **typed}

    @classmethod
    def from_json(cls, data: object, where: str) -> "Manifest":
        """The manifest read back from ``where``; a missing field is an error that names the file."""
        typed = {f.name for f in fields(cls)} - {"details"}
        required = {f.name for f in fields(cls) if f.default is f.default_factory is MISSING}
        if not isinstance(data, dict) or required - set(data):
            lacking = sorted(required - set(data)) if isinstance(data, dict) else "an object"
            raise ValueError(f"manifest {where!r} lacks {lacking}")
        return cls(
            **{k: v for k, v in data.items() if k in typed},
            details={k: v for k, v in data.items() if k not in typed},
        )


@dataclass
class DayPayload:
    """Everything a source returns for one repo and day."""

    manifest: Manifest
    issues: list[dict] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    comments: list[dict] = field(default_factory=list)
    review_comments: list[dict] = field(default_factory=list)
    reviews: list[dict] = field(default_factory=list)
    pulls: list[dict] = field(default_factory=list)
    users: list[dict] = field(default_factory=list)
    files: list[dict] = field(default_factory=list)

    def payloads(self) -> dict[str, list[dict]]:
        return {kind: getattr(self, kind) for kind in PAYLOAD_KINDS}
