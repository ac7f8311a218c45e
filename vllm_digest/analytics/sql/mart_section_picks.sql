-- mart_section_picks: every item a day's report features, per analysis section, with its place (rank) in that
-- section and the score its selection mart gave it. Read from the selection marts as they rank, with the taxonomy's
-- limits ([selection] $hot_limit; the topics' rule is mart_topic_daily.listed and shown_threads), so the picks are the
-- report's items:
--   key_changes  mart_key_changes     the fitted model's selected rows, by key_rank   score key_score
--   notable      mart_notable_issues  the fitted model's selected rows, by notable_rank score notable_score
--   discussions  mart_item_hotness    first $hot_limit by hotness_rank among the items with a real discussion
--                                     (discussed: 2+ comments from 2+ people in the window; junk left out);
--                                     score hotness. The one home of this cut: report_hotness reads these rows
--   topics       mart_hot_stories     🔥's stories (listed), each with its shown items; score the story's score;
--                mart_topic_daily     then the topics the report lists (listed) in the $hot_groups groups left,
--                                     each with the threads report_topic_members lists (shown_threads); score the
--                                     thread's points
--   focus        mart_focus_items     every listed item (demoted is null), in the section's order: the largest
--                                     theme first (ties by theme id), then the larger number; score hotness
-- Ties break by the larger number, as the report's queries do. The follow-ups of later days read these rows.
WITH days AS (
    SELECT day FROM run_days
),
key_changes AS (
    SELECT day, number, 'key_changes' AS section, key_score AS score, change_status AS detail,
           row_number() OVER (PARTITION BY day ORDER BY key_rank, number DESC) AS pick_rank
    FROM mart_key_changes WHERE repo = $repo AND day IN (SELECT day FROM days) AND selected
),
notable AS (
    SELECT day, number, 'notable' AS section, notable_score AS score, CAST(NULL AS VARCHAR) AS detail,
           row_number() OVER (PARTITION BY day ORDER BY notable_rank, number DESC) AS pick_rank
    FROM mart_notable_issues WHERE repo = $repo AND day IN (SELECT day FROM days) AND selected
),
discussions AS (
    SELECT day, number, 'discussions' AS section, hotness AS score, CAST(NULL AS VARCHAR) AS detail,
           row_number() OVER (PARTITION BY day ORDER BY hotness_rank, number DESC) AS pick_rank
    FROM mart_item_hotness WHERE repo = $repo AND day IN (SELECT day FROM days) AND hotness > 0 AND discussed
      AND (day, number) NOT IN (SELECT (day, number) FROM int_item_junk
                                WHERE repo = $repo AND day IN (SELECT day FROM days))
    QUALIFY pick_rank <= $hot_limit
),
listed_stories AS (
    -- 🔥's stories first (mart_hot_stories.listed), each with the items the report shows under it
    SELECT day, story_key, story_rank, story_score, numbers[1:shown_items] AS shown
    FROM mart_hot_stories
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND listed
),
story_counts AS (
    SELECT day, count(*) AS stories FROM listed_stories GROUP BY day
),
listed_topics AS (
    -- then the topics the report lists (mart_topic_daily.listed, the rule report_topics reads too), as many as
    -- fit in $hot_groups groups after the stories: the sections' rule (report/sections/topics.py hot_topics)
    SELECT t.day, t.topic_id, t.topic_rank, t.shown_threads, t.threads
    FROM mart_topic_daily AS t
    LEFT JOIN story_counts AS c ON c.day = t.day
    WHERE t.repo = $repo AND t.day IN (SELECT day FROM days) AND t.listed
    QUALIFY row_number() OVER (PARTITION BY t.day ORDER BY t.topic_rank) <= $hot_groups - coalesce(c.stories, 0)
),
topic_threads AS (
    -- the threads the report shows under it, best first (mart_topic_daily.shown_threads, read by report_topic_members);
    -- a thread holding an item a story shows is told there and left out here (report/sections/topics.py _topic_group)
    SELECT a.day, a.topic_id, a.topic_rank, a.position, a.t.numbers AS numbers, a.t.points AS points
    FROM (SELECT day, topic_id, topic_rank, shown_threads, unnest(threads) AS t,
                 generate_subscripts(threads, 1) AS position FROM listed_topics) AS a
    WHERE a.position <= a.shown_threads
      AND NOT EXISTS (SELECT 1 FROM listed_stories AS s WHERE s.day = a.day AND list_has_any(s.shown, a.t.numbers))
),
topic_members AS (
    SELECT day, 0 AS grp, story_rank AS group_rank, story_key AS detail, 1 AS position, story_score AS points,
           unnest(shown) AS number, generate_subscripts(shown, 1) AS member
    FROM listed_stories
    UNION ALL
    SELECT day, 1 AS grp, topic_rank AS group_rank, topic_id AS detail, position, points, unnest(numbers) AS number,
           generate_subscripts(numbers, 1) AS member FROM topic_threads
),
topic_firsts AS (
    -- an item under several listed stories or topics keeps the first place it is shown
    SELECT * FROM topic_members
    QUALIFY row_number() OVER (PARTITION BY day, number ORDER BY grp, group_rank, position, member) = 1
),
topics AS (
    -- ranked once the duplicates are gone, so the ranks run 1, 2, 3 ... in the section's order
    SELECT day, number, 'topics' AS section, points AS score, detail,
           row_number() OVER (PARTITION BY day ORDER BY grp, group_rank, position, member) AS pick_rank
    FROM topic_firsts
),
focus_rows AS (
    SELECT day, number, theme_id, hotness FROM mart_focus_items
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND demoted IS NULL
),
theme_sizes AS (
    SELECT day, theme_id, count(*) AS size FROM focus_rows GROUP BY day, theme_id
),
focus_firsts AS (
    -- the 🎯 section's order (report/sections/focus.py over report_focus): the largest theme first, ties by
    -- theme id, then the larger number; an item under two themes keeps the first place it is shown
    SELECT f.day, f.number, f.theme_id, f.hotness, s.size
    FROM focus_rows AS f JOIN theme_sizes AS s ON s.day = f.day AND s.theme_id = f.theme_id
    QUALIFY row_number() OVER (PARTITION BY f.day, f.number ORDER BY s.size DESC, f.theme_id) = 1
),
focus AS (
    SELECT day, number, 'focus' AS section, coalesce(hotness, 0) AS score, theme_id AS detail,
           row_number() OVER (PARTITION BY day ORDER BY size DESC, theme_id, number DESC) AS pick_rank
    FROM focus_firsts
),
picks AS (
    SELECT * FROM key_changes UNION ALL SELECT * FROM notable UNION ALL SELECT * FROM discussions
    UNION ALL SELECT * FROM topics UNION ALL SELECT * FROM focus
)
SELECT $repo AS repo, p.day, p.section, CAST(p.pick_rank AS INTEGER) AS pick_rank, p.number, i.kind, i.title,
       CAST(p.score AS DOUBLE) AS score, p.detail
FROM picks AS p
JOIN core_items AS i ON i.repo = $repo AND i.day = p.day AND i.number = p.number
