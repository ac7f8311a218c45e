-- report_known_refs: the #N that each day's titles and bodies cite and that are items of this repository the
-- warehouse holds: only these may be cited as an item's related items (report/facts.py); a number written in
-- someone's title is not a fact until it resolves to a real item.
WITH cited AS (
    SELECT DISTINCT i.day, TRY_CAST(t.ref AS BIGINT) AS number
    FROM (
        SELECT day, title, body FROM core_items
        WHERE repo = $repo AND day IN (SELECT day FROM run_days)
    ) AS i,
    unnest(regexp_extract_all(coalesce(i.title, '') || ' ' || coalesce(i.body, ''), '#(\d+)\b', 1)) AS t(ref)
)
SELECT day, number FROM cited
WHERE number IN (SELECT number FROM core_items WHERE repo = $repo)
ORDER BY day, number
