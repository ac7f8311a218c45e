-- mart_follow_ups: the items an earlier report featured (mart_section_picks of the $follow_up_days days before)
-- whose state moved in this day's window, one row per item with every move it made:
--   merged, closed           it joined merged_prs, closed_issues or closed_unmerged_prs today (mart_five_sets, the appendix)
--   reopened                 a reopened event today (core_events)
--   linked_pr_merged/_opened a PR linked to it (int_item_links, found on any day from its first report to today)
--                            was merged or opened today (mart_five_sets)
--   maintainer_response      today's first comment by a maintainer (OWNER, MEMBER or COLLABORATOR, not a bot, not
--                            its author) when no earlier day the warehouse holds has one (core_comments)
--   comment_burst            at least $burst_comments non-bot comments today (core_comments)
-- Left out: the day's junk (int_item_junk), and the items this day's focus section lists (mart_section_picks,
-- section 'focus', built just before for the batch's days): the report shows an item once a day, and the
-- focus section already says what became of it.
-- first_reported is the earliest day that featured it, first_section the section it was featured in that day.
-- Only earlier days' picks are read, never this day's: rebuilding a day changes the follow-ups of later days
-- only. Earlier days outside the batch are read from mart_section_picks as the warehouse holds them.
-- follow_rank: the order the report lists them in, and which it keeps when it shows only the first few (the
-- taxonomy's follow_ups_shown, report/sections/follow_ups.py): by the item's strongest move, merges first, then
-- closings, reopenings, linked PRs, responses, bursts; ties by the section it was first featured in (the report's
-- order of sections: key changes, issues to watch, discussions, topics, focus) and its rank there, then the larger
-- number.
WITH days AS (
    SELECT day FROM run_days
),
section_order AS (
    SELECT * FROM (VALUES ('key_changes', 1), ('notable', 2), ('discussions', 3), ('topics', 4), ('focus', 5))
        AS s(section, ord)
),
earlier AS (
    SELECT d.day, p.number,
           min(p.day) AS first_reported,
           arg_min(p.section, (p.day, coalesce(s.ord, 9), p.pick_rank)) AS first_section,
           arg_min(coalesce(s.ord, 9), (p.day, coalesce(s.ord, 9), p.pick_rank)) AS first_section_ord,
           arg_min(p.pick_rank, (p.day, coalesce(s.ord, 9), p.pick_rank)) AS first_pick_rank,
           arg_min(p.kind, (p.day, coalesce(s.ord, 9), p.pick_rank)) AS kind,
           arg_max(p.title, p.day) AS title
    FROM days AS d
    JOIN mart_section_picks AS p
      ON p.repo = $repo AND p.day < d.day AND p.day >= d.day - CAST($follow_up_days AS INTEGER)
    LEFT JOIN section_order AS s ON s.section = p.section
    GROUP BY d.day, p.number
),
sets AS (
    SELECT day, number, set_name FROM mart_five_sets WHERE repo = $repo AND day IN (SELECT day FROM days)
),
own_moves AS (
    SELECT day, number, CASE set_name WHEN 'merged_prs' THEN 'merged' ELSE 'closed' END AS move,
           CAST(NULL AS INTEGER) AS linked_pr
    FROM sets WHERE set_name IN ('merged_prs', 'closed_issues', 'closed_unmerged_prs')
    UNION ALL
    SELECT DISTINCT day, number, 'reopened', CAST(NULL AS INTEGER) FROM core_events
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND event_type = 'reopened'
),
links AS (
    SELECT DISTINCT e.day, e.number, l.pr_number
    FROM earlier AS e
    JOIN int_item_links AS l
      ON l.repo = $repo AND l.issue_number = e.number AND l.day >= e.first_reported AND l.day <= e.day
),
link_moves AS (
    SELECT l.day, l.number, CASE s.set_name WHEN 'merged_prs' THEN 'linked_pr_merged' ELSE 'linked_pr_opened' END,
           l.pr_number
    FROM links AS l JOIN sets AS s ON s.day = l.day AND s.number = l.pr_number
    WHERE s.set_name IN ('merged_prs', 'new_prs') AND l.pr_number <> l.number
),
maintainer_comments AS (
    SELECT c.day, c.number, c.author_login, c.created_at
    FROM core_comments AS c
    JOIN core_items AS i ON i.repo = c.repo AND i.day = c.day AND i.number = c.number
    WHERE c.repo = $repo AND c.day <= (SELECT max(day) FROM days)
      AND c.author_association IN ('OWNER', 'MEMBER', 'COLLABORATOR') AND NOT coalesce(c.author_is_bot, false)
      AND c.author_login IS DISTINCT FROM i.author_login
),
responses AS (
    SELECT e.day, e.number, arg_min(m.author_login, (m.created_at, m.author_login)) AS responder
    FROM earlier AS e
    JOIN maintainer_comments AS m ON m.day = e.day AND m.number = e.number
    WHERE NOT EXISTS (SELECT 1 FROM maintainer_comments AS b WHERE b.number = e.number AND b.day < e.day)
    GROUP BY e.day, e.number
),
bursts AS (
    SELECT c.day, c.number, count(*) AS comments
    FROM core_comments AS c
    WHERE c.repo = $repo AND c.day IN (SELECT day FROM days) AND NOT coalesce(c.author_is_bot, false)
    GROUP BY c.day, c.number
    HAVING count(*) >= CAST($burst_comments AS INTEGER)
),
moves AS (
    SELECT * FROM own_moves UNION ALL SELECT * FROM link_moves
    UNION ALL SELECT day, number, 'maintainer_response', NULL FROM responses
    UNION ALL SELECT day, number, 'comment_burst', NULL FROM bursts
),
move_order AS (
    SELECT * FROM (VALUES ('merged', 1), ('closed', 2), ('reopened', 3), ('linked_pr_merged', 4),
                          ('linked_pr_opened', 5), ('maintainer_response', 6), ('comment_burst', 7)) AS o(move, ord)
),
moved AS (
    SELECT day, number, list(move ORDER BY ord) AS moves, min(ord) AS first_move
    FROM (SELECT DISTINCT m.day, m.number, m.move, o.ord FROM moves AS m JOIN move_order AS o USING (move))
    GROUP BY day, number
),
linked AS (
    SELECT day, number,
           list_sort(list(DISTINCT linked_pr) FILTER (WHERE move = 'linked_pr_merged')) AS linked_prs_merged,
           list_sort(list(DISTINCT linked_pr) FILTER (WHERE move = 'linked_pr_opened')) AS linked_prs_opened
    FROM link_moves AS m(day, number, move, linked_pr)
    GROUP BY day, number
)
SELECT $repo AS repo, e.day, e.number, e.kind, e.title, e.first_reported, e.first_section, m.moves,
       coalesce(l.linked_prs_merged, CAST([] AS INTEGER[])) AS linked_prs_merged,
       coalesce(l.linked_prs_opened, CAST([] AS INTEGER[])) AS linked_prs_opened,
       r.responder, CAST(b.comments AS INTEGER) AS comments,
       CAST(row_number() OVER (PARTITION BY e.day ORDER BY m.first_move, e.first_section_ord, e.first_pick_rank,
                                               e.number DESC) AS INTEGER) AS follow_rank
FROM earlier AS e
JOIN moved AS m ON m.day = e.day AND m.number = e.number
LEFT JOIN linked AS l ON l.day = e.day AND l.number = e.number
LEFT JOIN responses AS r ON r.day = e.day AND r.number = e.number
LEFT JOIN bursts AS b ON b.day = e.day AND b.number = e.number
WHERE (e.day, e.number) NOT IN (SELECT (day, number) FROM int_item_junk
                                WHERE repo = $repo AND day IN (SELECT day FROM days))
  AND (e.day, e.number) NOT IN (SELECT (day, number) FROM mart_section_picks
                                WHERE repo = $repo AND day IN (SELECT day FROM days) AND section = 'focus')
