-- int_item_areas: where in the code each PR of the days lands: its changed files (stg_pull_files) grouped by the
-- taxonomy's [[area]] of their longest matching path prefix (vllm/v1/core/ is the scheduler, csrc/rocm/ ROCm
-- kernels), with the files and changed lines per area. A feature table the selection can read, and what the
-- report's "touches: ..." says; empty for PRs whose files were not fetched. Two areas with the same longest
-- prefix: the smaller area id (a total order, whatever the taxonomy's order).
WITH areas AS (
    SELECT unnest(CAST($area_ids AS VARCHAR[])) AS area_id,
           unnest(CAST($area_prefixes AS VARCHAR[])) AS prefix,
           unnest(CAST($area_zh AS VARCHAR[])) AS area_zh,
           unnest(CAST($area_en AS VARCHAR[])) AS area_en
),
files AS (
    SELECT day, number, filename, coalesce(additions, 0) + coalesce(deletions, 0) AS lines
    FROM stg_pull_files
    WHERE repo = $repo AND day IN (SELECT day FROM run_days)
),
placed AS (
    SELECT f.day, f.number, f.filename, f.lines, arg_min(a.area_id, (-length(a.prefix), a.area_id)) AS area_id
    FROM files AS f
    JOIN areas AS a ON starts_with(f.filename, a.prefix)
    GROUP BY f.day, f.number, f.filename, f.lines
)
SELECT CAST($repo AS VARCHAR) AS repo, p.day, p.number, p.area_id, n.area_zh, n.area_en,
       count(*) AS files, sum(p.lines) AS lines
FROM placed AS p
JOIN (SELECT DISTINCT area_id, area_zh, area_en FROM areas) AS n USING (area_id)
GROUP BY p.day, p.number, p.area_id, n.area_zh, n.area_en
