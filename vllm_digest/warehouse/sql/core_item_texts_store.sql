-- core_item_texts_store: a step of core_item_texts: the batch's parsed texts (run_parsed_bodies) that core_texts does not hold yet, each once:
-- many bodies parse to one text (an unfilled template), and a text stored by an earlier run is kept as it is.
-- The key refuses a text stored twice: two writers storing one new text at once conflict instead of doubling it.
INSERT INTO core_texts BY NAME
SELECT DISTINCT p.text_hash, p.what <> '' OR p.meaningful_text <> '' AS has_description, p.what, p.purpose,
       p.test_plan, p.test_result, p.result_figures, p.referenced_items, p.meaningful_text, p.sections,
       p.changes, p.claims, p.test_commands
FROM run_parsed_bodies AS p
WHERE NOT EXISTS (SELECT 1 FROM core_texts AS t WHERE t.text_hash = p.text_hash)
ON CONFLICT DO NOTHING
