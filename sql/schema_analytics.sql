-- schema_analytics: the analytics tables (topics, links, hotness, focus areas, activity, rankings):
-- int_* are intermediate tables that only the marts read, mart_* what the report reads. Each is keyed
-- by (repo, day) like every warehouse table and rebuilt by vllm_digest.analytics.build for a batch
-- of days at a time (delete-then-insert of each (repo, day) partition in one transaction).

-- The intermediate tables the marts read were named mart_*; a warehouse written before keeps their rows.
ALTER TABLE IF EXISTS mart_text_hits RENAME TO int_text_hits;
ALTER TABLE IF EXISTS mart_item_links RENAME TO int_item_links;
ALTER TABLE IF EXISTS mart_item_features RENAME TO int_item_features;
ALTER TABLE IF EXISTS mart_item_topic_sets RENAME TO int_item_topic_sets;

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
    repo VARCHAR NOT NULL, day DATE NOT NULL, taxonomy_version INTEGER, taxonomy_path VARCHAR,
    scope VARCHAR NOT NULL, owner_id VARCHAR NOT NULL, parent_id VARCHAR, kind VARCHAR NOT NULL,
    value VARCHAR, pattern VARCHAR, name_zh VARCHAR, name_en VARCHAR, grp VARCHAR, risk BOOLEAN,
    ord INTEGER
);

-- int_text_hits: which items' title, body or author login a taxonomy regex matched, and the matched text.
CREATE TABLE IF NOT EXISTS int_text_hits (
    repo VARCHAR NOT NULL, day DATE NOT NULL, number INTEGER NOT NULL, scope VARCHAR NOT NULL,
    owner_id VARCHAR NOT NULL, parent_id VARCHAR, field VARCHAR NOT NULL, rule_ord INTEGER, matched VARCHAR
);

-- int_item_links: issue <-> PR links found in bodies (fixes/closes/resolves #N) or in title evidence.
CREATE TABLE IF NOT EXISTS int_item_links (
    repo VARCHAR NOT NULL, day DATE NOT NULL, issue_number INTEGER NOT NULL, pr_number INTEGER NOT NULL,
    link_kind VARCHAR NOT NULL, evidence VARCHAR, shared_words VARCHAR[], minutes_apart DOUBLE,
    issue_in_day BOOLEAN, pr_in_day BOOLEAN
);

-- int_item_features: each item's matchable evidence (title tag, label, review-comment path).
CREATE TABLE IF NOT EXISTS int_item_features (
    repo VARCHAR NOT NULL, day DATE NOT NULL, number INTEGER NOT NULL, kind VARCHAR NOT NULL, value VARCHAR NOT NULL
);

-- mart_item_topics: every item of the day x every topic it matches, with the rule that matched.
CREATE TABLE IF NOT EXISTS mart_item_topics (
    repo VARCHAR NOT NULL, day DATE NOT NULL, number INTEGER NOT NULL, kind VARCHAR,
    topic_id VARCHAR NOT NULL, topic_zh VARCHAR, topic_en VARCHAR, topic_group VARCHAR, topic_risk BOOLEAN,
    matched_rule VARCHAR, matched_rules VARCHAR[], via_link INTEGER, taxonomy_version INTEGER
);

-- mart_item_hotness: each item's activity inside the window and the score built from it.
CREATE TABLE IF NOT EXISTS mart_item_hotness (
    repo VARCHAR NOT NULL, day DATE NOT NULL, number INTEGER NOT NULL, kind VARCHAR, title VARCHAR,
    author_login VARCHAR, comments INTEGER, comments_basis VARCHAR, comment_rows INTEGER,
    participants INTEGER, reviews INTEGER, reactions INTEGER,
    opened_in_window BOOLEAN, closed_in_window BOOLEAN, merged_in_window BOOLEAN,
    comments_points DOUBLE, participants_points DOUBLE, reviews_points DOUBLE, reactions_points DOUBLE,
    opened_points DOUBLE, closed_points DOUBLE, hotness DOUBLE, hotness_rank INTEGER
);

-- mart_focus_items: items of a vendor focus area, the rule that matched, the theme and employee flag.
CREATE TABLE IF NOT EXISTS mart_focus_items (
    repo VARCHAR NOT NULL, day DATE NOT NULL, focus_id VARCHAR NOT NULL, vendor VARCHAR,
    number INTEGER NOT NULL, kind VARCHAR, title VARCHAR, author_login VARCHAR, labels VARCHAR[],
    sets VARCHAR[], matched_rule VARCHAR, matched_rules VARCHAR[],
    theme_id VARCHAR, theme_zh VARCHAR, theme_en VARCHAR, theme_rule VARCHAR,
    is_vendor_employee BOOLEAN, employee_rule VARCHAR, hotness DOUBLE, taxonomy_version INTEGER
);

-- mart_activity_daily: one row per day of contributor, review, merge, response and bot metrics.
CREATE TABLE IF NOT EXISTS mart_activity_daily (
    repo VARCHAR NOT NULL, day DATE NOT NULL,
    contributors INTEGER, bot_accounts INTEGER, issue_authors INTEGER, pr_authors INTEGER,
    commenters INTEGER, reviewers INTEGER,
    first_time_contributors INTEGER, association_known INTEGER, first_time_basis VARCHAR,
    issues_opened INTEGER, prs_opened INTEGER, issues_closed INTEGER,
    prs_merged INTEGER, prs_closed_unmerged INTEGER, merge_rate DOUBLE,
    median_hours_to_merge DOUBLE, p90_hours_to_merge DOUBLE,
    items_opened INTEGER, opened_answered INTEGER, opened_unanswered INTEGER,
    median_hours_to_first_response DOUBLE, response_basis VARCHAR,
    comments INTEGER, reviews INTEGER,
    stale_closures INTEGER, stale_closures_by_bot INTEGER,
    bot_events INTEGER, bot_comments INTEGER
);

-- mart_topic_daily: per topic and day, item counts, summed hotness and the trend against the trailing days.
CREATE TABLE IF NOT EXISTS mart_topic_daily (
    repo VARCHAR NOT NULL, day DATE NOT NULL, topic_id VARCHAR NOT NULL, topic_zh VARCHAR, topic_en VARCHAR,
    topic_group VARCHAR, items INTEGER, issues INTEGER, prs INTEGER, new_items INTEGER,
    merged_prs INTEGER, closed_items INTEGER, hotness_sum DOUBLE, top_items INTEGER[],
    baseline_days INTEGER, baseline_items_sum INTEGER, baseline_mean_items DOUBLE, items_ratio DOUBLE,
    rising BOOLEAN, trend_status VARCHAR, taxonomy_version INTEGER
);

-- mart_key_changes: PRs merged (and PRs opened) in the window, ranked by a documented score.
CREATE TABLE IF NOT EXISTS mart_key_changes (
    repo VARCHAR NOT NULL, day DATE NOT NULL, number INTEGER NOT NULL, title VARCHAR, author_login VARCHAR,
    labels VARCHAR[], change_status VARCHAR, topics VARCHAR[], rising_topics VARCHAR[],
    size_lines INTEGER, size_known BOOLEAN, draft BOOLEAN,
    hotness DOUBLE, merged_points DOUBLE, significance_points DOUBLE, breadth_points DOUBLE,
    rising_points DOUBLE, size_points DOUBLE, penalty_points DOUBLE, key_score DOUBLE, key_rank INTEGER
);

-- mart_notable_issues: open issues and RFCs of the window, ranked by a documented score.
CREATE TABLE IF NOT EXISTS mart_notable_issues (
    repo VARCHAR NOT NULL, day DATE NOT NULL, number INTEGER NOT NULL, kind VARCHAR, title VARCHAR,
    author_login VARCHAR, labels VARCHAR[], is_rfc BOOLEAN, open_at_window_end BOOLEAN,
    topics VARCHAR[], risk_topics VARCHAR[], rising_topics VARCHAR[], linked_prs INTEGER[],
    hotness DOUBLE, rfc_points DOUBLE, open_points DOUBLE, bug_points DOUBLE, risk_points DOUBLE,
    link_points DOUBLE, rising_points DOUBLE, notable_score DOUBLE, notable_rank INTEGER
);

-- int_item_topic_sets: each item's topics, risk topics and rising topics of the day, as lists.
CREATE TABLE IF NOT EXISTS int_item_topic_sets (
    repo VARCHAR NOT NULL, day DATE NOT NULL, number INTEGER NOT NULL, topics VARCHAR[], risk_topics VARCHAR[],
    substantive INTEGER, rising_topics VARCHAR[]
);
