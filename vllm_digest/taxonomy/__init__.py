"""The topic taxonomy and vendor focus areas: one versioned TOML file, validated at load."""

from vllm_digest.taxonomy.loader import (
    DEFAULT_TAXONOMY,
    NAME_FIELDS,
    FocusArea,
    Project,
    Taxonomy,
    TaxonomyError,
    Theme,
    Topic,
    keyword_regex,
    load_taxonomy,
    taxonomy_from_settings,
)

__all__ = [
    "DEFAULT_TAXONOMY",
    "NAME_FIELDS",
    "FocusArea",
    "Project",
    "Taxonomy",
    "TaxonomyError",
    "Theme",
    "Topic",
    "keyword_regex",
    "load_taxonomy",
    "taxonomy_from_settings",
]
