-- run_texts: the batch's distinct item texts (title, the body's meaningful text from core_item_texts, author
-- login), each with the (day, number) item-days that carry it, in a connection-local temp table. The body is
-- what its author wrote, never vLLM's template, a checklist or a pasted environment dump ("ROCM used to build
-- PyTorch: N/A" must not make an item AMD news). An item touched on five days is in core_items five times with
-- the same text; int_text_hits runs each taxonomy regex over these texts once per batch instead of once per
-- item-day (a synthetic year: 94,000 item-days, 38,000 texts).
CREATE OR REPLACE TEMP TABLE run_texts AS
SELECT row_number() OVER (ORDER BY min(i.day), min(i.number)) AS text_id,
       i.title, t.meaningful_text AS body, i.author_login,
       list({'day': i.day, 'number': i.number} ORDER BY i.day, i.number) AS item_days
FROM core_items AS i
LEFT JOIN core_item_texts AS t ON t.repo = i.repo AND t.day = i.day AND t.number = i.number
WHERE i.repo = $repo AND i.day IN (SELECT day FROM run_days)
GROUP BY i.title, t.meaningful_text, i.author_login
