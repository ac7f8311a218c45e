-- report_notable: each day's items to watch the fitted model selected (mart_notable_issues.selected), in rank
-- order, with the score's parts that explain the choice.
SELECT day, number, topics, risk_topics, score_parts, notable_score AS score, notable_probability AS probability
FROM mart_notable_issues
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[]))) AND selected
ORDER BY day, notable_rank, number DESC
