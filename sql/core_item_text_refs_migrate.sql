-- core_item_text_refs_migrate: each item-day row of a warehouse made when core_item_texts was a table of its
-- own, as a reference to its text in core_texts (core_texts_migrate stored them).
INSERT INTO core_item_text_refs BY NAME
SELECT repo, day, number, kind,
       parsed_text_hash(what, purpose, test_plan, test_result, result_figures, referenced_items,
                        meaningful_text, sections) AS text_hash
FROM core_item_texts_before_refs
