-- delivery_log_delete: drop one (repo, day, channel) row before its new outcome is inserted.
DELETE FROM delivery_log
WHERE repo = $repo AND day = CAST($day AS DATE) AND channel = $channel
