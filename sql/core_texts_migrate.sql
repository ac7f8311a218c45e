-- core_texts_migrate: each distinct parsed text of a warehouse made when core_item_texts was a table of its
-- own (renamed core_item_texts_before_refs while it is migrated), stored once under its content hash.
INSERT INTO core_texts BY NAME
SELECT DISTINCT parsed_text_hash(what, purpose, test_plan, test_result, result_figures, referenced_items,
                                 meaningful_text, sections) AS text_hash,
       has_description, what, purpose, test_plan, test_result, result_figures, referenced_items, meaningful_text,
       sections
FROM core_item_texts_before_refs
