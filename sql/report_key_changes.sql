-- report_key_changes: each day's first $ranked_limit key changes in mart_key_changes' order.
SELECT day, number, change_status, topics FROM mart_key_changes
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
QUALIFY row_number() OVER (PARTITION BY day ORDER BY key_rank, number DESC) <= $ranked_limit
ORDER BY day, key_rank, number DESC
