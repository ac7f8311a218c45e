-- report_ref_states: the state, as the warehouse last saw it on or before each report day, of the items that day's
-- texts cite (the (day, number) pairs in $wanted_days and $wanted_numbers: report_known_refs' rows), for the badge
-- the narrative prints after a #N that no section features (report/narrative/states.py); a later day's row is not read,
-- so a day's report says what its own day knew.
WITH wanted AS (
    SELECT unnest(CAST($wanted_days AS DATE[])) AS day, unnest(CAST($wanted_numbers AS INTEGER[])) AS number
)
SELECT w.day, w.number, i.kind, i.state, i.merged_at
FROM wanted AS w
JOIN core_items AS i ON i.repo = $repo AND i.number = w.number AND i.day <= w.day
QUALIFY row_number() OVER (PARTITION BY w.day, w.number ORDER BY i.day DESC) = 1
ORDER BY w.day, w.number
