-- schema_delivery: what each channel was sent for each day, so a re-run sends nothing twice.
-- store: state
-- (state.duckdb beside the warehouse: it outlives a rebuild of the warehouse; core/sqlmodel/state.py)
-- delivery_log: one row per (repo, day, channel), replaced after each attempt (delete then insert in one
-- transaction); a channel is "webhook:<kind>" or "email". Holds no secret: no URL, token or password.
CREATE TABLE IF NOT EXISTS delivery_log (
    repo VARCHAR NOT NULL,              -- the repository, owner/name
    day DATE NOT NULL,                  -- the report day the message is about
    channel VARCHAR NOT NULL,           -- webhook:feishu, webhook:slack, webhook:json or email
    content_hash VARCHAR NOT NULL,      -- sha256 of the content the last attempt carried
    sent_hash VARCHAR,                  -- sha256 of the content last delivered (null: never delivered)
    status VARCHAR NOT NULL,            -- sent, failed or unknown (went out, no answer): the last attempt's outcome
    message VARCHAR NOT NULL,           -- new or updated: what the last attempt sent
    attempts INTEGER NOT NULL,          -- attempts that failed or got no answer since the last delivery
    error VARCHAR,                      -- why the last attempt failed, or what a server refused (null: none)
    first_sent_at TIMESTAMPTZ,          -- when the day was first delivered on this channel
    attempted_at TIMESTAMPTZ NOT NULL   -- when the last attempt ended
);
