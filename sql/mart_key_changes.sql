-- mart_key_changes: the day's PRs worth explaining, ranked: PRs merged in the window (change_status 'merged')
-- and PRs opened in it that are not merged yet ('opened': the seed also explains notable new PRs).
-- key_score = hotness                              (mart_item_hotness: discussion and review today)
--           + merged_points       6 if merged in the window
--           + significance_points 3 if a title tag marks a substantive change: core, feature, perf,
--                                 performance, model, new model, kernel, moe, mrv2, model runner v2,
--                                 attention, spec decode, quantization, rfc
--           + breadth_points      1 per non-process topic (mart_item_topics), at most 3
--           + rising_points       3 if one of its topics is rising today (mart_topic_daily)
--           + size_points         1.5 * ln(1 + additions + deletions), when the size was fetched (size_known)
--           + penalty_points      -6 if draft (flag or [Draft]/[WIP] tag); -4 if it has no topic outside the
--                                 process group (CI, build, tests, docs only)
-- key_rank: 1 = most important; ties broken by the newer PR.
WITH sets AS (
    SELECT day, number, list(set_name) AS set_names FROM mart_five_sets
    WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[]))) AND set_name IN ('merged_prs', 'new_prs')
    GROUP BY day, number
),
items AS (
    SELECT i.*, s.set_names,
           title_tags(i.title) AS tags
    FROM core_items AS i JOIN sets AS s ON s.day = i.day AND s.number = i.number
    WHERE i.repo = $repo AND i.day IN (SELECT unnest(CAST($days AS DATE[]))) AND i.kind = 'pr'
),
topics AS (
    SELECT * FROM int_item_topic_sets WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
),
parts AS (
    SELECT i.day, i.number, i.title, i.author_login, i.labels,
           CASE WHEN list_contains(i.set_names, 'merged_prs') THEN 'merged' ELSE 'opened' END AS change_status,
           coalesce(t.topics, CAST([] AS VARCHAR[])) AS topics,
           coalesce(t.rising_topics, CAST([] AS VARCHAR[])) AS rising_topics,
           CAST(coalesce(i.additions, 0) + coalesce(i.deletions, 0) AS INTEGER) AS size_lines,
           i.additions IS NOT NULL OR i.deletions IS NOT NULL AS size_known,
           coalesce(i.draft, false) OR list_has_any(i.tags, ['draft', 'wip']) AS draft,
           coalesce(h.hotness, 0) AS hotness,
           CASE WHEN list_contains(i.set_names, 'merged_prs') THEN 6.0 ELSE 0.0 END AS merged_points,
           CASE WHEN list_has_any(i.tags, ['core', 'feature', 'perf', 'performance', 'model', 'new model', 'kernel',
                                           'moe', 'mrv2', 'model runner v2', 'attention', 'spec decode',
                                           'quantization', 'rfc'])
                THEN 3.0 ELSE 0.0 END AS significance_points,
           1.0 * least(3, coalesce(t.substantive, 0)) AS breadth_points,
           CASE WHEN len(coalesce(t.rising_topics, [])) > 0 THEN 3.0 ELSE 0.0 END AS rising_points,
           CASE WHEN i.additions IS NOT NULL OR i.deletions IS NOT NULL
                THEN round(1.5 * ln(1 + coalesce(i.additions, 0) + coalesce(i.deletions, 0)), 3) ELSE 0.0 END
               AS size_points,
           (CASE WHEN coalesce(i.draft, false) OR list_has_any(i.tags, ['draft', 'wip']) THEN -6.0 ELSE 0.0 END)
               + (CASE WHEN coalesce(t.substantive, 0) = 0 THEN -4.0 ELSE 0.0 END) AS penalty_points
    FROM items AS i
    LEFT JOIN topics AS t ON t.day = i.day AND t.number = i.number
    LEFT JOIN mart_item_hotness AS h ON h.repo = $repo AND h.day = i.day AND h.number = i.number
)
SELECT $repo AS repo, *,
       hotness + merged_points + significance_points + breadth_points + rising_points + size_points + penalty_points
           AS key_score,
       CAST(row_number() OVER (PARTITION BY day ORDER BY hotness + merged_points + significance_points + breadth_points
                                        + rising_points + size_points + penalty_points DESC, number DESC)
            AS INTEGER) AS key_rank
FROM parts
