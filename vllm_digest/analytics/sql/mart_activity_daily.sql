-- mart_activity_daily: one row per day of how the community worked: who took part, how fast PRs merged
-- and new items got a first answer, stale clean-up and bot activity.
--   contributors            distinct people among the actors of the window's events (open, close, merge, comment,
--                           review): not bots, and not a deleted account (no user, or GitHub's stand-in `ghost`,
--                           which stands for any number of accounts)
--   first_time_contributors distinct non-bot authors of items opened in the window whose author_association is
--                           FIRST_TIME_CONTRIBUTOR or FIRST_TIMER (GitHub's NONE means "no association", not a
--                           first contribution); NULL (first_time_basis = 'unknown')
--                           when the source gives no association for any of them, rather than a false 0
--   merge_rate              merged / (merged + closed without merge), PRs of the window
--   *_hours_to_merge        median / p90 of merged_at - created_at over PRs merged in the window
--   first response (CHAOSS) for items opened in the window: the first comment or review in the window by
--                           someone who is neither the author nor a bot; opened_unanswered counts those without
--                           one. NULL with response_basis = 'no comment data' when the day holds no comment
--                           rows at all (a source without threads), since "unanswered" would be invented.
--   stale_closures          closings in the window of items labelled 'stale' (by_bot: the closer is a bot)
WITH windows AS (
    SELECT day FROM run_days
),
items AS (
    SELECT * FROM core_items WHERE repo = $repo AND day IN (SELECT day FROM windows)
),
events AS (
    SELECT * FROM core_events WHERE repo = $repo AND day IN (SELECT day FROM windows)
),
comments AS (
    SELECT * FROM core_comments WHERE repo = $repo AND day IN (SELECT day FROM windows)
),
sets AS (
    SELECT * FROM mart_five_sets WHERE repo = $repo AND day IN (SELECT day FROM windows)
),
opened AS (
    SELECT i.day, i.number, i.kind, i.author_login, coalesce(i.author_is_bot, false) AS bot,
           i.author_association, i.created_at
    FROM items AS i
    WHERE EXISTS (SELECT 1 FROM events AS e WHERE e.day = i.day AND e.number = i.number AND e.event_type = 'opened')
),
first_response AS (
    SELECT o.day, o.number, min(c.created_at) AS responded_at, any_value(o.created_at) AS created_at
    FROM opened AS o
    JOIN comments AS c ON c.day = o.day AND c.number = o.number
    WHERE NOT coalesce(c.author_is_bot, false)
      AND coalesce(c.author_login, '') <> coalesce(o.author_login, '')
      AND c.created_at >= o.created_at
    GROUP BY o.day, o.number
),
ev AS (
    SELECT day,
           count(DISTINCT actor_login) FILTER (WHERE actor_login IS NOT NULL AND lower(actor_login) <> 'ghost'
                                                 AND NOT coalesce(actor_is_bot, false)) AS contributors,
           count(DISTINCT actor_login) FILTER (WHERE coalesce(actor_is_bot, false)) AS bot_accounts,
           count(*) FILTER (WHERE coalesce(actor_is_bot, false)) AS bot_events
    FROM events GROUP BY day
),
op AS (
    SELECT day,
           count(DISTINCT author_login) FILTER (WHERE kind = 'issue' AND NOT bot) AS issue_authors,
           count(DISTINCT author_login) FILTER (WHERE kind = 'pr' AND NOT bot) AS pr_authors,
           count(DISTINCT author_login) FILTER (
               WHERE NOT bot AND upper(author_association) IN ('FIRST_TIME_CONTRIBUTOR', 'FIRST_TIMER')
           ) AS first_timers,
           count(*) FILTER (WHERE author_association IS NOT NULL) AS association_known,
           count(*) AS items_opened
    FROM opened GROUP BY day
),
cm AS (
    SELECT day,
           count(DISTINCT author_login) FILTER (
               WHERE comment_kind IN ('issue_comment', 'review_comment') AND NOT coalesce(author_is_bot, false)
           ) AS commenters,
           count(DISTINCT author_login) FILTER (WHERE comment_kind = 'review' AND NOT coalesce(author_is_bot, false))
               AS reviewers,
           count(*) FILTER (WHERE comment_kind IN ('issue_comment', 'review_comment')) AS comments,
           count(*) FILTER (WHERE comment_kind = 'review') AS reviews,
           count(*) FILTER (WHERE coalesce(author_is_bot, false)) AS bot_comments,
           count(*) AS rows
    FROM comments GROUP BY day
),
st AS (
    SELECT day,
           count(*) FILTER (WHERE set_name = 'new_issues') AS issues_opened,
           count(*) FILTER (WHERE set_name = 'new_prs') AS prs_opened,
           count(*) FILTER (WHERE set_name = 'closed_issues') AS issues_closed,
           count(*) FILTER (WHERE set_name = 'merged_prs') AS prs_merged,
           count(*) FILTER (WHERE set_name = 'closed_unmerged_prs') AS prs_closed_unmerged
    FROM sets GROUP BY day
),
merged AS (
    SELECT s.day, round(median((epoch(s.occurred_at) - epoch(i.created_at)) / 3600.0), 3) AS median_hours,
           round(quantile_cont((epoch(s.occurred_at) - epoch(i.created_at)) / 3600.0, 0.9), 3) AS p90_hours
    FROM sets AS s JOIN items AS i ON i.day = s.day AND i.number = s.number
    WHERE s.set_name = 'merged_prs'
    GROUP BY s.day
),
fr AS (
    SELECT day, count(*) AS answered,
           round(median((epoch(responded_at) - epoch(created_at)) / 3600.0), 3) AS median_hours
    FROM first_response GROUP BY day
),
stale AS (
    SELECT e.day, count(*) AS closures, count(*) FILTER (WHERE coalesce(e.actor_is_bot, false)) AS by_bot
    FROM events AS e JOIN items AS i ON i.day = e.day AND i.number = e.number
    WHERE e.event_type = 'closed'
      AND list_contains(list_transform(coalesce(i.labels, []), lambda l: lower(l)), 'stale')
    GROUP BY e.day
)
SELECT
    $repo AS repo, w.day,
    coalesce(ev.contributors, 0) AS contributors,
    coalesce(ev.bot_accounts, 0) AS bot_accounts,
    coalesce(op.issue_authors, 0) AS issue_authors,
    coalesce(op.pr_authors, 0) AS pr_authors,
    coalesce(cm.commenters, 0) AS commenters,
    coalesce(cm.reviewers, 0) AS reviewers,
    CASE WHEN coalesce(op.association_known, 0) > 0 THEN op.first_timers END AS first_time_contributors,
    coalesce(op.association_known, 0) AS association_known,
    CASE WHEN coalesce(op.association_known, 0) > 0 THEN 'author_association' ELSE 'unknown' END AS first_time_basis,
    coalesce(st.issues_opened, 0) AS issues_opened,
    coalesce(st.prs_opened, 0) AS prs_opened,
    coalesce(st.issues_closed, 0) AS issues_closed,
    coalesce(st.prs_merged, 0) AS prs_merged,
    coalesce(st.prs_closed_unmerged, 0) AS prs_closed_unmerged,
    st.prs_merged / nullif(st.prs_merged + st.prs_closed_unmerged, 0) AS merge_rate,
    merged.median_hours AS median_hours_to_merge,
    merged.p90_hours AS p90_hours_to_merge,
    coalesce(op.items_opened, 0) AS items_opened,
    CASE WHEN coalesce(cm.rows, 0) > 0 THEN coalesce(fr.answered, 0) END AS opened_answered,
    CASE WHEN coalesce(cm.rows, 0) > 0 THEN coalesce(op.items_opened, 0) - coalesce(fr.answered, 0) END
        AS opened_unanswered,
    fr.median_hours AS median_hours_to_first_response,
    CASE WHEN coalesce(cm.rows, 0) > 0 THEN 'window comments' ELSE 'no comment data' END AS response_basis,
    coalesce(cm.comments, 0) AS comments,
    coalesce(cm.reviews, 0) AS reviews,
    coalesce(stale.closures, 0) AS stale_closures,
    coalesce(stale.by_bot, 0) AS stale_closures_by_bot,
    coalesce(ev.bot_events, 0) AS bot_events,
    coalesce(cm.bot_comments, 0) AS bot_comments
FROM windows AS w
LEFT JOIN ev ON ev.day = w.day
LEFT JOIN op ON op.day = w.day
LEFT JOIN cm ON cm.day = w.day
LEFT JOIN st ON st.day = w.day
LEFT JOIN merged ON merged.day = w.day
LEFT JOIN fr ON fr.day = w.day
LEFT JOIN stale ON stale.day = w.day
