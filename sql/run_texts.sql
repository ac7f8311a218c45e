-- run_texts: the batch's distinct item texts (title, body, author login) from core_items, each with the
-- (day, number) item-days that carry it, in a connection-local temp table. An item touched on five days is
-- in core_items five times with the same text; int_text_hits runs each taxonomy regex over these texts
-- once per batch instead of once per item-day (a synthetic year: 94,000 item-days, 38,000 texts).
CREATE OR REPLACE TEMP TABLE run_texts AS
SELECT row_number() OVER (ORDER BY min(day), min(number)) AS text_id,
       title, body, author_login,
       list({'day': day, 'number': number} ORDER BY day, number) AS item_days
FROM core_items
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
GROUP BY title, body, author_login
