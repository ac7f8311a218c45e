-- mart_five_sets: the day's five report lists. New = created in the window; closed / merged = a closing or
-- merge event in the window (every closing counts, even of an item reopened later); a PR closing with no
-- merge of the same PR within a minute of it is closed-unmerged, even if the PR is merged on a later day.
WITH events AS (
    SELECT e.* FROM core_events AS e JOIN run_days AS d ON d.repo = e.repo AND d.day = e.day
),
items AS (
    SELECT i.* FROM core_items AS i JOIN run_days AS d ON d.repo = i.repo AND d.day = i.day
),
members AS (
    SELECT repo, day, number, 'new_issues' AS set_name, occurred_at FROM events
    WHERE event_type = 'opened' AND kind = 'issue'
    UNION ALL
    SELECT repo, day, number, 'new_prs', occurred_at FROM events
    WHERE event_type = 'opened' AND kind = 'pr'
    UNION ALL
    SELECT repo, day, number, 'closed_issues', occurred_at FROM events
    WHERE event_type = 'closed' AND kind = 'issue'
    UNION ALL
    SELECT repo, day, number, 'merged_prs', occurred_at FROM events
    WHERE event_type = 'merged' AND kind = 'pr'
    UNION ALL
    SELECT c.repo, c.day, c.number, 'closed_unmerged_prs', c.occurred_at FROM events AS c
    WHERE c.event_type = 'closed' AND c.kind = 'pr'
      AND NOT EXISTS (
          SELECT 1 FROM events AS m
          WHERE m.repo = c.repo AND m.day = c.day AND m.event_type = 'merged' AND m.number = c.number
            AND abs(epoch(m.occurred_at) - epoch(c.occurred_at)) <= 60
      )
),
per_item AS (
    -- an item closed twice in one window is listed once, at its last closing
    SELECT repo, day, number, set_name, max(occurred_at) AS occurred_at
    FROM members GROUP BY repo, day, number, set_name
)
SELECT p.repo, p.day, p.set_name, p.number, i.kind, p.occurred_at,
       i.title, i.labels, i.author_login
FROM per_item AS p
JOIN items AS i ON i.repo = p.repo AND i.day = p.day AND i.number = p.number
