"""The topic taxonomy and vendor focus areas: one versioned TOML file, validated at load."""
