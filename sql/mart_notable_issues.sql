-- mart_notable_issues: issues still open at the end of the window and RFCs (issue or PR, open or not) among the
-- day's items, ranked by what deserves a reader's attention. Items closed for staleness are left out.
-- notable_score = hotness                   (mart_item_hotness)
--               + rfc_points     5 if an RFC ([RFC] title tag or label 'rfc')
--               + open_points    2 if still open at the window's end
--               + bug_points     2 if labelled or tagged bug
--               + risk_points    3 if it has a topic marked risk = true in the taxonomy (accuracy, memory/OOM)
--               + link_points    2 if a PR is linked to it (int_item_links: someone is already on it)
--               + rising_points  2 if one of its topics is rising today (mart_topic_daily)
-- notable_rank: 1 = most notable; ties broken by the newer item.
WITH windows AS (
    SELECT unnest(CAST($days AS DATE[])) AS day, unnest(CAST($window_ends AS TIMESTAMPTZ[])) AS window_end
),
items AS (
    SELECT i.*, w.window_end,
           title_tags(i.title) AS tags,
           list_transform(coalesce(i.labels, []), lambda l: lower(l)) AS labels_lc
    FROM core_items AS i JOIN windows AS w ON w.day = i.day WHERE i.repo = $repo
),
cand AS (
    SELECT *,
           list_contains(tags, 'rfc') OR list_contains(labels_lc, 'rfc') AS is_rfc,
           closed_at IS NULL OR closed_at >= window_end AS open_at_window_end
    FROM items
    WHERE NOT list_contains(labels_lc, 'stale')
),
topics AS (
    SELECT * FROM int_item_topic_sets WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
),
links AS (
    SELECT day, issue_number AS number, list_sort(list(DISTINCT pr_number)) AS linked_prs
    FROM int_item_links WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
    GROUP BY day, issue_number
),
parts AS (
    SELECT c.day, c.number, c.kind, c.title, c.author_login, c.labels, c.is_rfc, c.open_at_window_end,
           coalesce(t.topics, CAST([] AS VARCHAR[])) AS topics,
           coalesce(t.risk_topics, CAST([] AS VARCHAR[])) AS risk_topics,
           coalesce(t.rising_topics, CAST([] AS VARCHAR[])) AS rising_topics,
           coalesce(l.linked_prs, CAST([] AS INTEGER[])) AS linked_prs,
           coalesce(h.hotness, 0) AS hotness,
           CASE WHEN c.is_rfc THEN 5.0 ELSE 0.0 END AS rfc_points,
           CASE WHEN c.open_at_window_end THEN 2.0 ELSE 0.0 END AS open_points,
           CASE WHEN list_contains(c.labels_lc, 'bug') OR list_has_any(c.tags, ['bug', 'bugfix']) THEN 2.0 ELSE 0.0 END
               AS bug_points,
           CASE WHEN len(coalesce(t.risk_topics, [])) > 0 THEN 3.0 ELSE 0.0 END AS risk_points,
           CASE WHEN l.linked_prs IS NOT NULL THEN 2.0 ELSE 0.0 END AS link_points,
           CASE WHEN len(coalesce(t.rising_topics, [])) > 0 THEN 2.0 ELSE 0.0 END AS rising_points
    FROM cand AS c
    LEFT JOIN topics AS t ON t.day = c.day AND t.number = c.number
    LEFT JOIN links AS l ON l.day = c.day AND l.number = c.number
    LEFT JOIN mart_item_hotness AS h ON h.repo = $repo AND h.day = c.day AND h.number = c.number
    WHERE (c.kind = 'issue' AND c.open_at_window_end) OR c.is_rfc
)
SELECT $repo AS repo, *,
       hotness + rfc_points + open_points + bug_points + risk_points + link_points + rising_points AS notable_score,
       CAST(row_number() OVER (PARTITION BY day ORDER BY hotness + rfc_points + open_points + bug_points + risk_points + link_points
                                        + rising_points DESC, number DESC) AS INTEGER) AS notable_rank
FROM parts
