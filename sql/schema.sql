-- schema: every warehouse table, keyed by (repo, day) so each report day is one replaceable partition.

-- is_bot: true for GitHub App accounts and the automation accounts vLLM uses.
CREATE OR REPLACE MACRO is_bot(login, account_type) AS (
    coalesce(account_type, '') = 'Bot'
    OR coalesce(login, '') LIKE '%[bot]'
    OR coalesce(login, '') IN ('github-actions', 'mergify', 'dependabot', 'stale', 'vllm-bot', 'pre-commit-ci')
);

-- stg_fetch_manifest: how each day was landed (source, event or snapshot semantics, completeness, request counts).
CREATE TABLE IF NOT EXISTS stg_fetch_manifest (
    repo VARCHAR NOT NULL, day DATE NOT NULL,
    source VARCHAR, semantics VARCHAR, complete BOOLEAN, incomplete_reasons VARCHAR[],
    window_start TIMESTAMPTZ, window_end TIMESTAMPTZ,
    request_count INTEGER, not_modified_count INTEGER, totals JSON
);

-- stg_issues: issue and PR objects as landed, one row per number.
CREATE TABLE IF NOT EXISTS stg_issues (
    repo VARCHAR NOT NULL, day DATE NOT NULL, number INTEGER NOT NULL,
    title VARCHAR, body VARCHAR, state VARCHAR,
    author_login VARCHAR, author_type VARCHAR, author_association VARCHAR,
    labels VARCHAR[], comments_total INTEGER, reactions_total INTEGER,
    created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ, closed_at TIMESTAMPTZ,
    is_pull_request BOOLEAN, merged_at TIMESTAMPTZ, draft BOOLEAN
);

-- stg_issue_events: issue events (closed, merged, reopened, ...), one row per event id.
CREATE TABLE IF NOT EXISTS stg_issue_events (
    repo VARCHAR NOT NULL, day DATE NOT NULL, event_id BIGINT NOT NULL,
    event VARCHAR, created_at TIMESTAMPTZ, actor_login VARCHAR, actor_type VARCHAR,
    issue_number INTEGER, commit_id VARCHAR
);

-- stg_issue_comments: conversation comments on issues and PRs, one row per comment id.
CREATE TABLE IF NOT EXISTS stg_issue_comments (
    repo VARCHAR NOT NULL, day DATE NOT NULL, comment_id BIGINT NOT NULL,
    issue_number INTEGER, author_login VARCHAR, author_type VARCHAR, author_association VARCHAR,
    created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ, body VARCHAR, reactions_total INTEGER
);

-- stg_review_comments: PR diff comments, one row per comment id.
CREATE TABLE IF NOT EXISTS stg_review_comments (
    repo VARCHAR NOT NULL, day DATE NOT NULL, comment_id BIGINT NOT NULL,
    pull_number INTEGER, author_login VARCHAR, author_type VARCHAR, author_association VARCHAR,
    created_at TIMESTAMPTZ, body VARCHAR, path VARCHAR, in_reply_to_id BIGINT, reactions_total INTEGER
);

-- stg_reviews: PR reviews (approved, changes requested, commented), one row per review id.
CREATE TABLE IF NOT EXISTS stg_reviews (
    repo VARCHAR NOT NULL, day DATE NOT NULL, review_id BIGINT NOT NULL,
    pull_number INTEGER, author_login VARCHAR, author_type VARCHAR, author_association VARCHAR,
    state VARCHAR, submitted_at TIMESTAMPTZ, body VARCHAR
);

-- stg_pulls: pull request objects (size, draft, merge time), one row per number.
CREATE TABLE IF NOT EXISTS stg_pulls (
    repo VARCHAR NOT NULL, day DATE NOT NULL, number INTEGER NOT NULL,
    additions INTEGER, deletions INTEGER, changed_files INTEGER, commits INTEGER,
    draft BOOLEAN, merged_at TIMESTAMPTZ
);

-- core_items: every issue and PR the day touched, with its state and timestamps as last seen.
CREATE TABLE IF NOT EXISTS core_items (
    repo VARCHAR NOT NULL, day DATE NOT NULL, number INTEGER NOT NULL, kind VARCHAR NOT NULL,
    title VARCHAR, body VARCHAR, state VARCHAR,
    author_login VARCHAR, author_is_bot BOOLEAN, author_association VARCHAR,
    labels VARCHAR[], created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ,
    closed_at TIMESTAMPTZ, merged_at TIMESTAMPTZ, draft BOOLEAN,
    comments_total INTEGER, reactions_total INTEGER,
    additions INTEGER, deletions INTEGER, changed_files INTEGER
);

-- core_events: one row per thing that happened to an item inside the day's window.
CREATE TABLE IF NOT EXISTS core_events (
    repo VARCHAR NOT NULL, day DATE NOT NULL, event_key VARCHAR NOT NULL,
    number INTEGER NOT NULL, kind VARCHAR, event_type VARCHAR NOT NULL,
    occurred_at TIMESTAMPTZ NOT NULL, actor_login VARCHAR, actor_is_bot BOOLEAN, origin VARCHAR
);

-- core_comments: every comment, review comment and review written inside the window.
CREATE TABLE IF NOT EXISTS core_comments (
    repo VARCHAR NOT NULL, day DATE NOT NULL, comment_key VARCHAR NOT NULL,
    number INTEGER, comment_kind VARCHAR, author_login VARCHAR, author_is_bot BOOLEAN,
    author_association VARCHAR, created_at TIMESTAMPTZ, body VARCHAR, reactions_total INTEGER
);

-- core_people: one row per person active in the window, with what they did.
CREATE TABLE IF NOT EXISTS core_people (
    repo VARCHAR NOT NULL, day DATE NOT NULL, login VARCHAR NOT NULL, is_bot BOOLEAN,
    author_association VARCHAR, issues_opened INTEGER, prs_opened INTEGER,
    comments INTEGER, reviews INTEGER, closings INTEGER, merges INTEGER
);

-- mart_five_sets: the day's five report lists, one row per (set, item).
CREATE TABLE IF NOT EXISTS mart_five_sets (
    repo VARCHAR NOT NULL, day DATE NOT NULL, set_name VARCHAR NOT NULL, number INTEGER NOT NULL,
    kind VARCHAR, occurred_at TIMESTAMPTZ, title VARCHAR, labels VARCHAR[], author_login VARCHAR
);

-- mart_daily_counts: the day's five counts, with how the day was fetched.
CREATE TABLE IF NOT EXISTS mart_daily_counts (
    repo VARCHAR NOT NULL, day DATE NOT NULL,
    new_issues INTEGER, closed_issues INTEGER, new_prs INTEGER, merged_prs INTEGER,
    closed_unmerged_prs INTEGER, semantics VARCHAR, complete BOOLEAN
);
