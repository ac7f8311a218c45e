-- report_focus: the items of each day that concern a focus area, with their theme, whether a vendor employee
-- wrote them and whether that is known (the author's profile was fetched), grouped by theme for the focus section.
SELECT day, number, theme_id, theme_zh, theme_en, is_vendor_employee, author_profile_known FROM mart_focus_items
WHERE repo = $repo AND day IN (SELECT unnest(CAST($days AS DATE[])))
ORDER BY day, theme_id, number DESC
