"""Column lineage of the core and mart models.

A column depends on the same-named columns of the tables its model reads
(``FROM``/``JOIN``), which is right for the columns passed through or joined
on. Columns the SQL renames, derives or computes are declared here instead;
the declared deps replace the name match, so a renamed column never claims a
same-named column it does not read. Keep this in step with ``sql/``: the tests
check that every column has deps and every dep exists.
"""

from __future__ import annotations

from vllm_digest.core.vocabulary import SET_NAMES


Dep = tuple[str, str]  # (table, column)


def _on(table: str, *columns: str) -> list[Dep]:
    return [(table, c) for c in columns]


_BOT = ("author_login", "author_type")
_COUNTED = _on("mart_five_sets", "set_name", "number")

DECLARED: dict[str, dict[str, list[Dep]]] = {
    "core_items": {
        "kind": _on("stg_issues", "is_pull_request"),
        "author_is_bot": _on("stg_issues", *_BOT),
    },
    "core_comments": {
        "comment_key": _on("stg_issue_comments", "comment_id") + _on("stg_review_comments", "comment_id")
        + _on("stg_reviews", "review_id"),
        "number": _on("stg_issue_comments", "issue_number") + _on("stg_review_comments", "pull_number")
        + _on("stg_reviews", "pull_number"),
        "comment_kind": [],  # a literal naming the source table
        "author_is_bot": _on("stg_issue_comments", *_BOT) + _on("stg_review_comments", *_BOT) + _on("stg_reviews", *_BOT),
        "created_at": _on("stg_issue_comments", "created_at") + _on("stg_review_comments", "created_at")
        + _on("stg_reviews", "submitted_at"),
        "review_state": _on("stg_reviews", "state"),
    },
    "core_item_texts": {
        # parsed from the body by warehouse/bodies.py
        **{c: _on("core_items", "body") for c in ("has_description", "what", "purpose", "test_plan", "test_result",
                                                   "result_figures", "referenced_items", "meaningful_text", "sections",
                                                   "changes", "claims", "test_commands")},
    },
    "core_events": {
        "event_key": _on("core_items", "number") + _on("stg_issue_events", "event_id") + _on("core_comments", "comment_key"),
        "number": _on("core_items", "number") + _on("stg_issue_events", "issue_number") + _on("core_comments", "number"),
        "kind": _on("core_items", "kind"),
        "event_type": _on("stg_issue_events", "event") + _on("core_comments", "comment_kind")
        + _on("stg_fetch_manifest", "semantics"),
        "occurred_at": _on("core_items", "created_at", "closed_at", "merged_at") + _on("stg_issue_events", "created_at")
        + _on("core_comments", "created_at"),
        "actor_login": _on("core_items", "author_login") + _on("stg_issue_events", "actor_login")
        + _on("core_comments", "author_login"),
        "actor_is_bot": _on("core_items", "author_is_bot") + _on("stg_issue_events", "actor_login", "actor_type")
        + _on("core_comments", "author_is_bot"),
        "origin": _on("core_comments", "comment_kind"),
    },
    "core_people": {
        # the window's actors and the day's item authors
        "login": _on("core_events", "actor_login") + _on("core_items", "author_login"),
        "is_bot": _on("core_events", "actor_is_bot") + _on("core_items", "author_is_bot"),
        "active": _on("core_events", "actor_login"),
        "issues_opened": _on("core_events", "event_type", "kind"),
        "prs_opened": _on("core_events", "event_type", "kind"),
        **{c: _on("core_events", "event_type") for c in ("comments", "reviews", "closings", "merges")},
        "has_profile": _on("stg_users", "login"),
    },
    "mart_five_sets": {
        "set_name": _on("core_events", "event_type", "kind"),
        "kind": _on("core_items", "kind"),
    },
    "mart_daily_counts": {
        c: _COUNTED for c in SET_NAMES
    },
}


def column_deps(model: str, columns: list[str], upstream: dict[str, list[str]]) -> dict[str, list[Dep]]:
    """column -> its (table, column) deps, for a model whose upstream tables have ``upstream`` columns."""
    declared = DECLARED.get(model, {})
    out: dict[str, list[Dep]] = {}
    for col in columns:
        if col in declared:
            out[col] = list(declared[col])
        else:
            out[col] = [(t, col) for t in sorted(upstream) if col in upstream[t]]
    return out
