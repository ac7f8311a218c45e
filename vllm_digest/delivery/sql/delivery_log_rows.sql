-- delivery_log_rows: every logged (day, channel) of one repository, oldest day first.
SELECT repo, day, channel, content_hash, sent_hash, status, message, attempts, error, first_sent_at, attempted_at
FROM delivery_log
WHERE repo = $repo
ORDER BY day, channel
