-- delivery_log_insert: the outcome of one delivery attempt of one (repo, day, channel).
INSERT INTO delivery_log (repo, day, channel, content_hash, sent_hash, status, message, attempts, error, first_sent_at, attempted_at)
VALUES ($repo, CAST($day AS DATE), $channel, $content_hash, $sent_hash, $status, $message, $attempts, $error,
        CAST($first_sent_at AS TIMESTAMPTZ), CAST($attempted_at AS TIMESTAMPTZ))
