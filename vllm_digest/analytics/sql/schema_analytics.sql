-- schema_analytics: the analytics tables (topics, links, hotness, focus areas, activity, rankings):
-- int_* are intermediate tables that only the marts read, mart_* what the report reads. Each is keyed
-- by (repo, day) like every warehouse table and rebuilt by vllm_digest.analytics.build for a batch
-- of days at a time (delete-then-insert of each (repo, day) partition in one transaction).

-- title_tags: the lower-cased tags a title carries: every [Tag] (split on '/' too, so [CI/Build]
-- gives ci/build, ci and build) and a conventional-commit prefix such as fix(scheduler): -> fix, scheduler.
CREATE OR REPLACE MACRO title_tags(title) AS (
    list_distinct(list_filter(list_transform(flatten(list_transform(
        list_concat(
            regexp_extract_all(coalesce(title, ''), '\[([^\]]+)\]', 1),
            [regexp_extract(coalesce(title, ''), '^\s*([A-Za-z]+)(?:\([^)]*\))?!?:', 1),
             regexp_extract(coalesce(title, ''), '^\s*[A-Za-z]+\(([^)]*)\)!?:', 1)]
        ),
        lambda t: list_append(string_split(t, '/'), t))),
        lambda x: lower(trim(x))), lambda x: x <> ''))
);

-- feature_matches, feature_priority, feature_evidence: how a taxonomy rule matches an item feature of
-- int_item_features (equal value, or a path under the rule's prefix), how strong that evidence is
-- (tag 1, label 2, path 4; text hits sit between them: title 3, body 5) and how it is written down.
-- mart_item_topics and mart_focus_items both judge features by these.
CREATE OR REPLACE MACRO feature_matches(rule_kind, rule_value, kind, value) AS (
    rule_kind = kind AND (rule_value = value OR (kind = 'path' AND starts_with(value, rule_value)))
);
CREATE OR REPLACE MACRO feature_priority(kind) AS (CASE kind WHEN 'tag' THEN 1 WHEN 'label' THEN 2 ELSE 4 END);
CREATE OR REPLACE MACRO feature_evidence(kind, value) AS (kind || ':' || value);

-- ref_taxonomy_rules: the taxonomy rules a day was built with, so each day's topics stay explainable
-- after the taxonomy file changes (the version travels with the rows).
CREATE TABLE IF NOT EXISTS ref_taxonomy_rules (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) built with these rules
    taxonomy_version INTEGER,           -- the taxonomy file's version
    taxonomy_path VARCHAR,              -- the taxonomy file the rules were read from
    scope VARCHAR NOT NULL,             -- topic, focus (a vendor focus area) or theme (a group inside a focus area)
    owner_id VARCHAR NOT NULL,          -- the id of the topic, focus area or theme the rule belongs to
    parent_id VARCHAR,                  -- a theme's focus area (null for topics and focus areas)
    kind VARCHAR NOT NULL,              -- what the rule matches: tag, label, path, text, author, employee_author,
                                        -- employee_profile, employee_login, or default (a focus area's other items)
    value VARCHAR,                      -- the lower-cased tag, label, path prefix or login (null for regex rules)
    pattern VARCHAR,                    -- the RE2 regex of a text, author, employee_author or employee_profile rule
    name_zh VARCHAR,                    -- the owner's name in Chinese
    name_en VARCHAR,                    -- the owner's name in English
    grp VARCHAR,                        -- a topic's group (e.g. process); a focus area's or theme's vendor
    risk BOOLEAN,                       -- whether the topic is a risk topic (e.g. accuracy, memory/OOM)
    ord INTEGER                         -- the rule's position in the file (file order decides between themes)
);

-- int_text_hits: which items' title, body or author login a taxonomy regex matched, and the matched text.
CREATE TABLE IF NOT EXISTS int_text_hits (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    number INTEGER NOT NULL,            -- the issue or PR whose text matched
    scope VARCHAR NOT NULL,             -- the rule's scope: topic, focus or theme
    owner_id VARCHAR NOT NULL,          -- the topic, focus area or theme of the rule
    parent_id VARCHAR,                  -- a theme's focus area (null otherwise)
    field VARCHAR NOT NULL,             -- what matched: title, body or author (the login)
    rule_ord INTEGER,                   -- the matching rule's ord in ref_taxonomy_rules
    matched VARCHAR                     -- the text the regex matched (the login for author rules)
);

-- int_item_links: issue <-> PR links found in bodies (fixes/closes/resolves #N) or in title evidence.
CREATE TABLE IF NOT EXISTS int_item_links (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) whose items hold the evidence
    issue_number INTEGER NOT NULL,      -- the issue end of the link
    pr_number INTEGER NOT NULL,         -- the PR end of the link
    link_kind VARCHAR NOT NULL,         -- body_keyword (fixes/closes/resolves #N in a body) or title_evidence
                                        -- (same author, created close together, shared title words)
    evidence VARCHAR,                   -- the evidence in words: the body phrase, or author, minutes and shared words
    shared_words VARCHAR[],             -- the title words the issue and PR share (empty for body_keyword)
    minutes_apart DOUBLE,               -- minutes between the two items' creation (title_evidence only)
    issue_in_day BOOLEAN,               -- whether the issue is an item of the day
    pr_in_day BOOLEAN                   -- whether the PR is an item of the day
);

-- int_item_features: each item's matchable evidence (title tag, label, review-comment path).
CREATE TABLE IF NOT EXISTS int_item_features (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    number INTEGER NOT NULL,            -- the issue or PR number
    kind VARCHAR NOT NULL,              -- tag (from the title), label, or path (a file its review comments point at)
    value VARCHAR NOT NULL              -- the lower-cased tag, label or file path
);

-- mart_item_topics: every item of the day x every topic it matches, with the rule that matched, and its one
-- report topic (is_primary) and thread (thread_head).
CREATE TABLE IF NOT EXISTS mart_item_topics (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    number INTEGER NOT NULL,            -- the issue or PR number
    kind VARCHAR,                       -- issue or pr
    topic_id VARCHAR NOT NULL,          -- the taxonomy topic it matches
    topic_zh VARCHAR,                   -- the topic's name in Chinese
    topic_en VARCHAR,                   -- the topic's name in English
    topic_group VARCHAR,                -- the topic's group (process: CI, build, tests, docs)
    topic_risk BOOLEAN,                 -- whether the topic is a risk topic
    matched_rule VARCHAR,               -- the strongest evidence, e.g. tag:kernel, label:rocm, title:"..."
    matched_rules VARCHAR[],            -- all the evidence for the topic
    via_link INTEGER,                   -- the linked item of the day the topic was inherited from (null if direct)
    taxonomy_version INTEGER,           -- the taxonomy version that matched
    is_primary BOOLEAN,                 -- the item's one topic in the report: its most specific (see the SQL)
    thread_head INTEGER                 -- the issue of the day heading the item's thread (itself if none)
);

-- mart_item_hotness: each item's activity inside the window and the score built from it.
CREATE TABLE IF NOT EXISTS mart_item_hotness (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    number INTEGER NOT NULL,            -- the issue or PR number
    kind VARCHAR,                       -- issue or pr
    title VARCHAR,                      -- the title
    author_login VARCHAR,               -- the author's login (null when the payload has no user)
    comments INTEGER,                   -- non-bot comments written in the window; with basis total, the item's total
    comments_basis VARCHAR,             -- window (comment rows held for the window) or total (only a total known)
    comment_rows INTEGER,               -- comment rows of the window held for the item, bots included
    participants INTEGER,               -- distinct non-bot commenters and reviewers in the window
    reviews INTEGER,                    -- non-bot PR reviews submitted in the window
    reactions INTEGER,                  -- reactions on the window's non-bot comments, plus its own if opened in it
    opened_in_window BOOLEAN,           -- opened in the window
    closed_in_window BOOLEAN,           -- closed in the window
    merged_in_window BOOLEAN,           -- merged in the window
    comments_points DOUBLE,             -- 1.0 per comment
    participants_points DOUBLE,         -- 2.0 per participant
    reviews_points DOUBLE,              -- 1.5 per review
    reactions_points DOUBLE,            -- 0.5 per reaction
    opened_points DOUBLE,               -- 2 if opened in the window
    closed_points DOUBLE,               -- 1 if closed or merged in the window
    hotness DOUBLE,                     -- the sum of the points
    hotness_rank INTEGER,               -- 1 = the day's hottest; ties go to more comments, then the newer item
    discussed BOOLEAN,                  -- a real discussion in the window: the 💬 section lists only these
    discussion_comments INTEGER,        -- issue and review comments in the window by people (no bots, no deleted accounts)
    discussion_people INTEGER           -- distinct people among those comments' authors, the item's author included
);

-- mart_focus_items: items of a vendor focus area, the rule that matched, the theme and employee flag.
CREATE TABLE IF NOT EXISTS mart_focus_items (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    focus_id VARCHAR NOT NULL,          -- the focus area (e.g. AMD/ROCm)
    vendor VARCHAR,                     -- the focus area's vendor
    number INTEGER NOT NULL,            -- the issue or PR number
    kind VARCHAR,                       -- issue or pr
    title VARCHAR,                      -- the title
    author_login VARCHAR,               -- the author's login (null when the payload has no user)
    labels VARCHAR[],                   -- the label names
    sets VARCHAR[],                     -- which of the day's five report lists hold it (empty if none)
    matched_rule VARCHAR,               -- the strongest evidence for the focus area
    matched_rules VARCHAR[],            -- all the evidence for it
    theme_id VARCHAR,                   -- the theme the report groups it under
    theme_zh VARCHAR,                   -- the theme's name in Chinese
    theme_en VARCHAR,                   -- the theme's name in English
    theme_rule VARCHAR,                 -- the evidence that chose the theme, or default
    is_vendor_employee BOOLEAN,         -- whether the author is tagged a vendor employee
    employee_rule VARCHAR,              -- the profile pattern or login that tagged the author (null if not)
    hotness DOUBLE,                     -- the item's hotness (mart_item_hotness)
    taxonomy_version INTEGER,           -- the taxonomy version that matched
    demoted VARCHAR,                    -- why it is kept off the focus list (null = listed): label_spam (only a
                                        -- label, among many), body_mention (only the body), off_title (not new today, no
                                        -- area word in the title, only a label/body/login), stale or closed_unmerged
    author_profile_known BOOLEAN,       -- whether the author's profile was fetched (or the author tagged by a rule)
    author_employer_known BOOLEAN,      -- whether anything names the employer: a vendor match or a profile's company
    author_login_rule VARCHAR           -- the area's login pattern the login matches ('-amd'): a convention, not an employer
);

-- int_item_areas: the code areas each PR's changed files land in (taxonomy [[area]] path prefixes).
CREATE TABLE IF NOT EXISTS int_item_areas (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    number INTEGER NOT NULL,            -- the PR number
    area_id VARCHAR NOT NULL,           -- the taxonomy's code area (scheduler, rocm_kernels, models ...)
    area_zh VARCHAR,                    -- the area's name in Chinese
    area_en VARCHAR,                    -- the area's name in English
    files INTEGER,                      -- the PR's changed files in the area
    lines INTEGER                       -- lines added plus deleted in those files
);

-- mart_activity_daily: one row per day of contributor, review, merge, response and bot metrics.
CREATE TABLE IF NOT EXISTS mart_activity_daily (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    contributors INTEGER,               -- distinct non-bot people who opened, closed, merged, commented or reviewed
    bot_accounts INTEGER,               -- distinct bot accounts among the window's actors
    issue_authors INTEGER,              -- distinct non-bot authors of issues opened in the window
    pr_authors INTEGER,                 -- distinct non-bot authors of PRs opened in the window
    commenters INTEGER,                 -- distinct non-bot authors of comments (conversation and diff)
    reviewers INTEGER,                  -- distinct non-bot PR reviewers
    first_time_contributors INTEGER,    -- distinct non-bot authors of new items who are first-time contributors
                                        -- (FIRST_TIME_CONTRIBUTOR, FIRST_TIMER or NONE); null when unknown
    association_known INTEGER,          -- new items whose author association the source gives
    first_time_basis VARCHAR,           -- author_association, or unknown (no association given)
    issues_opened INTEGER,              -- issues opened in the window (the new-issues list)
    prs_opened INTEGER,                 -- PRs opened in the window
    issues_closed INTEGER,              -- issues closed in the window
    prs_merged INTEGER,                 -- PRs merged in the window
    prs_closed_unmerged INTEGER,        -- PRs closed without merge in the window
    merge_rate DOUBLE,                  -- merged / (merged + closed without merge); null when there are neither
    median_hours_to_merge DOUBLE,       -- median hours from opening to merge, over PRs merged in the window
    p90_hours_to_merge DOUBLE,          -- 90th percentile of the same
    items_opened INTEGER,               -- issues and PRs opened in the window
    opened_answered INTEGER,            -- of those, answered in the window by a non-bot other than the author
                                        -- (null without comment data)
    opened_unanswered INTEGER,          -- of those, not answered in the window (null without comment data)
    median_hours_to_first_response DOUBLE, -- median hours from opening to that first answer
    response_basis VARCHAR,             -- window comments, or no comment data (the source holds no threads)
    comments INTEGER,                   -- comments written in the window (conversation and diff, bots included)
    reviews INTEGER,                    -- PR reviews submitted in the window
    stale_closures INTEGER,             -- closings in the window of items labelled stale
    stale_closures_by_bot INTEGER,      -- of those, closed by a bot
    bot_events INTEGER,                 -- the window's events (core_events) by bots
    bot_comments INTEGER                -- the window's comments and reviews by bots
);

-- mart_topic_daily: per topic and day, item counts, summed hotness, the trend against the trailing days, and the
-- report's ranking (surprise against a volume-scaled baseline, threads, story points, topic_rank).
CREATE TABLE IF NOT EXISTS mart_topic_daily (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    topic_id VARCHAR NOT NULL,          -- the taxonomy topic
    topic_zh VARCHAR,                   -- its name in Chinese
    topic_en VARCHAR,                   -- its name in English
    topic_group VARCHAR,                -- its group (process: CI, build, tests, docs)
    items INTEGER,                      -- items of the day with the topic
    issues INTEGER,                     -- of those, issues
    prs INTEGER,                        -- of those, PRs
    new_items INTEGER,                  -- of those, opened in the window
    merged_prs INTEGER,                 -- of those, merged in the window
    closed_items INTEGER,               -- of those, closed without merge in the window
    hotness_sum DOUBLE,                 -- their summed hotness
    top_items INTEGER[],                -- the five hottest item numbers
    baseline_days INTEGER,              -- built days among the trailing N (the taxonomy's trend baseline_days)
    baseline_window INTEGER,            -- N, the trailing days the baseline should cover
    baseline_items_sum INTEGER,         -- the topic's items over those days
    baseline_mean_items DOUBLE,         -- that sum / N, only when all N days are built (else null)
    items_ratio DOUBLE,                 -- items / baseline_mean_items (null when the mean is missing or 0)
    rising BOOLEAN,                     -- rising today: enough items and a ratio at or above the rising ratio
    trend_status VARCHAR,               -- rising, new, falling, steady, or baseline incomplete
    taxonomy_version INTEGER,           -- the taxonomy version that matched
    day_items INTEGER,                  -- all items of the day, any topic
    baseline_total INTEGER,             -- all items of the built baseline days
    volume_factor DOUBLE,               -- day_items / the baseline days' mean: the weekday factor (null: baseline incomplete)
    expected_items DOUBLE,              -- the topic's baseline share x day_items (null: baseline incomplete)
    surprise DOUBLE,                    -- (items - expected_items) / sqrt(expected_items + 1), a Poisson z-score
    trend VARCHAR,                      -- up, down, noise (|surprise| below the noise rule) or incomplete: the arrow
    generic BOOLEAN,                    -- a generic bucket (taxonomy generic = true): listed after specific topics
    primary_items INTEGER,              -- items whose one report topic this is (mart_item_topics.is_primary)
    threads STRUCT(head INTEGER, numbers INTEGER[], points DOUBLE, parts VARCHAR)[],
                                        -- those items as threads (issue + linked PRs), best story first
    listable_threads INTEGER,           -- threads with at least the taxonomy's min_story points
    story_points DOUBLE,                -- summed points of its best 3 listable threads
    topic_score DOUBLE,                 -- surprise_weight x surprise + story_weight x story_points
    topic_rank INTEGER,                 -- the report's order (1 first); null when no item has it as its one topic
    listed BOOLEAN,                     -- the day's report lists it (the one rule the report and the picks read)
    shown_threads INTEGER               -- how many of its threads that report shows (0 when not listed)
);

-- mart_key_changes: PRs merged (and PRs opened) in the window, scored by the fitted selection model.
CREATE TABLE IF NOT EXISTS mart_key_changes (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    number INTEGER NOT NULL,            -- the PR number
    title VARCHAR,                      -- the title
    author_login VARCHAR,               -- the author's login (null when the payload has no user)
    labels VARCHAR[],                   -- the label names
    change_status VARCHAR,              -- merged (in the window) or opened (in the window, not merged yet)
    topics VARCHAR[],                   -- its topics (int_item_topic_sets)
    rising_topics VARCHAR[],            -- its topics that are rising today
    size_lines INTEGER,                 -- additions + deletions (0 when unknown)
    size_known BOOLEAN,                 -- whether the PR's size was fetched
    draft BOOLEAN,                      -- a draft (flag, or a [Draft] / [WIP] title tag)
    typo_sized BOOLEAN,                 -- a known size of at most 4 lines, or a typo title: never ranked first
    hotness DOUBLE,                     -- its hotness (mart_item_hotness)
    score_parts STRUCT(feature VARCHAR, value DOUBLE, weight DOUBLE, points DOUBLE)[],
                                        -- why: each feature of int_selection_features with a non-zero weight,
                                        -- its value, its fitted weight and points = weight * value, largest first
    key_score DOUBLE,                   -- the log-odds: the fitted bias plus the points of score_parts
    key_probability DOUBLE,             -- 1 / (1 + exp(-key_score)): the model's chance the editor picks it
    key_rank INTEGER,                   -- 1 = the day's most important; typo-sized PRs last; ties to the newer PR
    selected BOOLEAN                    -- among the fitted number of key changes the report cites
);

-- mart_notable_issues: the day's listed issues and PRs worth watching, scored by the fitted selection model.
CREATE TABLE IF NOT EXISTS mart_notable_issues (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    number INTEGER NOT NULL,            -- the issue or PR number
    kind VARCHAR,                       -- issue or pr
    title VARCHAR,                      -- the title
    author_login VARCHAR,               -- the author's login (null when the payload has no user)
    labels VARCHAR[],                   -- the label names
    is_rfc BOOLEAN,                     -- an RFC: [RFC] title tag or label rfc
    open_at_window_end BOOLEAN,         -- still open when the window ended
    ci_failure BOOLEAN,                 -- a CI failure report: ranks after every other item
    topics VARCHAR[],                   -- its topics (int_item_topic_sets)
    risk_topics VARCHAR[],              -- its risk topics
    rising_topics VARCHAR[],            -- its topics that are rising today
    linked_prs INTEGER[],               -- PRs linked to it (int_item_links)
    hotness DOUBLE,                     -- its hotness (mart_item_hotness)
    score_parts STRUCT(feature VARCHAR, value DOUBLE, weight DOUBLE, points DOUBLE)[],
                                        -- why: each feature with a non-zero weight, its value, weight and points
    notable_score DOUBLE,               -- the log-odds: the fitted bias plus the points of score_parts
    notable_probability DOUBLE,         -- 1 / (1 + exp(-notable_score))
    notable_rank INTEGER,               -- 1 = the day's most notable; ties go to the newer item
    selected BOOLEAN                    -- among the fitted number of notable items the report cites
);

-- int_item_junk: the day's items with no news (fork syncs, empty titles, bot housekeeping, PRs closed within
-- minutes by their author), which every analysis section leaves out.
CREATE TABLE IF NOT EXISTS int_item_junk (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    number INTEGER NOT NULL,            -- the issue or PR number
    reason VARCHAR NOT NULL,            -- fork_sync, empty_title, bot_chore or quick_close
    evidence VARCHAR                    -- what showed it: the title, or the minutes open and who closed it
);

-- int_selection_features: the explainable features the selection models weigh, one row per item and feature.
CREATE TABLE IF NOT EXISTS int_selection_features (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    number INTEGER NOT NULL,            -- an item of the day's five lists
    feature VARCHAR NOT NULL,           -- the feature's name (see sql/int_selection_features.sql for each)
    value DOUBLE NOT NULL               -- its value: 1 for a flag, a log count or size otherwise (0 is not stored)
);

-- int_item_topic_sets: each item's topics, risk topics and rising topics of the day, as lists.
CREATE TABLE IF NOT EXISTS int_item_topic_sets (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    number INTEGER NOT NULL,            -- the issue or PR number
    topics VARCHAR[],                   -- all its topics
    risk_topics VARCHAR[],              -- its risk topics
    substantive INTEGER,                -- how many of its topics are outside the process group
    rising_topics VARCHAR[]             -- its topics that are rising today
);

-- int_item_entities: the named things each item's title talks about (vllm_digest/analytics/entities.py).
CREATE TABLE IF NOT EXISTS int_item_entities (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    number INTEGER NOT NULL,            -- the issue or PR number
    entity_key VARCHAR NOT NULL,        -- the folded key: lower case, no separators, no 'v' before a version
    entity_name VARCHAR,                -- the entity as this title writes it
    action VARCHAR                      -- what the title says the item does: add, fix, perf, revert, docs, other; issue
);

-- mart_hot_stories: the day's stories for 🔥 (an entity's items and the items linked to them), ranked.
CREATE TABLE IF NOT EXISTS mart_hot_stories (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key)
    story_key VARCHAR NOT NULL,         -- the entity's folded key
    story_name VARCHAR,                 -- the entity as the day's titles write it most often
    items INTEGER,                      -- the story's items (its entity's, and the items linked to them)
    prs INTEGER,                        -- of those, PRs
    issues INTEGER,                     -- of those, issues
    added INTEGER,                      -- PRs whose title adds or supports something
    fixed INTEGER,                      -- PRs whose title fixes something
    perf INTEGER,                       -- PRs whose title speeds something up
    reverted INTEGER,                   -- reverts
    docs INTEGER,                       -- documentation PRs
    other INTEGER,                      -- the other PRs
    numbers INTEGER[],                  -- the items, hottest first
    hotness_sum DOUBLE,                 -- their summed hotness
    history_days INTEGER,               -- built days among the trailing ones the usual volume is read from
    usual_items DOUBLE,                 -- the entity's items per built day over those days (null: none built)
    surprise DOUBLE,                    -- (items - usual_items) / sqrt(usual_items + 1)
    story_score DOUBLE,                 -- items + max(surprise, 0)
    story_rank INTEGER,                 -- 1 = the day's top story
    listed BOOLEAN,                     -- the report lists it (the first story_limit)
    shown_items INTEGER                 -- how many of its items the report shows
);

-- mart_section_picks: every item each day's report featured, per analysis section, with its rank and score.
CREATE TABLE IF NOT EXISTS mart_section_picks (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) that featured the item
    section VARCHAR NOT NULL,           -- the analysis section: key_changes, notable, discussions, topics or focus
    pick_rank INTEGER NOT NULL,         -- its place in that section that day (1 = first)
    number INTEGER NOT NULL,            -- the issue or PR number
    kind VARCHAR,                       -- issue or pr
    title VARCHAR,                      -- the title, as that day saw it
    score DOUBLE,                       -- the score its selection mart ranked it by (key_score, notable_score, hotness)
    detail VARCHAR                      -- what placed it: the change status, the topic or the focus theme (null otherwise)
);

-- mart_follow_ups: items featured in the trailing days whose state moved in this day's window.
CREATE TABLE IF NOT EXISTS mart_follow_ups (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day (partition key) in whose window the item moved
    number INTEGER NOT NULL,            -- the issue or PR number
    kind VARCHAR,                       -- issue or pr
    title VARCHAR,                      -- the title, as its latest featuring day saw it
    first_reported DATE NOT NULL,       -- the earliest day among the trailing ones whose report featured it
    first_section VARCHAR,              -- the section that featured it that day (mart_section_picks.section)
    moves VARCHAR[] NOT NULL,           -- what moved, in follow_rank order: merged, closed, reopened, linked_pr_merged,
                                        -- linked_pr_opened, maintainer_response, comment_burst
    linked_prs_merged INTEGER[],        -- linked PRs merged in the window (linked_pr_merged)
    linked_prs_opened INTEGER[],        -- linked PRs opened in the window (linked_pr_opened)
    responder VARCHAR,                  -- the maintainer who answered first (maintainer_response; null otherwise)
    comments INTEGER,                   -- non-bot comments in the window (comment_burst; null otherwise)
    follow_rank INTEGER                 -- 1 = the day's first follow-up: merges, closings, reopenings, links, replies, bursts
);
