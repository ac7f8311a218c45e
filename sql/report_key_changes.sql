-- report_key_changes: each day's key changes the fitted model selected (mart_key_changes.selected), in rank order,
-- with the score's parts that explain the choice.
SELECT day, number, change_status, topics, score_parts, key_score AS score, key_probability AS probability
FROM mart_key_changes
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[]))) AND selected
ORDER BY day, key_rank, number DESC
