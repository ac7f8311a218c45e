-- ref_taxonomy_rules: the taxonomy rules each day was built with, one row per tag, label, path, text regex,
-- author pattern or default theme, bound as parallel lists from the loaded TOML. Stored per day (not once)
-- so a day rebuilt under a new taxonomy version carries the rules that produced its topics; the matching marts
-- read the rules of their own day from here.
WITH windows AS (
    SELECT day FROM run_days
),
rules AS (
    SELECT
        unnest(CAST($rule_scope AS VARCHAR[])) AS scope,
        unnest(CAST($rule_owner_id AS VARCHAR[])) AS owner_id,
        unnest(CAST($rule_parent_id AS VARCHAR[])) AS parent_id,
        unnest(CAST($rule_kind AS VARCHAR[])) AS kind,
        unnest(CAST($rule_value AS VARCHAR[])) AS value,
        unnest(CAST($rule_pattern AS VARCHAR[])) AS pattern,
        unnest(CAST($rule_name_zh AS VARCHAR[])) AS name_zh,
        unnest(CAST($rule_name_en AS VARCHAR[])) AS name_en,
        unnest(CAST($rule_grp AS VARCHAR[])) AS grp,
        unnest(CAST($rule_risk AS BOOLEAN[])) AS risk,
        unnest(CAST($rule_ord AS INTEGER[])) AS ord
)
SELECT
    $repo AS repo, w.day,
    CAST($taxonomy_version AS INTEGER) AS taxonomy_version, CAST($taxonomy_path AS VARCHAR) AS taxonomy_path,
    r.scope, r.owner_id, r.parent_id, r.kind, r.value, r.pattern, r.name_zh, r.name_en, r.grp, r.risk, r.ord
FROM windows AS w CROSS JOIN rules AS r
