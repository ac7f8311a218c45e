-- mart_topic_daily: per topic with items today: how many items (by kind, new, merged, closed), their summed
-- hotness and hottest items, the trend against the trailing $trend_baseline_days days, read from this
-- table's own earlier rows (a topic absent on a built day counted 0 that day), and the report's ranking of the
-- day's topics: surprise against the volume-scaled baseline, the topic's threads and their story points.
--   baseline_days       earlier days in [day - N, day - 1] that were built (have a mart_activity_daily row)
--   baseline_window     N, the trailing days a complete baseline holds (the report prints "baseline_days of N")
--   baseline_mean_items sum of the topic's items over those N days / N, only when baseline_days = N
--   items_ratio         items / baseline_mean_items (NULL when the baseline is incomplete or its mean is 0)
--   rising              baseline complete AND items >= $trend_rising_min_items AND
--                       (items_ratio >= $trend_rising_ratio OR the baseline mean is 0)
--   trend_status        'baseline incomplete' (fewer than N earlier days: no ratio is invented), else
--                       'rising', 'new' (mean 0, too few items to call rising), 'falling'
--                       (ratio <= $trend_falling_ratio) or 'steady'
-- The report ranks topics by how unusual they are, not by size (parameters: the taxonomy's [topic_rank]):
--   day_items           all items of the day (core_items)
--   baseline_total      all items of the built baseline days; baseline_days of them are held
--   volume_factor       day_items / (baseline_total / baseline_days): the weekday factor, so a quiet Sunday
--                       expects fewer items of every topic instead of reading as a fall everywhere
--   expected_items      baseline_items_sum / baseline_total x day_items, only with the complete baseline (as
--                       baseline_mean_items): a partial one would make the ranking depend on which days
--                       happened to be built first, so such a day ranks by story points alone
--   surprise            (items - expected_items) / sqrt(expected_items + 1), a Poisson z-score
--   trend               'incomplete' (fewer than N baseline days: no arrow), 'up' or 'down' when
--                       |surprise| >= $rank_noise_z (and items >= $trend_rising_min_items for up), else 'noise'
--   generic             the taxonomy marks the topic generic (engine core, CI ...)
--   primary_items       items whose one report topic this is (mart_item_topics.is_primary)
--   threads             those items as threads (head, numbers, points, parts), best first: an issue and its
--                       linked PRs of the day are one thread; points score how much of a story it is
--   story_points        the summed points of its best 3 threads with >= $rank_min_story points
--   listable_threads    how many threads have >= $rank_min_story points
--   topic_score         $rank_surprise_weight x surprise (0 without a baseline) + $rank_story_weight x story_points
--   topic_rank          1 = listed first: topics with a listable thread, then specific before generic (unless
--                       the generic one's surprise >= $rank_generic_unusual_z), then score; null without
--                       primary items
--   listed              the day's report lists the topic (its 🔥 section): items today, topic_rank within the
--                       first $topic_min, or within $topic_limit with a listable thread. The one place this rule
--                       lives: report_topics, report_topic_members, mart_section_picks and the weekly digest
--                       read this column
--   shown_threads       how many of its threads the listed topic shows: its listable ones up to $topic_threads,
--                       at least its best one (0 when not listed); read by the same queries
-- Days of the same batch count each other through the fresh rows; earlier days outside the batch are read
-- from this table as they are now. So a day built before some of its trailing days keeps baseline_days < N
-- (its report says the baseline is incomplete, with no arrow) until it is rebuilt; the baseline sensor
-- (vllm_digest/orchestration/sensors.py) re-renders the N days after a run's last day for that reason.
WITH days AS (
    SELECT day FROM run_days
),
it AS (
    SELECT * FROM mart_item_topics WHERE repo = $repo AND day IN (SELECT day FROM days)
),
hot AS (
    SELECT * FROM mart_item_hotness WHERE repo = $repo AND day IN (SELECT day FROM days)
),
today AS (
    SELECT it.day, it.topic_id, any_value(it.topic_zh) AS topic_zh, any_value(it.topic_en) AS topic_en,
           any_value(it.topic_group) AS topic_group, any_value(it.taxonomy_version) AS taxonomy_version,
           -- count(*), not count(DISTINCT number): mart_item_topics holds an item once per topic and
           -- mart_item_hotness once per item, and each DISTINCT was its own hash aggregate of the year's rows
           count(*) AS items,
           count(*) FILTER (WHERE it.kind = 'issue') AS issues,
           count(*) FILTER (WHERE it.kind = 'pr') AS prs,
           count(*) FILTER (WHERE h.opened_in_window) AS new_items,
           count(*) FILTER (WHERE h.merged_in_window) AS merged_prs,
           count(*) FILTER (WHERE h.closed_in_window AND NOT h.merged_in_window) AS closed_items,
           coalesce(sum(h.hotness), 0) AS hotness_sum,
           list(it.number ORDER BY h.hotness DESC, it.number DESC)[1:5] AS top_items
    FROM it LEFT JOIN hot AS h ON h.day = it.day AND h.number = it.number
    GROUP BY it.day, it.topic_id
),
history AS (
    -- the batch's own days, fresh; earlier days from this table (the batch's rows were deleted before this insert)
    SELECT day, topic_id, items FROM today
    UNION ALL
    SELECT day, topic_id, items FROM mart_topic_daily
    WHERE repo = $repo
      AND day >= (SELECT min(day) FROM days) - CAST($trend_baseline_days AS INTEGER)
      AND day < (SELECT max(day) FROM days)
      AND day NOT IN (SELECT day FROM days)
),
built AS (
    -- a day counts toward the baseline when it was built, even if the topic had no item that day
    SELECT DISTINCT day FROM mart_activity_daily
    WHERE repo = $repo
      AND day >= (SELECT min(day) FROM days) - CAST($trend_baseline_days AS INTEGER)
      AND day < (SELECT max(day) FROM days)
),
baseline_days AS (
    SELECT d.day, count(b.day) AS n
    FROM days AS d
    LEFT JOIN built AS b ON b.day >= d.day - CAST($trend_baseline_days AS INTEGER) AND b.day < d.day
    GROUP BY d.day
),
prior AS (
    SELECT t.day, t.topic_id, sum(h.items) AS items_sum
    FROM today AS t
    JOIN history AS h ON h.topic_id = t.topic_id
                     AND h.day >= t.day - CAST($trend_baseline_days AS INTEGER) AND h.day < t.day
    GROUP BY t.day, t.topic_id
),
day_items AS (
    SELECT day, count(*) AS n FROM core_items
    WHERE repo = $repo
      AND day >= (SELECT min(day) FROM days) - CAST($trend_baseline_days AS INTEGER)
      AND day <= (SELECT max(day) FROM days)
    GROUP BY day
),
baseline_total AS (
    SELECT d.day, coalesce(sum(di.n), 0) AS total
    FROM days AS d
    LEFT JOIN built AS b ON b.day >= d.day - CAST($trend_baseline_days AS INTEGER) AND b.day < d.day
    LEFT JOIN day_items AS di ON di.day = b.day
    GROUP BY d.day
),
points AS (
    -- how much of a story each primary item is, with the parts that make it up
    SELECT p.day, p.number, p.topic_id, p.kind, p.thread_head,
           [CASE WHEN p.kind = 'issue' THEN struct_pack(part := 'issue', value := $rank_issue_points) END,
            CASE WHEN h.opened_in_window THEN struct_pack(part := 'new', value := $rank_new_points) END,
            CASE WHEN list_has_any(tg.tags, CAST($rank_proposal_tags AS VARCHAR[]))
                 THEN struct_pack(part := 'proposal', value := $rank_proposal_points) END,
            CASE WHEN list_has_any(tg.tags, CAST($rank_lead_tags AS VARCHAR[]))
                 THEN struct_pack(part := 'lead tag', value := $rank_lead_tag_points) END,
            CASE WHEN list_has_any(tg.tags, CAST($rank_minor_tags AS VARCHAR[]))
                 THEN struct_pack(part := 'minor tag', value := -$rank_minor_tag_penalty) END,
            CASE WHEN h.closed_in_window AND NOT h.merged_in_window
                 THEN struct_pack(part := 'closed unmerged', value := -$rank_closed_penalty) END,
            CASE WHEN h.merged_in_window THEN struct_pack(part := 'merged', value := -$rank_merged_penalty) END
           ] AS all_parts
    FROM it AS p
    LEFT JOIN hot AS h ON h.day = p.day AND h.number = p.number
    LEFT JOIN (
        SELECT day, number, list(value) AS tags FROM int_item_features
        WHERE repo = $repo AND day IN (SELECT day FROM days) AND kind = 'tag'
        GROUP BY day, number
    ) AS tg ON tg.day = p.day AND tg.number = p.number
    WHERE p.is_primary
      -- junk (int_item_junk) still counts in the topic's items, but tells no story: it heads no thread
      AND (p.day, p.number) NOT IN (SELECT (day, number) FROM int_item_junk
                                    WHERE repo = $repo AND day IN (SELECT day FROM days))
),
scored AS (
    SELECT day, number, topic_id, kind, thread_head, list_filter(all_parts, lambda x: x IS NOT NULL) AS parts
    FROM points
),
threads AS (
    SELECT day, topic_id, thread_head AS head,
           list(number ORDER BY number = thread_head DESC, number) AS numbers,
           max(list_sum(list_transform(parts, lambda x: x.value)) + 0.0)
               + CASE WHEN count(*) FILTER (WHERE kind = 'issue') > 0 AND count(*) FILTER (WHERE kind = 'pr') > 0
                      THEN $rank_thread_points ELSE 0 END AS points,
           -- the best item's parts; on a tie in points the lower number's, so a rebuild gives the same text
           first(array_to_string(list_transform(parts, lambda x: x.part || ' ' || printf('%+g', x.value)), ', ')
                 ORDER BY list_sum(list_transform(parts, lambda x: x.value)) + 0.0 DESC, number)
               || CASE WHEN count(*) FILTER (WHERE kind = 'issue') > 0 AND count(*) FILTER (WHERE kind = 'pr') > 0
                       THEN ', issue with its PR ' || printf('%+g', $rank_thread_points) ELSE '' END AS parts
    FROM scored GROUP BY day, topic_id, thread_head
),
stories AS (
    SELECT day, topic_id, count(*) AS primary_threads,
           list(struct_pack(head := head, numbers := numbers, points := round(points, 2), parts := parts)
                ORDER BY points DESC, head DESC) AS threads,
           count(*) FILTER (WHERE points >= $rank_min_story) AS listable_threads
    FROM threads GROUP BY day, topic_id
),
story_sums AS (
    SELECT day, topic_id, sum(points) AS story_points FROM (
        SELECT day, topic_id, points FROM threads WHERE points >= $rank_min_story
        QUALIFY row_number() OVER (PARTITION BY day, topic_id ORDER BY points DESC, head DESC) <= 3
    ) GROUP BY day, topic_id
),
primary_counts AS (
    SELECT day, topic_id, count(*) AS n FROM it WHERE is_primary GROUP BY day, topic_id
),
trend AS (
    SELECT t.*, b.n AS baseline_days,
           CAST(coalesce(p.items_sum, 0) AS INTEGER) AS baseline_items_sum,
           CASE WHEN b.n = CAST($trend_baseline_days AS INTEGER)
                THEN coalesce(p.items_sum, 0) / CAST($trend_baseline_days AS DOUBLE) END AS baseline_mean_items
    FROM today AS t
    JOIN baseline_days AS b ON b.day = t.day
    LEFT JOIN prior AS p ON p.day = t.day AND p.topic_id = t.topic_id
),
surprising AS (
    SELECT tr.*, di.n AS day_items, bt.total AS baseline_total,
           CASE WHEN tr.baseline_mean_items IS NOT NULL AND bt.total > 0
                THEN di.n / (bt.total / tr.baseline_days) END AS volume_factor,
           CASE WHEN tr.baseline_mean_items IS NOT NULL AND bt.total > 0
                THEN tr.baseline_items_sum / CAST(bt.total AS DOUBLE) * di.n END AS expected_items,
           list_contains(CAST($topic_generic AS VARCHAR[]), tr.topic_id) AS generic,
           CAST(coalesce(pc.n, 0) AS INTEGER) AS primary_items,
           st.threads, CAST(coalesce(st.listable_threads, 0) AS INTEGER) AS listable_threads,
           coalesce(ss.story_points, 0) AS story_points
    FROM trend AS tr
    JOIN day_items AS di ON di.day = tr.day
    JOIN baseline_total AS bt ON bt.day = tr.day
    LEFT JOIN primary_counts AS pc ON pc.day = tr.day AND pc.topic_id = tr.topic_id
    LEFT JOIN stories AS st ON st.day = tr.day AND st.topic_id = tr.topic_id
    LEFT JOIN story_sums AS ss ON ss.day = tr.day AND ss.topic_id = tr.topic_id
),
ranked AS (
    SELECT *,
           CASE WHEN expected_items IS NOT NULL
                THEN (items - expected_items) / sqrt(expected_items + 1) END AS surprise
    FROM surprising
),
topic_rows AS (
SELECT $repo AS repo, day, topic_id, topic_zh, topic_en, topic_group,
       items, issues, prs, new_items, merged_prs, closed_items, hotness_sum, top_items,
       CAST(baseline_days AS INTEGER) AS baseline_days, CAST($trend_baseline_days AS INTEGER) AS baseline_window,
       baseline_items_sum, baseline_mean_items,
       CASE WHEN baseline_mean_items > 0 THEN round(items / baseline_mean_items, 4) END AS items_ratio,
       coalesce(baseline_mean_items IS NOT NULL AND items >= CAST($trend_rising_min_items AS INTEGER)
                AND (baseline_mean_items = 0 OR items / baseline_mean_items >= CAST($trend_rising_ratio AS DOUBLE)),
                false) AS rising,
       CASE WHEN baseline_mean_items IS NULL THEN 'baseline incomplete'
            WHEN items >= CAST($trend_rising_min_items AS INTEGER)
                 AND (baseline_mean_items = 0 OR items / baseline_mean_items >= CAST($trend_rising_ratio AS DOUBLE))
                 THEN 'rising'
            WHEN baseline_mean_items = 0 THEN 'new'
            WHEN items / baseline_mean_items <= CAST($trend_falling_ratio AS DOUBLE) THEN 'falling'
            ELSE 'steady' END AS trend_status,
       taxonomy_version,
       CAST(day_items AS INTEGER) AS day_items, CAST(baseline_total AS INTEGER) AS baseline_total,
       round(volume_factor, 4) AS volume_factor, round(expected_items, 4) AS expected_items,
       round(surprise, 4) AS surprise,
       CASE WHEN baseline_mean_items IS NULL THEN 'incomplete'
            WHEN surprise >= $rank_noise_z AND items >= CAST($trend_rising_min_items AS INTEGER) THEN 'up'
            WHEN surprise <= -$rank_noise_z THEN 'down'
            ELSE 'noise' END AS trend,
       generic, primary_items, threads, listable_threads, round(story_points, 4) AS story_points,
       round($rank_surprise_weight * coalesce(surprise, 0) + $rank_story_weight * story_points, 4) AS topic_score,
       CASE WHEN primary_items > 0 THEN CAST(row_number() OVER (
           PARTITION BY day ORDER BY primary_items = 0, listable_threads = 0,
                                     generic AND coalesce(surprise, 0) < $rank_generic_unusual_z,
                                     $rank_surprise_weight * coalesce(surprise, 0) + $rank_story_weight * story_points DESC,
                                     topic_id) AS INTEGER) END AS topic_rank
FROM ranked
)
SELECT *, CAST(CASE WHEN listed THEN greatest(least(listable_threads, $topic_threads), 1) ELSE 0 END AS INTEGER)
              AS shown_threads
FROM (SELECT *,
             coalesce(items > 0 AND topic_rank <= CAST($topic_limit AS INTEGER)
                      AND (topic_rank <= CAST($topic_min AS INTEGER) OR listable_threads > 0), false) AS listed
      FROM topic_rows)
