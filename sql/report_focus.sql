-- report_focus: the items of each day that concern a focus area, with their theme and whether a vendor employee
-- wrote them, grouped by theme for the focus section.
SELECT day, number, theme_id, theme_zh, theme_en, is_vendor_employee FROM mart_focus_items
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
ORDER BY day, theme_id, number DESC
