-- core_events: one row per thing that happened to an item inside the window [window_start, window_end):
-- opened (from the item), closed / merged / reopened (from issue events, or from snapshots on days
-- fetched without events), commented and reviewed (from comments and reviews).
WITH days AS (
    SELECT d.repo, d.day, d.window_start, d.window_end,
           (SELECT m.semantics FROM stg_fetch_manifest AS m WHERE m.repo = d.repo AND m.day = d.day) AS semantics
    FROM run_days AS d
),
items AS (
    SELECT i.*, d.window_start, d.window_end, d.semantics
    FROM core_items AS i JOIN days AS d ON d.repo = i.repo AND d.day = i.day
),
issue_events AS (
    SELECT e.* FROM stg_issue_events AS e
    JOIN days AS d ON d.repo = e.repo AND d.day = e.day
    WHERE e.created_at >= d.window_start AND e.created_at < d.window_end
      AND e.event IN ('closed', 'merged', 'reopened')
      AND coalesce(d.semantics, 'events') = 'events'
)
SELECT repo, day, 'opened:' || number AS event_key, number, kind, 'opened' AS event_type,
       created_at AS occurred_at, author_login AS actor_login, author_is_bot AS actor_is_bot, 'item' AS origin
FROM items
WHERE created_at >= window_start AND created_at < window_end
UNION ALL
SELECT e.repo, e.day, 'event:' || e.event_id, e.issue_number, i.kind, e.event,
       e.created_at, e.actor_login, is_bot(e.actor_login, e.actor_type), 'issue_event'
FROM issue_events AS e
LEFT JOIN items AS i ON i.repo = e.repo AND i.day = e.day AND i.number = e.issue_number
UNION ALL
SELECT repo, day, 'snapshot-closed:' || number, number, kind, 'closed',
       closed_at, NULL, NULL, 'snapshot'
FROM items
WHERE semantics = 'snapshot'
  AND closed_at >= window_start AND closed_at < window_end
UNION ALL
SELECT repo, day, 'snapshot-merged:' || number, number, kind, 'merged',
       merged_at, NULL, NULL, 'snapshot'
FROM items
WHERE semantics = 'snapshot'
  AND merged_at >= window_start AND merged_at < window_end
UNION ALL
SELECT c.repo, c.day, c.comment_key, c.number, i.kind,
       CASE WHEN c.comment_kind = 'issue_comment' THEN 'commented' ELSE 'reviewed' END,
       c.created_at, c.author_login, c.author_is_bot, c.comment_kind
FROM core_comments AS c
JOIN days AS d ON d.repo = c.repo AND d.day = c.day
LEFT JOIN items AS i ON i.repo = c.repo AND i.day = c.day AND i.number = c.number
WHERE c.created_at >= d.window_start AND c.created_at < d.window_end
