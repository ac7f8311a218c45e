"""The ingest stage: where a day's raw activity comes from (the embedded sample or the GitHub API)
and how it is landed on disk, payloads exactly as received."""
