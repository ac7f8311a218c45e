-- mart_notable_issues: what deserves a reader's attention among the day's five lists (issues and PRs: a new
-- bug report, an RFC, a PR proposing something new), scored by a fitted logistic model. Items closed for
-- staleness and junk (int_item_junk) are left out.
-- notable_score = $notable_bias + sum(weight * value) over the item's int_selection_features, the weights bound
--                 from vllm_digest/core/taxonomy/selection_weights.json (fitted by `python -m tools.editorial.fit_selection`);
--                 score_parts keeps each non-zero weight * value, largest first.
-- notable_probability = the logistic of notable_score.
-- notable_rank: 1 = most notable; ties broken by the newer item. A CI failure report (ci_failure: an issue filed
-- for a failing CI job) ranks after every other item whatever its score: it tracks the project's process, not
-- a problem its users meet (the original's editor picked none in 21 sample days). selected: among the first
-- $notable_limit.
WITH windows AS (
    SELECT day, window_end FROM run_days
),
listed AS (
    SELECT DISTINCT day, number FROM mart_five_sets
    WHERE repo = $repo AND day IN (SELECT day FROM windows)
),
items AS (
    SELECT i.*, w.window_end,
           title_tags(i.title) AS tags,
           list_transform(coalesce(i.labels, []), lambda l: lower(l)) AS labels_lc
    FROM core_items AS i
    JOIN windows AS w ON w.day = i.day
    JOIN listed AS l ON l.day = i.day AND l.number = i.number
    WHERE i.repo = $repo
      AND (i.day, i.number) NOT IN (SELECT (day, number) FROM int_item_junk
                                    WHERE repo = $repo AND day IN (SELECT day FROM windows))
),
cand AS (
    SELECT *,
           list_contains(tags, 'rfc') OR list_contains(labels_lc, 'rfc') AS is_rfc,
           closed_at IS NULL OR closed_at >= window_end AS open_at_window_end
    FROM items
    WHERE NOT list_contains(labels_lc, 'stale')
),
links AS (
    SELECT day, issue_number AS number, list_sort(list(DISTINCT pr_number)) AS linked_prs
    FROM int_item_links WHERE repo = $repo AND day IN (SELECT day FROM windows)
    GROUP BY day, issue_number
),
weights AS (
    SELECT unnest(CAST($notable_features AS VARCHAR[])) AS feature,
           unnest(CAST($notable_weights AS DOUBLE[])) AS weight
),
parts AS (
    SELECT f.day, f.number,
           sum(f.value * w.weight) AS points,
           -- largest |points| first, then by feature (unique in an item's rows): sorted per item by list_sort
           -- on a leading key, not by an ordered aggregate (list(... ORDER BY ...) sorted all the rows, 1.4 s)
           list_transform(list_sort(
               list({'key': -abs(f.value * w.weight), 'feature': f.feature,
                     'part': {'feature': f.feature, 'value': f.value, 'weight': w.weight,
                              'points': round(f.value * w.weight, 4)}})
                   FILTER (WHERE w.weight <> 0)), lambda s: s.part) AS score_parts
    FROM int_selection_features AS f JOIN weights AS w ON w.feature = f.feature
    WHERE f.repo = $repo AND f.day IN (SELECT day FROM windows)
    GROUP BY f.day, f.number
),
ci_failures AS (
    SELECT day, number FROM int_selection_features
    WHERE repo = $repo AND day IN (SELECT day FROM windows) AND feature = 'ci_failure'
),
scored AS (
    SELECT c.day, c.number, c.kind, c.title, c.author_login, c.labels, c.is_rfc, c.open_at_window_end,
           y.number IS NOT NULL AS ci_failure,
           coalesce(t.topics, CAST([] AS VARCHAR[])) AS topics,
           coalesce(t.risk_topics, CAST([] AS VARCHAR[])) AS risk_topics,
           coalesce(t.rising_topics, CAST([] AS VARCHAR[])) AS rising_topics,
           coalesce(l.linked_prs, CAST([] AS INTEGER[])) AS linked_prs,
           coalesce(h.hotness, 0) AS hotness,
           coalesce(p.score_parts, []) AS score_parts,
           round(CAST($notable_bias AS DOUBLE) + coalesce(p.points, 0), 6) AS notable_score
    FROM cand AS c
    LEFT JOIN parts AS p ON p.day = c.day AND p.number = c.number
    LEFT JOIN int_item_topic_sets AS t ON t.repo = $repo AND t.day = c.day AND t.number = c.number
    LEFT JOIN links AS l ON l.day = c.day AND l.number = c.number
    LEFT JOIN ci_failures AS y ON y.day = c.day AND y.number = c.number
    LEFT JOIN mart_item_hotness AS h ON h.repo = $repo AND h.day = c.day AND h.number = c.number
),
ranked AS (
    SELECT *, round(1 / (1 + exp(-notable_score)), 6) AS notable_probability,
           CAST(row_number() OVER (PARTITION BY day ORDER BY ci_failure, notable_score DESC, number DESC) AS INTEGER)
               AS notable_rank
    FROM scored
)
SELECT $repo AS repo, *, notable_rank <= CAST($notable_limit AS INTEGER) AS selected FROM ranked
