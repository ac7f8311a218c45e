-- mart_key_changes: the day's PRs worth explaining, scored by a fitted logistic model: PRs merged in the window
-- (change_status 'merged') and PRs opened in it that are not merged yet ('opened'). Junk (int_item_junk:
-- fork syncs, empty titles, PRs their author closed within minutes) is left out.
-- key_score = $key_bias + sum(weight * value) over the item's int_selection_features, the weights bound from
--             vllm_digest/core/taxonomy/selection_weights.json (fitted by `python -m tools.editorial.fit_selection` on the
--             sample's labelled days); score_parts keeps each non-zero weight * value, largest first.
-- key_probability = the logistic of key_score: the model's chance the original editor would pick it.
-- key_rank: 1 = most important. A typo-sized PR (typo_sized: known size of at most 4 lines, or a typo title)
-- never leads: it ranks after every other PR whatever its score; ties go to the newer PR.
-- selected: among the first $key_limit (the fitted section length), what the report cites.
WITH sets AS (
    SELECT day, number, list(set_name) AS set_names FROM mart_five_sets
    WHERE repo = $repo AND day IN (SELECT day FROM run_days) AND set_name IN ('merged_prs', 'new_prs')
    GROUP BY day, number
),
items AS (
    SELECT i.*, s.set_names, title_tags(i.title) AS tags
    FROM core_items AS i JOIN sets AS s ON s.day = i.day AND s.number = i.number
    WHERE i.repo = $repo AND i.day IN (SELECT day FROM run_days) AND i.kind = 'pr'
      AND (i.day, i.number) NOT IN (SELECT (day, number) FROM int_item_junk
                                    WHERE repo = $repo AND day IN (SELECT day FROM run_days))
),
weights AS (
    SELECT unnest(CAST($key_features AS VARCHAR[])) AS feature, unnest(CAST($key_weights AS DOUBLE[])) AS weight
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
    WHERE f.repo = $repo AND f.day IN (SELECT day FROM run_days)
    GROUP BY f.day, f.number
),
typos AS (
    SELECT day, number FROM int_selection_features
    WHERE repo = $repo AND day IN (SELECT day FROM run_days) AND feature = 'typo_sized'
),
scored AS (
    SELECT i.day, i.number, i.title, i.author_login, i.labels,
           CASE WHEN list_contains(i.set_names, 'merged_prs') THEN 'merged' ELSE 'opened' END AS change_status,
           coalesce(t.topics, CAST([] AS VARCHAR[])) AS topics,
           coalesce(t.rising_topics, CAST([] AS VARCHAR[])) AS rising_topics,
           CAST(coalesce(i.additions, 0) + coalesce(i.deletions, 0) AS INTEGER) AS size_lines,
           i.additions IS NOT NULL OR i.deletions IS NOT NULL AS size_known,
           coalesce(i.draft, false) OR list_has_any(i.tags, ['draft', 'wip']) AS draft,
           y.number IS NOT NULL AS typo_sized,
           coalesce(h.hotness, 0) AS hotness,
           coalesce(p.score_parts, []) AS score_parts,
           round(CAST($key_bias AS DOUBLE) + coalesce(p.points, 0), 6) AS key_score
    FROM items AS i
    LEFT JOIN parts AS p ON p.day = i.day AND p.number = i.number
    LEFT JOIN typos AS y ON y.day = i.day AND y.number = i.number
    LEFT JOIN int_item_topic_sets AS t ON t.repo = $repo AND t.day = i.day AND t.number = i.number
    LEFT JOIN mart_item_hotness AS h ON h.repo = $repo AND h.day = i.day AND h.number = i.number
),
ranked AS (
    SELECT *, round(1 / (1 + exp(-key_score)), 6) AS key_probability,
           CAST(row_number() OVER (PARTITION BY day ORDER BY typo_sized, key_score DESC, number DESC) AS INTEGER)
               AS key_rank
    FROM scored
)
SELECT $repo AS repo, *, key_rank <= CAST($key_limit AS INTEGER) AS selected FROM ranked
