-- core_item_texts_prune: a step of core_item_texts: texts no item-day references any more (a rebuilt day whose item's body was edited since)
-- are removed, so core_texts holds exactly the texts core_item_text_refs points to.
DELETE FROM core_texts AS t
WHERE NOT EXISTS (SELECT 1 FROM core_item_text_refs AS r WHERE r.text_hash = t.text_hash)
