-- report_notable: each day's first $ranked_limit issues to watch in mart_notable_issues' order.
SELECT day, number, topics, risk_topics FROM mart_notable_issues
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
QUALIFY row_number() OVER (PARTITION BY day ORDER BY notable_rank, number DESC) <= $ranked_limit
ORDER BY day, notable_rank, number DESC
