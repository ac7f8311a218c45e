"""The shared vocabulary of every stage: the five sets a day is counted in, the payload kinds a
source lands, what a source returns for a day, and the shape of its manifest. Each is defined here
once; the stages import it, and SQL that names them is checked against it by the tests."""

from __future__ import annotations

from dataclasses import dataclass, field

# the day's five counts, each the length of its list, in the order the report prints them
SET_NAMES = ("new_issues", "closed_issues", "new_prs", "merged_prs", "closed_unmerged_prs")

# payload kind -> what it holds (GitHub REST shapes); each is landed as <kind>.jsonl
PAYLOAD_KINDS = {
    "issues": "issue objects (issues and PRs) touched in the window",
    "events": "issue events (closed, merged, reopened, ...) in the window",
    "comments": "issue and PR conversation comments created in the window",
    "review_comments": "PR review (diff) comments created in the window",
    "reviews": "PR reviews submitted in the window",
    "pulls": "pull request objects (sizes, draft, merged_at) for PRs of the window",
}
MANIFEST = "manifest.json"


@dataclass
class DayPayload:
    """Everything a source returns for one repo and day."""

    issues: list[dict] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    comments: list[dict] = field(default_factory=list)
    review_comments: list[dict] = field(default_factory=list)
    reviews: list[dict] = field(default_factory=list)
    pulls: list[dict] = field(default_factory=list)
    # source, semantics ("events" | "snapshot"), complete, incomplete_reasons,
    # request_count, not_modified_count, rate_limit_remaining, totals, etags
    manifest: dict = field(default_factory=dict)

    def payloads(self) -> dict[str, list[dict]]:
        return {kind: getattr(self, kind) for kind in PAYLOAD_KINDS}
