"""What the sections and the narrative's facts pack (report/facts.py) both read of a day's rows: how an item
and its author are named, a hot thread's digest, a PR's review verdicts, the focus area's tallies, a topic's
arrow. One function each, so the report and the narrative say the same thing."""

from __future__ import annotations

from dataclasses import dataclass

from vllm_digest.core.i18n import Catalog
from vllm_digest.core.text.gist import excerpt
from vllm_digest.core.text.markdown_safe import plain_inline
from vllm_digest.report.day.data import DayData


# how many of the day's listed topics the summary names (and the narrative's summary facts carry)
SUMMARY_TOPICS = 3
# GitHub attributes what a deleted account wrote to its stand-in user "ghost"; some payloads carry no
# user at all for such an author. The warehouse keeps the null (nothing was received); the report
# prints the stand-in, so such an item reads like any other ("by ghost"), never "by " and a blank.
NO_USER_LOGIN = "ghost"


def author_name(login: str | None) -> str:
    """An author as the report prints it: one line of plain text, GitHub's stand-in when unknown."""
    return plain_inline(login or NO_USER_LOGIN, 80)


def item_state(item: dict) -> str:
    return "merged" if item.get("merged_at") else (item.get("state") or "open")


def item_ref(kind: str, number: int, t: Catalog) -> str:
    """``PR #12`` / ``Issue #12``, as every section and chart names an item."""
    return t("item.pr" if kind == "pr" else "item.issue", number=number)


# GitHub's author_association values of the people who maintain a repository
MAINTAINER_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})


def is_maintainer(row: dict) -> bool:
    return (row.get("author_association") or "").upper() in MAINTAINER_ASSOCIATIONS


@dataclass(frozen=True)
class SideExcerpt:
    """The latest words of one side of a thread: ``side`` is author (the item's), maintainer or community."""

    side: str
    login: str  # as the report prints it (author_name)
    text: str  # the comment's excerpt


@dataclass(frozen=True)
class ThreadDigest:
    """What a hot thread's window holds: who spoke, which maintainers, how long the first answer took
    (items opened in the window only), and one excerpt per side that actually spoke, latest first of
    each: the item's author, its maintainers (so the latest maintainer comment), everyone else. The
    report's 💬 and the narrative's facts pack both print this one digest."""

    participants: tuple[str, ...]
    maintainers: tuple[str, ...]
    first_response_hours: float | None
    excerpts: tuple[SideExcerpt, ...]  # in time order

    @property
    def latest_maintainer(self) -> SideExcerpt | None:
        return next((e for e in self.excerpts if e.side == "maintainer"), None)


def thread_people(data: DayData, item: dict) -> tuple[list[dict], tuple[str, ...], tuple[str, ...], float | None]:
    """A thread's human comments (oldest first), participants, maintainers and hours to the first answer by
    someone else (only for an item opened in the window: an older one's first answer may predate it)."""
    author = item.get("author_login")
    thread = [c for c in data.comments.get(item["number"], []) if c["author_login"] and not c["author_is_bot"]]
    participants = tuple(sorted({c["author_login"] for c in thread}))
    maintainers = tuple(sorted({c["author_login"] for c in thread if is_maintainer(c)}))
    opened_today = any(m["number"] == item["number"] and m["set_name"] in ("new_issues", "new_prs")
                       for m in data.members)
    answers = [c for c in thread if c["author_login"] != author and c.get("created_at")]
    first = None
    if opened_today and answers and item.get("created_at"):
        first = round(max(0.0, (answers[0]["created_at"] - item["created_at"]).total_seconds() / 3600), 1)
    return thread, participants, maintainers, first


def thread_digest(data: DayData, item: dict) -> ThreadDigest:
    author = item.get("author_login")
    thread, participants, maintainers, first = thread_people(data, item)

    def side(c: dict) -> str:
        return "author" if c["author_login"] == author else "maintainer" if is_maintainer(c) else "community"

    latest: dict[str, dict] = {}
    # newest first: a side's latest comment with words is the first one found, and once a side is found its
    # older comments need no excerpt (a hot thread's every comment was excerpted to keep the last of each side)
    for c in reversed(thread):
        s = side(c)
        if s not in latest and c.get("body") and excerpt(c["body"]):
            latest[s] = c
    excerpts = tuple(
        SideExcerpt(s, author_name(c["author_login"]), excerpt(c["body"]))
        for s, c in sorted(latest.items(), key=lambda kv: (kv[1]["created_at"], kv[0]))
    )
    return ThreadDigest(participants, maintainers, first, excerpts)


def review_verdicts(data: DayData, number: int) -> dict[str, list[str]]:
    """The window's approvals and change requests of a PR, each reviewer's latest verdict."""
    latest: dict[str, str] = {}
    for c in data.comments.get(number, []):
        state = (c.get("review_state") or "").upper()
        if c["comment_kind"] == "review" and c["author_login"] and state in ("APPROVED", "CHANGES_REQUESTED"):
            latest[c["author_login"]] = state
    return {s: sorted(login for login, v in latest.items() if v == s) for s in ("APPROVED", "CHANGES_REQUESTED")}


def has_comment_threads(data: DayData) -> bool:
    """False for a source without comment threads (the embedded sample), which must not
    read as "nobody commented"."""
    return dict(data.activity["extra"]).get("response_basis") != "no comment data"


def employees_known(focus: list[dict]) -> bool:
    """Whether any focus item's author has a known employer (a profile that names a company, or a vendor
    match): with none (the sample, github_people_requests = 0, or profiles without a company) "0 by employees"
    would be a guess, so it is not said. A login convention ('-amd') never makes an employer known."""
    return any(i["vendor"] or i.get("employer_known") for i in focus)


def employer_tally(focus: list[dict]) -> dict[str, int]:
    """The focus items by what their authors' profiles say: by vendor employees, by people of another
    employer, and by authors whose employer nothing names (no profile, or one without a company)."""
    employees = sum(1 for i in focus if i["vendor"])
    known = sum(1 for i in focus if i["vendor"] or i.get("employer_known"))
    return {"employees": employees, "others": known - employees, "unknown": len(focus) - known}


def focus_tally(focus: list[dict], highlight: str | None) -> dict[str, int]:
    """The focus area's closing counts: items, by vendor employees, merged, mentioning the highlight."""
    needle = (highlight or "").lower()
    return {
        "items": len(focus),
        "by_vendor_employees": sum(1 for i in focus if i["vendor"]),
        "merged": sum(1 for i in focus if item_state(i) == "merged"),
        "highlight": sum(1 for i in focus if needle and needle in f"{i['title']} {i['body'] or ''}".lower()),
    }


def trend_arrow(topic: dict) -> str:
    """↑ / ↓ when the topic's surprise against its weekday-aware baseline is outside the noise rule
    (mart_topic_daily.trend); none when the baseline is incomplete or the change is within noise: an
    arrow against missing days, or for a wobble, would say more than the data does."""
    return {"up": "↑", "down": "↓"}.get(topic.get("trend") or "", "")
