-- schema: every warehouse table, keyed by (repo, day) so each report day is one replaceable partition.

-- is_bot: true for GitHub App accounts and the automation accounts vLLM uses.
CREATE OR REPLACE MACRO is_bot(login, account_type) AS (
    coalesce(account_type, '') = 'Bot'
    OR coalesce(login, '') LIKE '%[bot]'
    OR coalesce(login, '') IN ('github-actions', 'mergify', 'dependabot', 'stale', 'vllm-bot', 'pre-commit-ci')
);

-- parsed_text_hash: the content hash a parsed body text is stored under in core_texts: sha256 of its parts as one
-- JSON object (lists keep their order), so equal texts share one row however many item-days carry them.
CREATE OR REPLACE MACRO parsed_text_hash(what, purpose, test_plan, test_result, result_figures, referenced_items,
                                         meaningful_text, sections) AS
    sha256(CAST(to_json({'what': what, 'purpose': purpose, 'test_plan': test_plan, 'test_result': test_result,
                         'result_figures': result_figures, 'referenced_items': referenced_items,
                         'meaningful_text': meaningful_text, 'sections': sections}) AS VARCHAR));

-- Every column says what it holds in its trailing "-- " comment (a line of only "-- " continues it): the
-- Dagster UI shows these as the tables' column descriptions (vllm_digest/core/sqlmodel/schema.py reads them).
-- A column is declared here only: opening an older warehouse adds the declared columns it lacks, and the few
-- changes a CREATE cannot say (a renamed table, a dropped column) are the numbered files of each stage's sql/migrations/
-- (vllm_digest/core/sqlmodel/migrate.py).

-- stg_fetch_manifest: how each day was landed (source, event or snapshot semantics, completeness, request counts).
CREATE TABLE IF NOT EXISTS stg_fetch_manifest (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) the row belongs to
    source VARCHAR,                     -- where the day came from: sample or github
    semantics VARCHAR,                  -- events: closings and merges from issue events; snapshot: from the
                                        -- items' closed_at / merged_at as last seen
    complete BOOLEAN,                   -- whether the whole window was fetched; false opens the report with a warning
    incomplete_reasons VARCHAR[],       -- why the day is incomplete (empty when complete)
    window_start TIMESTAMPTZ,           -- start of the day's window (the cutoff), inclusive
    window_end TIMESTAMPTZ,             -- end of the day's window (the next cutoff), exclusive
    request_count INTEGER,              -- HTTP requests the fetch made (0 for the sample)
    not_modified_count INTEGER,         -- requests GitHub answered 304 Not Modified (served from the previous landing)
    totals JSON,                        -- the source's own count (and numbers) per report set, when it states them;
                                        -- the check reconciles_with_fetch_totals compares them with ours
    cross_check JSON                    -- the closed and merged lists' search cross-check: {"applied": true, "sets":
                                        -- {set: {"query", "numbers", "missing"} or, a search that cannot say when,
                                        -- {"query", "applied": false, "why"}}} or {"applied": false, "why"};
                                        -- {} for a landing older than it; the check cross_checked_with_search reads it
);

-- stg_issues: issue and PR objects as landed, one row per number.
CREATE TABLE IF NOT EXISTS stg_issues (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) whose landing holds the object
    number INTEGER NOT NULL,            -- the issue or PR number
    title VARCHAR,                      -- the title
    body VARCHAR,                       -- the opening text (null when the source has none)
    state VARCHAR,                      -- open or closed, as last seen
    author_login VARCHAR,               -- the author's login (null when the payload has no user)
    author_type VARCHAR,                -- the author's account type: User, Bot or Organization
    author_association VARCHAR,         -- the author's relation to the repo (MEMBER, CONTRIBUTOR, FIRST_TIMER...)
    labels VARCHAR[],                   -- the label names
    comments_total INTEGER,             -- the item's total comment count, as last seen
    reactions_total INTEGER,            -- reactions on the item itself, as last seen
    created_at TIMESTAMPTZ,             -- when it was opened
    updated_at TIMESTAMPTZ,             -- when it last changed, as last seen
    closed_at TIMESTAMPTZ,              -- when it was last closed (null while open)
    is_pull_request BOOLEAN,            -- true for a PR, false for an issue
    merged_at TIMESTAMPTZ,              -- when the PR was merged (null for issues and unmerged PRs)
    draft BOOLEAN                       -- whether the PR is a draft (null when unknown)
);

-- stg_issue_events: issue events (closed, merged, reopened, ...), one row per event id.
CREATE TABLE IF NOT EXISTS stg_issue_events (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) whose landing holds the event
    event_id BIGINT NOT NULL,           -- GitHub's id of the event
    event VARCHAR,                      -- what happened: closed, merged, reopened, ...
    created_at TIMESTAMPTZ,             -- when it happened
    actor_login VARCHAR,                -- who did it (null when unknown)
    actor_type VARCHAR,                 -- the actor's account type: User, Bot or Organization
    issue_number INTEGER,               -- the issue or PR it happened to
    commit_id VARCHAR                   -- the commit that closed or merged it, when there is one
);

-- stg_issue_comments: conversation comments on issues and PRs, one row per comment id.
CREATE TABLE IF NOT EXISTS stg_issue_comments (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) whose landing holds the comment
    comment_id BIGINT NOT NULL,         -- GitHub's id of the comment
    issue_number INTEGER,               -- the issue or PR it was written on
    author_login VARCHAR,               -- who wrote it (null when the payload has no user)
    author_type VARCHAR,                -- the author's account type: User, Bot or Organization
    author_association VARCHAR,         -- the author's relation to the repo (MEMBER, CONTRIBUTOR, NONE...)
    created_at TIMESTAMPTZ,             -- when it was written
    updated_at TIMESTAMPTZ,             -- when it was last edited
    body VARCHAR,                       -- the comment's text
    reactions_total INTEGER             -- reactions on the comment
);

-- stg_review_comments: PR diff comments, one row per comment id.
CREATE TABLE IF NOT EXISTS stg_review_comments (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) whose landing holds the comment
    comment_id BIGINT NOT NULL,         -- GitHub's id of the comment
    pull_number INTEGER,                -- the PR it was written on
    author_login VARCHAR,               -- who wrote it (null when the payload has no user)
    author_type VARCHAR,                -- the author's account type: User, Bot or Organization
    author_association VARCHAR,         -- the author's relation to the repo (MEMBER, CONTRIBUTOR, NONE...)
    created_at TIMESTAMPTZ,             -- when it was written
    body VARCHAR,                       -- the comment's text
    path VARCHAR,                       -- the file of the diff it points at
    in_reply_to_id BIGINT,              -- the comment it answers, in a review thread (null for a thread's first)
    reactions_total INTEGER             -- reactions on the comment
);

-- stg_reviews: PR reviews (approved, changes requested, commented), one row per review id.
CREATE TABLE IF NOT EXISTS stg_reviews (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) whose landing holds the review
    review_id BIGINT NOT NULL,          -- GitHub's id of the review
    pull_number INTEGER,                -- the PR it reviews
    author_login VARCHAR,               -- the reviewer's login (null when the payload has no user)
    author_type VARCHAR,                -- the reviewer's account type: User, Bot or Organization
    author_association VARCHAR,         -- the reviewer's relation to the repo (MEMBER, CONTRIBUTOR, NONE...)
    state VARCHAR,                      -- APPROVED, CHANGES_REQUESTED, COMMENTED or DISMISSED
    submitted_at TIMESTAMPTZ,           -- when it was submitted
    body VARCHAR                        -- the review's summary text
);

-- stg_pulls: PR objects (size, draft, merge time), one row per number.
CREATE TABLE IF NOT EXISTS stg_pulls (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) whose landing holds the PR
    number INTEGER NOT NULL,            -- the PR number
    additions INTEGER,                  -- lines added
    deletions INTEGER,                  -- lines deleted
    changed_files INTEGER,              -- files changed
    commits INTEGER,                    -- commits in the PR
    draft BOOLEAN,                      -- whether the PR is a draft
    merged_at TIMESTAMPTZ               -- when it was merged (null if not merged)
);

-- stg_pull_files: the files changed by the day's key-change and focus candidate PRs, one row per (PR, file).
CREATE TABLE IF NOT EXISTS stg_pull_files (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    number INTEGER NOT NULL,            -- the PR number
    filename VARCHAR NOT NULL,          -- the changed file's path in the repository
    status VARCHAR,                     -- added, modified, removed, renamed ...
    additions INTEGER,                  -- lines the PR adds to the file
    deletions INTEGER                   -- lines the PR deletes from the file
);

-- stg_users: the account profiles of the day's item authors (GET /users/{login}, as cached), one row per login.
CREATE TABLE IF NOT EXISTS stg_users (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    login VARCHAR NOT NULL,             -- the account's login
    name VARCHAR,                       -- the profile's display name
    company VARCHAR,                    -- the profile's company, as its owner wrote it
    bio VARCHAR,                        -- the profile's bio
    account_type VARCHAR,               -- User, Bot or Organization
    fetched_at TIMESTAMPTZ              -- when the profile was last asked of GitHub (200 or 304)
);

-- core_items: every issue and PR the day touched, with its state and timestamps as last seen.
CREATE TABLE IF NOT EXISTS core_items (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) that touched the item
    number INTEGER NOT NULL,            -- the issue or PR number
    kind VARCHAR NOT NULL,              -- issue or pr
    title VARCHAR,                      -- the title
    body VARCHAR,                       -- the opening text (null when the source has none)
    state VARCHAR,                      -- open or closed, as last seen
    author_login VARCHAR,               -- the author's login (null when the payload has no user)
    author_is_bot BOOLEAN,              -- whether the author is a bot (GitHub App or a known automation account)
    author_association VARCHAR,         -- the author's relation to the repo (MEMBER, CONTRIBUTOR, FIRST_TIMER...)
    labels VARCHAR[],                   -- the label names
    created_at TIMESTAMPTZ,             -- when it was opened
    updated_at TIMESTAMPTZ,             -- when it last changed, as last seen
    closed_at TIMESTAMPTZ,              -- when it was last closed (null while open)
    merged_at TIMESTAMPTZ,              -- when the PR was merged (null for issues and unmerged PRs)
    draft BOOLEAN,                      -- whether the PR is a draft (null when unknown)
    comments_total INTEGER,             -- the item's total comment count, as last seen
    reactions_total INTEGER,            -- reactions on the item itself, as last seen
    additions INTEGER,                  -- lines the PR adds (null when its size was not fetched)
    deletions INTEGER,                  -- lines the PR deletes (null when its size was not fetched)
    changed_files INTEGER               -- files the PR changes (null when its size was not fetched)
);

-- core_item_text_refs: what each item-day's body says, by reference: the content hash of its parsed text in
-- core_texts (an item touched on many days, and the many bodies that parse alike, store their text once).
CREATE TABLE IF NOT EXISTS core_item_text_refs (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) that touched the item
    number INTEGER NOT NULL,            -- the issue or PR number
    kind VARCHAR NOT NULL,              -- issue or pr
    text_hash VARCHAR                   -- the sha256 of its parsed text in core_texts (null: the item has no body)
);

-- core_texts: each distinct parsed body text once (warehouse/bodies.py), keyed by the sha256 of its parts (the
-- derived has_description left out); rows no item-day references any more are removed when a day is rebuilt.
CREATE TABLE IF NOT EXISTS core_texts (
    text_hash VARCHAR PRIMARY KEY,      -- sha256 of the parts below as JSON: the key core_item_text_refs holds
    has_description BOOLEAN,            -- whether the author wrote anything beyond the template
    what VARCHAR,                       -- the first meaningful sentence of its Purpose / Summary / Motivation, plain
    purpose VARCHAR,                    -- the Purpose (or Summary, bug description, Motivation) as plain lines
    test_plan VARCHAR,                  -- the Test Plan's prose (commands in code blocks left out)
    test_result VARCHAR,                -- the Test Result's prose
    result_figures VARCHAR[],           -- numbers with their units from the Test Result (1.36x, 48.2 ms, 812 tok/s)
    referenced_items INTEGER[],         -- the items a closing keyword names (FIX #N, Closes #N, Resolves <URL>)
    meaningful_text VARCHAR,            -- the author's prose, no environment dump, checklist, comment or template line
    sections VARCHAR[],                 -- the kinds of section found, in body order (purpose, test_plan, other...)
    changes VARCHAR[],                  -- the first items of its Changes / Modifications list, each whole
    claims VARCHAR[],                   -- each figure of its Test Result or benchmark (then its purpose) in the
                                        -- sentence or table row that gives it its meaning, the author's words
    test_commands VARCHAR[]             -- what its Test Plan ran: the first lines of the plan's code blocks
);

-- core_item_texts: what each item's body says, template text left out (warehouse/bodies.py), one row per
-- item-day as the models read it: the item-day's reference joined to its stored text, empty without a body.
-- (A warehouse made when this was a table is migrated when opened: core/sqlmodel/migrate.py.)
CREATE OR REPLACE VIEW core_item_texts AS
SELECT r.repo, r.day, r.number, r.kind,
       coalesce(t.has_description, false) AS has_description,
       coalesce(t.what, '') AS what,
       coalesce(t.purpose, '') AS purpose,
       coalesce(t.test_plan, '') AS test_plan,
       coalesce(t.test_result, '') AS test_result,
       coalesce(t.result_figures, CAST([] AS VARCHAR[])) AS result_figures,
       coalesce(t.referenced_items, CAST([] AS INTEGER[])) AS referenced_items,
       coalesce(t.meaningful_text, '') AS meaningful_text,
       coalesce(t.sections, CAST([] AS VARCHAR[])) AS sections,
       coalesce(t.changes, CAST([] AS VARCHAR[])) AS changes,
       coalesce(t.claims, CAST([] AS VARCHAR[])) AS claims,
       coalesce(t.test_commands, CAST([] AS VARCHAR[])) AS test_commands
FROM core_item_text_refs AS r
LEFT JOIN core_texts AS t ON t.text_hash = r.text_hash;

-- core_events: one row per thing that happened to an item inside the day's window.
CREATE TABLE IF NOT EXISTS core_events (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) whose window holds the event
    event_key VARCHAR NOT NULL,         -- unique per day: the origin and its id, e.g. opened:123 or event:456
    number INTEGER NOT NULL,            -- the issue or PR it happened to
    kind VARCHAR,                       -- issue or pr (null when the item itself was not landed)
    event_type VARCHAR NOT NULL,        -- opened, closed, merged, reopened, commented or reviewed
    occurred_at TIMESTAMPTZ NOT NULL,   -- when it happened, inside the window
    actor_login VARCHAR,                -- who did it (null when unknown)
    actor_is_bot BOOLEAN,               -- whether the actor is a bot
    origin VARCHAR                      -- what it was read from: item, issue_event, snapshot, issue_comment,
                                        -- review_comment or review
);

-- core_comments: every comment, review comment and review written inside the window.
CREATE TABLE IF NOT EXISTS core_comments (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) whose window holds the comment
    comment_key VARCHAR NOT NULL,       -- unique per day: the kind and GitHub's id, e.g. review:789
    number INTEGER,                     -- the issue or PR it was written on
    comment_kind VARCHAR,               -- issue_comment, review_comment (on the diff) or review
    author_login VARCHAR,               -- who wrote it (null when the payload has no user)
    author_is_bot BOOLEAN,              -- whether the author is a bot
    author_association VARCHAR,         -- the author's relation to the repo (MEMBER, CONTRIBUTOR, NONE...)
    created_at TIMESTAMPTZ,             -- when it was written (a review: when it was submitted)
    body VARCHAR,                       -- the text
    reactions_total INTEGER,            -- reactions on it (0 for reviews)
    review_state VARCHAR                -- a review's verdict: APPROVED, CHANGES_REQUESTED, COMMENTED (null otherwise)
);

-- core_people: one row per person of the day: who acted in the window, with what they did, and every author of
-- the day's items (active = false when they did nothing in the window: kept so that their profile is known).
CREATE TABLE IF NOT EXISTS core_people (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    login VARCHAR NOT NULL,             -- the person's login
    is_bot BOOLEAN,                     -- whether the account is a bot
    author_association VARCHAR,         -- their relation to the repo, from the items they authored (null if none)
    issues_opened INTEGER,              -- issues they opened in the window
    prs_opened INTEGER,                 -- PRs they opened in the window
    comments INTEGER,                   -- comments they wrote in the window (conversation and diff)
    reviews INTEGER,                    -- PR reviews they submitted in the window
    closings INTEGER,                   -- items they closed in the window
    merges INTEGER,                     -- PRs they merged in the window
    name VARCHAR,                       -- their profile's display name (null: no profile fetched)
    company VARCHAR,                    -- their profile's company (null: none written, or no profile fetched)
    bio VARCHAR,                        -- their profile's bio
    has_profile BOOLEAN,                -- whether their profile was fetched (GET /users/{login})
    active BOOLEAN DEFAULT true         -- whether they did anything in the window (false: only an item's author;
                                        -- a row written before the flag existed was an actor: true)
);

-- mart_five_sets: the day's five report lists, one row per (set, item).
CREATE TABLE IF NOT EXISTS mart_five_sets (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    set_name VARCHAR NOT NULL,          -- new_issues, closed_issues, new_prs, merged_prs or closed_unmerged_prs
    number INTEGER NOT NULL,            -- the issue or PR number
    kind VARCHAR,                       -- issue or pr
    occurred_at TIMESTAMPTZ,            -- when it joined the set: opened, or its last closing or merge in the window
    title VARCHAR,                      -- the title, as last seen
    labels VARCHAR[],                   -- the label names, as last seen
    author_login VARCHAR                -- the author's login (null when the payload has no user)
);

-- mart_daily_counts: the day's five counts, with how the day was fetched.
CREATE TABLE IF NOT EXISTS mart_daily_counts (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    new_issues INTEGER,                 -- issues opened in the window
    closed_issues INTEGER,              -- issues with a closing in the window, even if reopened later
    new_prs INTEGER,                    -- PRs opened in the window
    merged_prs INTEGER,                 -- PRs merged in the window
    closed_unmerged_prs INTEGER,        -- PRs closed in the window with no merge within 60 s of the closing
    semantics VARCHAR,                  -- how closings were read: events or snapshot (stg_fetch_manifest)
    complete BOOLEAN                    -- whether the day was fetched whole (stg_fetch_manifest)
);
