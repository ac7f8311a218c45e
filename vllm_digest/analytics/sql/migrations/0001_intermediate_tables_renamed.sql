-- 0001_intermediate_tables_renamed: the intermediate tables the marts read were named mart_*; a warehouse
-- written before keeps their rows under the int_* names.
ALTER TABLE IF EXISTS mart_text_hits RENAME TO int_text_hits;
ALTER TABLE IF EXISTS mart_item_links RENAME TO int_item_links;
ALTER TABLE IF EXISTS mart_item_features RENAME TO int_item_features;
ALTER TABLE IF EXISTS mart_item_topic_sets RENAME TO int_item_topic_sets;
