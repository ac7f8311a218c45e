-- mart_activity_daily: one row per day of how the community worked: who took part, how fast PRs merged
-- and new items got a first answer, stale clean-up and bot activity.
--   contributors            distinct non-bot actors of the window's events (open, close, merge, comment, review)
--   first_time_contributors distinct non-bot authors of items opened in the window whose author_association is
--                           FIRST_TIME_CONTRIBUTOR, FIRST_TIMER or NONE; NULL (first_time_basis = 'unknown')
--                           when the source gives no association for any of them, rather than a false 0
--   merge_rate              merged / (merged + closed without merge), PRs of the window
--   *_hours_to_merge        median / p90 of merged_at - created_at over PRs merged in the window
--   first response (CHAOSS) for items opened in the window: the first comment or review in the window by
--                           someone who is neither the author nor a bot; opened_unanswered counts those without
--                           one. NULL with response_basis = 'no comment data' when the day holds no comment
--                           rows at all (a source without threads), since "unanswered" would be invented.
--   stale_closures          closings in the window of items labelled 'stale' (by_bot: the closer is a bot)
WITH items AS (
    SELECT * FROM core_items WHERE repo = $repo AND day = CAST($day AS DATE)
),
events AS (
    SELECT * FROM core_events WHERE repo = $repo AND day = CAST($day AS DATE)
),
comments AS (
    SELECT * FROM core_comments WHERE repo = $repo AND day = CAST($day AS DATE)
),
sets AS (
    SELECT * FROM mart_five_sets WHERE repo = $repo AND day = CAST($day AS DATE)
),
opened AS (
    SELECT i.number, i.kind, i.author_login, i.author_is_bot, i.author_association, i.created_at
    FROM items AS i WHERE i.number IN (SELECT number FROM events WHERE event_type = 'opened')
),
first_response AS (
    SELECT o.number, min(c.created_at) AS responded_at, any_value(o.created_at) AS created_at
    FROM opened AS o
    JOIN comments AS c ON c.number = o.number
    WHERE NOT coalesce(c.author_is_bot, false)
      AND coalesce(c.author_login, '') <> coalesce(o.author_login, '')
      AND c.created_at >= o.created_at
    GROUP BY o.number
),
merged AS (
    SELECT (epoch(s.occurred_at) - epoch(i.created_at)) / 3600.0 AS hours
    FROM sets AS s JOIN items AS i ON i.number = s.number
    WHERE s.set_name = 'merged_prs'
),
has_comments AS (
    SELECT count(*) > 0 AS yes FROM comments
)
SELECT
    $repo AS repo, CAST($day AS DATE) AS day,
    (SELECT count(DISTINCT actor_login) FROM events
      WHERE actor_login IS NOT NULL AND NOT coalesce(actor_is_bot, false)) AS contributors,
    (SELECT count(DISTINCT actor_login) FROM events WHERE coalesce(actor_is_bot, false)) AS bot_accounts,
    (SELECT count(DISTINCT author_login) FROM opened WHERE kind = 'issue' AND NOT coalesce(author_is_bot, false))
        AS issue_authors,
    (SELECT count(DISTINCT author_login) FROM opened WHERE kind = 'pr' AND NOT coalesce(author_is_bot, false))
        AS pr_authors,
    (SELECT count(DISTINCT author_login) FROM comments
      WHERE comment_kind IN ('issue_comment', 'review_comment') AND NOT coalesce(author_is_bot, false)) AS commenters,
    (SELECT count(DISTINCT author_login) FROM comments
      WHERE comment_kind = 'review' AND NOT coalesce(author_is_bot, false)) AS reviewers,
    CASE WHEN (SELECT count(*) FROM opened WHERE author_association IS NOT NULL) > 0 THEN
        (SELECT count(DISTINCT author_login) FROM opened
          WHERE NOT coalesce(author_is_bot, false)
            AND upper(author_association) IN ('FIRST_TIME_CONTRIBUTOR', 'FIRST_TIMER', 'NONE'))
    END AS first_time_contributors,
    (SELECT count(*) FROM opened WHERE author_association IS NOT NULL) AS association_known,
    CASE WHEN (SELECT count(*) FROM opened WHERE author_association IS NOT NULL) > 0
         THEN 'author_association' ELSE 'unknown' END AS first_time_basis,
    (SELECT count(*) FROM sets WHERE set_name = 'new_issues') AS issues_opened,
    (SELECT count(*) FROM sets WHERE set_name = 'new_prs') AS prs_opened,
    (SELECT count(*) FROM sets WHERE set_name = 'closed_issues') AS issues_closed,
    (SELECT count(*) FROM sets WHERE set_name = 'merged_prs') AS prs_merged,
    (SELECT count(*) FROM sets WHERE set_name = 'closed_unmerged_prs') AS prs_closed_unmerged,
    (SELECT count(*) FILTER (WHERE set_name = 'merged_prs')
            / nullif(count(*) FILTER (WHERE set_name IN ('merged_prs', 'closed_unmerged_prs')), 0)
       FROM sets) AS merge_rate,
    (SELECT round(median(hours), 3) FROM merged) AS median_hours_to_merge,
    (SELECT round(quantile_cont(hours, 0.9), 3) FROM merged) AS p90_hours_to_merge,
    (SELECT count(*) FROM opened) AS items_opened,
    CASE WHEN (SELECT yes FROM has_comments) THEN (SELECT count(*) FROM first_response) END AS opened_answered,
    CASE WHEN (SELECT yes FROM has_comments)
         THEN (SELECT count(*) FROM opened) - (SELECT count(*) FROM first_response) END AS opened_unanswered,
    (SELECT round(median((epoch(responded_at) - epoch(created_at)) / 3600.0), 3) FROM first_response)
        AS median_hours_to_first_response,
    CASE WHEN (SELECT yes FROM has_comments) THEN 'window comments' ELSE 'no comment data' END AS response_basis,
    (SELECT count(*) FROM comments WHERE comment_kind IN ('issue_comment', 'review_comment')) AS comments,
    (SELECT count(*) FROM comments WHERE comment_kind = 'review') AS reviews,
    (SELECT count(*) FROM events AS e JOIN items AS i ON i.number = e.number
      WHERE e.event_type = 'closed' AND list_contains(list_transform(coalesce(i.labels, []), lambda l: lower(l)), 'stale'))
        AS stale_closures,
    (SELECT count(*) FROM events AS e JOIN items AS i ON i.number = e.number
      WHERE e.event_type = 'closed' AND coalesce(e.actor_is_bot, false)
        AND list_contains(list_transform(coalesce(i.labels, []), lambda l: lower(l)), 'stale'))
        AS stale_closures_by_bot,
    (SELECT count(*) FROM events WHERE coalesce(actor_is_bot, false)) AS bot_events,
    (SELECT count(*) FROM comments WHERE coalesce(author_is_bot, false)) AS bot_comments
