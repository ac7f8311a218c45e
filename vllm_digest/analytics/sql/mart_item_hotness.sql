-- mart_item_hotness: how hot each item of the day is, from its activity inside the window. Old items count
-- (a 2025 issue discussed today is hot today); every component is stored beside the total.
--   comments      comments (issue + review comments) by non-bots written in the window, when the source holds
--                 comment rows for the item (comments_basis = 'window'); otherwise the item's total comment
--                 count as last seen (comments_basis = 'total': an upper bound of the window's discussion,
--                 the only figure a source without threads gives, and what the seed report ranks by)
--   participants  distinct non-bot authors of comments and reviews in the window (0 when basis = 'total')
--   reviews       PR reviews by non-bots submitted in the window
--   reactions     reactions on the window's non-bot comments, plus the item's own reactions when it was
--                 opened in the window (reactions carry no time, so older items' own reactions are not today's)
-- hotness = 1.0*comments + 2.0*participants + 1.5*reviews + 0.5*reactions
--         + 2 if opened in the window + 1 if closed or merged in the window
-- (a person joining a thread weighs more than one more message from those already in it.)
-- hotness_rank: 1 = hottest; ties broken by comments, then the newer item.
-- discussed: a real discussion in the window, the one rule the 💬 section lists by (mart_section_picks reads it):
--   discussion_comments  issue and review comments written in the window by people: not bots, not a deleted
--                        account (no user, or GitHub's stand-in `ghost`); reviews do not count, a verdict
--                        is not a conversation (a reviewer's remarks in the code arrive as review comments)
--   discussion_people    distinct authors of those comments, the item's own author included
--   discussed            the source holds the item's comment rows (comments_basis = 'window') and at least
--                        $discussion_min_comments comments from at least $discussion_min_people people: a source
--                        without threads (the embedded sample) never has one, since a total says nothing of who
WITH items AS (
    SELECT * FROM core_items WHERE repo = $repo AND day IN (SELECT day FROM run_days)
),
ev AS (
    SELECT day, number,
           bool_or(event_type = 'opened') AS opened,
           bool_or(event_type = 'closed') AS closed,
           bool_or(event_type = 'merged') AS merged
    FROM core_events WHERE repo = $repo AND day IN (SELECT day FROM run_days)
    GROUP BY day, number
),
cm AS (
    SELECT day, number,
           count(*) FILTER (WHERE comment_kind IN ('issue_comment', 'review_comment')) AS comment_rows,
           count(*) FILTER (WHERE comment_kind IN ('issue_comment', 'review_comment')
                              AND NOT coalesce(author_is_bot, false)) AS human_comments,
           count(*) FILTER (WHERE comment_kind = 'review' AND NOT coalesce(author_is_bot, false)) AS reviews,
           count(DISTINCT author_login) FILTER (WHERE NOT coalesce(author_is_bot, false)) AS participants,
           coalesce(sum(reactions_total) FILTER (WHERE NOT coalesce(author_is_bot, false)), 0) AS reactions,
           count(*) FILTER (WHERE comment_kind IN ('issue_comment', 'review_comment') AND person)
               AS discussion_comments,
           count(DISTINCT lower(author_login)) FILTER (WHERE comment_kind IN ('issue_comment', 'review_comment')
                                                       AND person) AS discussion_people
    FROM (SELECT *, NOT coalesce(author_is_bot, false) AND author_login IS NOT NULL
                    AND lower(author_login) <> 'ghost' AS person
          FROM core_comments) WHERE repo = $repo AND day IN (SELECT day FROM run_days)
    GROUP BY day, number
),
parts AS (
    SELECT i.day, i.number, i.kind, i.title, i.author_login,
           CASE WHEN coalesce(cm.comment_rows, 0) > 0 THEN cm.human_comments
                ELSE coalesce(i.comments_total, 0) END AS comments,
           CASE WHEN coalesce(cm.comment_rows, 0) > 0 THEN 'window' ELSE 'total' END AS comments_basis,
           coalesce(cm.comment_rows, 0) AS comment_rows,
           coalesce(cm.participants, 0) AS participants,
           coalesce(cm.discussion_comments, 0) AS discussion_comments,
           coalesce(cm.discussion_people, 0) AS discussion_people,
           coalesce(cm.reviews, 0) AS reviews,
           coalesce(cm.reactions, 0)
               + CASE WHEN coalesce(ev.opened, false) THEN coalesce(i.reactions_total, 0) ELSE 0 END AS reactions,
           coalesce(ev.opened, false) AS opened_in_window,
           coalesce(ev.closed, false) AS closed_in_window,
           coalesce(ev.merged, false) AS merged_in_window
    FROM items AS i
    LEFT JOIN ev ON ev.day = i.day AND ev.number = i.number
    LEFT JOIN cm ON cm.day = i.day AND cm.number = i.number
),
scored AS (
    SELECT *,
           1.0 * comments AS comments_points,
           2.0 * participants AS participants_points,
           1.5 * reviews AS reviews_points,
           0.5 * reactions AS reactions_points,
           CASE WHEN opened_in_window THEN 2.0 ELSE 0.0 END AS opened_points,
           CASE WHEN closed_in_window OR merged_in_window THEN 1.0 ELSE 0.0 END AS closed_points
    FROM parts
)
SELECT $repo AS repo, day, number, kind, title, author_login,
       comments, comments_basis, comment_rows, participants, reviews, reactions,
       opened_in_window, closed_in_window, merged_in_window,
       comments_points, participants_points, reviews_points, reactions_points, opened_points, closed_points,
       comments_points + participants_points + reviews_points + reactions_points + opened_points + closed_points
           AS hotness,
       comments_basis = 'window' AND discussion_comments >= CAST($discussion_min_comments AS INTEGER)
           AND discussion_people >= CAST($discussion_min_people AS INTEGER) AS discussed,
       CAST(discussion_comments AS INTEGER) AS discussion_comments,
       CAST(discussion_people AS INTEGER) AS discussion_people,
       CAST(row_number() OVER (PARTITION BY day ORDER BY comments_points + participants_points + reviews_points
                                        + reactions_points + opened_points + closed_points DESC,
                                        comments DESC, number DESC) AS INTEGER) AS hotness_rank
FROM scored
