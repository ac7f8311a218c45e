-- run_item_bodies: the batch's distinct non-empty item bodies from core_items, which warehouse/bodies.py parses
-- once each (an item touched on five days carries the same body five times) into run_parsed_bodies.
SELECT DISTINCT i.body
FROM core_items AS i
JOIN run_days AS d ON d.repo = i.repo AND d.day = i.day
WHERE i.body IS NOT NULL AND trim(i.body) <> ''
