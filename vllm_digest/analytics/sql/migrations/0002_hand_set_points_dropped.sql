-- 0002_hand_set_points_dropped: a warehouse written before the fitted selection models keeps the hand-set point
-- columns of mart_key_changes and mart_notable_issues until they are dropped here (score_parts replaced them).
ALTER TABLE IF EXISTS mart_key_changes DROP COLUMN IF EXISTS merged_points;
ALTER TABLE IF EXISTS mart_key_changes DROP COLUMN IF EXISTS significance_points;
ALTER TABLE IF EXISTS mart_key_changes DROP COLUMN IF EXISTS breadth_points;
ALTER TABLE IF EXISTS mart_key_changes DROP COLUMN IF EXISTS rising_points;
ALTER TABLE IF EXISTS mart_key_changes DROP COLUMN IF EXISTS size_points;
ALTER TABLE IF EXISTS mart_key_changes DROP COLUMN IF EXISTS penalty_points;
ALTER TABLE IF EXISTS mart_notable_issues DROP COLUMN IF EXISTS rfc_points;
ALTER TABLE IF EXISTS mart_notable_issues DROP COLUMN IF EXISTS open_points;
ALTER TABLE IF EXISTS mart_notable_issues DROP COLUMN IF EXISTS bug_points;
ALTER TABLE IF EXISTS mart_notable_issues DROP COLUMN IF EXISTS risk_points;
ALTER TABLE IF EXISTS mart_notable_issues DROP COLUMN IF EXISTS link_points;
ALTER TABLE IF EXISTS mart_notable_issues DROP COLUMN IF EXISTS rising_points;
