-- schema_narrative: LLM responses that passed the grounding check, so re-materializing or backfilling a day makes no new calls.
-- key = sha256 of (prompt version, model, section, language, canonical facts JSON); no provider credentials are stored.
CREATE TABLE IF NOT EXISTS narrative_cache (
    key VARCHAR PRIMARY KEY,
    prompt_version VARCHAR NOT NULL,
    model VARCHAR NOT NULL,
    section VARCHAR NOT NULL,
    language VARCHAR NOT NULL,
    response VARCHAR NOT NULL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);
