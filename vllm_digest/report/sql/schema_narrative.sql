-- schema_narrative: the grounding verdicts of LLM responses, so re-materializing or backfilling a day makes no new calls.
-- store: state
-- (state.duckdb beside the warehouse: it outlives a rebuild of the warehouse; core/sqlmodel/state.py)
-- narrative_cache: the responses that passed the grounding check.
-- key = sha256 of (prompt version, model, section, language, canonical facts JSON); no provider credentials are stored.
CREATE TABLE IF NOT EXISTS narrative_cache (
    key VARCHAR PRIMARY KEY,            -- sha256 of the prompt version, model, section, language and facts JSON
    prompt_version VARCHAR NOT NULL,    -- the prompts' version (PROMPT_VERSION) the text was written with
    model VARCHAR NOT NULL,             -- the model that wrote it
    section VARCHAR NOT NULL,           -- the report section it is the body of
    language VARCHAR NOT NULL,          -- zh or en
    response VARCHAR NOT NULL,          -- the validated text
    tokens_in INTEGER NOT NULL,         -- prompt tokens the server reported
    tokens_out INTEGER NOT NULL,        -- completion tokens the server reported
    created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp -- when it was stored
);

-- narrative_rejections: the last answer the grounding check refused after its repair, per cache key, so an
-- unchanged day costs no new call on a re-run (the retry_rejected setting asks again); same key as narrative_cache.
CREATE TABLE IF NOT EXISTS narrative_rejections (
    key VARCHAR PRIMARY KEY,
    prompt_version VARCHAR NOT NULL,
    model VARCHAR NOT NULL,
    section VARCHAR NOT NULL,
    language VARCHAR NOT NULL,
    response VARCHAR NOT NULL,
    violations VARCHAR[] NOT NULL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);
