-- int_item_entities: the named things each item of the day's title talks about (a model and its version, a
-- hardware generation, a product-like name), one row per item and entity key, with the item's action (what the
-- title says it does: add, fix, perf, revert, docs, other; issue for an issue). Extracted in Python
-- (vllm_digest/analytics/entities.py) into the connection's run_item_entities; mart_hot_stories groups them.
SELECT $repo AS repo, e.day, e.number, e.entity_key, e.entity_name, e.action
FROM run_item_entities AS e
JOIN core_items AS i ON i.repo = $repo AND i.day = e.day AND i.number = e.number
