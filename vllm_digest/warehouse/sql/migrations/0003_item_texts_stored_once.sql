-- 0003_item_texts_stored_once: core_item_texts was a table repeating each item-day's parsed body text (an item
-- touched on five days held it five times); it is now a view (schema.sql) joining a reference per item-day,
-- core_item_text_refs, to each distinct text stored once, core_texts. A warehouse that holds the table has its
-- rows moved into the two tables under their content hash, and the table dropped: the view then reads exactly
-- the rows the table held. The hash is schema.sql's parsed_text_hash, spelled out here because migrations run
-- before the schema files (tests/core/test_schema_migrations.py checks both say the same).
-- needs table: core_item_texts
CREATE TABLE core_texts AS
SELECT DISTINCT
       sha256(CAST(to_json({'what': what, 'purpose': purpose, 'test_plan': test_plan, 'test_result': test_result,
                            'result_figures': result_figures, 'referenced_items': referenced_items,
                            'meaningful_text': meaningful_text, 'sections': sections}) AS VARCHAR)) AS text_hash,
       has_description, what, purpose, test_plan, test_result, result_figures, referenced_items, meaningful_text,
       sections
FROM core_item_texts;
CREATE TABLE core_item_text_refs AS
SELECT repo, day, number, kind,
       sha256(CAST(to_json({'what': what, 'purpose': purpose, 'test_plan': test_plan, 'test_result': test_result,
                            'result_figures': result_figures, 'referenced_items': referenced_items,
                            'meaningful_text': meaningful_text, 'sections': sections}) AS VARCHAR)) AS text_hash
FROM core_item_texts;
-- the constraints schema.sql declares, which CREATE TABLE ... AS does not carry
ALTER TABLE core_texts ADD PRIMARY KEY (text_hash);
ALTER TABLE core_item_text_refs ALTER COLUMN repo SET NOT NULL;
ALTER TABLE core_item_text_refs ALTER COLUMN day SET NOT NULL;
ALTER TABLE core_item_text_refs ALTER COLUMN number SET NOT NULL;
ALTER TABLE core_item_text_refs ALTER COLUMN kind SET NOT NULL;
DROP TABLE core_item_texts;
