-- int_selection_features: the explainable features the selection models score (mart_key_changes,
-- mart_notable_issues), one row per (item of the day's five lists, feature) with a non-zero value. The
-- weights are fitted on the sample's labelled days by `python -m tools.editorial.fit_selection` and bound from
-- vllm_digest/core/taxonomy/selection_weights.json; a feature the source cannot know (author association or size
-- on the embedded sample, bodies) is simply absent, so it adds nothing rather than a guess.
--   merged, opened, still_open (at the window's end), closed_unmerged, is_issue   what happened to it in the window
--   tag_substantive  a title tag of a substantive change (core, feature, perf, kernel, model, moe, mrv2,
--                    attention, spec decode, quantization, hardware ...)
--   tag_bug          a [Bug]/[Bugfix]/fix tag or the bug label
--   tag_process      a CI, build, test, doc, misc, refactor or chore tag
--   tag_vendor       a vendor or platform tag (rocm, amd, xpu, cpu, tpu, nvidia ...)
--   rfc              an RFC (tag or label);  rfc_implementation  a PR linked to an RFC of the day
--   revert           the title starts with "Revert";  draft  a draft (flag or [WIP]/[Draft] tag)
--   ready            labelled ready (or ready-run-all-tests) by a maintainer
--   linked           linked to another item of the day (int_item_links)
--   title_words      ln(1 + words in the title without its tags): a descriptive title
--   size_log         ln(1 + additions + deletions) when the size is known;  typo_sized  known size <= 4 lines
--                    or a typo title
--   first_time       author_association FIRST_TIME_CONTRIBUTOR / FIRST_TIMER;  maintainer  MEMBER, OWNER or
--                    COLLABORATOR (only when the source gives the association)
--   author_busy      ln(items the same author has in the day's lists): one of a mass of PRs
--   topics_substantive  non-process topics (at most 3);  topic_rising  one of its topics is rising today;
--   risk_topic       a risk topic (accuracy, memory/OOM)
--   comments_log     ln(1 + comments: in the window, or the total where threads are unknown)
--   focus            an item the focus section lists (mart_focus_items, not demoted)
--   opened_and_merged  opened and merged in the same window
--   title_new        the title adds something: add, support, enable, implement, introduce, new
--   title_perf       the title is about speed: perf, optimize, speed up, faster, latency, throughput, fuse
--   title_low_level  the title names a kernel-level subject: fp8/fp4 formats, MoE, attention, KV cache, CUDA
--                    graphs, kernel libraries (FlashInfer, Triton, AITER, DeepGEMM, CUTLASS), MLA
--   title_hardware   the title names a GPU generation or platform (Blackwell, B200, H100, MI300, gfx942, XPU ...)
--   title_model      the title names a model family (Qwen, DeepSeek, Kimi, GLM, MiniMax, Llama, Gemma ...)
--   hours_listed     how much of the window an item opened in it has been open: (window end - opened) / 24 h,
--                    at most 1 (time for review and discussion before the report)
--   title_failure    the title reports a failure: crash, hang, error, fails, illegal, NaN, accuracy, OOM ...
--   ci_failure       an issue filed for a failing CI job: a [CI Failure] title tag or the ci-failure label (a
--                    process tracker, not a user-facing problem; mart_notable_issues ranks it last)
--   title_quantified the title puts a number on the effect: a percentage ("0% accuracy"), a multiplier tied to what it
--                    multiplies ("~7x memory", "147x TTFT", "10x slower") or a memory size something takes ("allocate
--                    31.6 GiB", "leaks ~3.4 GiB"); a GPU count ("8x H100", "4x Gaudi2"), a card's memory ("RTX 3060
--                    12GB"), a part number ("sm_12x", "MI355X") and a retry factor ("4x backoff") are not effects
-- From the body (core_item_texts; absent where a source gives no bodies, as on the embedded sample):
--   body_figures     its Test Result reports figures (throughput, latency, accuracy: 1.36x, 48.2 ms, +12%)
--   test_plan        its Test Plan is filled in
--   fixes_issue      a PR opened in the window whose body closes an issue (FIX #N, Closes #N), of the day or not
--                    (the look-up study found the link telling among PRs opened that day; a merged PR's link is
--                    old news)
-- From the review threads (absent where a source gives none):
--   reviews_log      ln(1 + reviews and review comments written on the PR in the window)
WITH windows AS (
    SELECT day, window_end FROM run_days
),
days AS (
    SELECT day FROM windows
),
sets AS (
    SELECT day, number, list(DISTINCT set_name) AS set_names FROM mart_five_sets
    WHERE repo = $repo AND day IN (SELECT day FROM days)
    GROUP BY day, number
),
titles AS (
    -- what the features read from the title alone, once per distinct title: its tags, its text without them
    -- and its regexes (a year's 62,000 listed item-days carry 15,000 distinct titles)
    SELECT *,
           regexp_matches(title, '(?i)^\s*revert\b') AS t_revert,
           round(ln(1 + len(regexp_extract_all(bare_title, '\S+'))), 6) AS t_words,
           regexp_matches(title, '(?i)\btypos?\b') AS t_typo,
           regexp_matches(bare_title, '(?i)\b(add|adds|added|support|supports|enable|enables|implement|introduce|new)\b') AS t_title_new,
           regexp_matches(bare_title, '(?i)\b(perf|performance|optimi[sz]e[sd]?|optimi[sz]ation|speed ?ups?|faster|latency|throughput|fuse[sd]?|fusion)\b') AS t_title_perf,
           regexp_matches(bare_title, '(?i)\b(fp8|fp4|nvfp4|mxfp4|int4|int8|w4a16|w8a8|moe|attention|kv ?cache|cuda ?graphs?|flashinfer|triton|aiter|deepgemm|cutlass|mla|kernels?|gemm)\b') AS t_title_low_level,
           regexp_matches(bare_title, '(?i)\b(blackwell|hopper|b200|b300|gb200|h100|h200|h20|sm\d{2,3}|mi\d{3}x?|gfx\d+|rdna\d?|xpu|tpu|npu|hpu)\b') AS t_title_hardware,
           regexp_matches(bare_title, '(?i)\b(qwen|deepseek|kimi|glm|minimax|llama|gemma|nemotron|mistral|gpt-oss|phi|olmo|internvl|mamba)') AS t_title_model,
           regexp_matches(bare_title, '(?i)\b(crash(es|ed)?|hangs?|errors?|fails?|failure|illegal|nan|accuracy|regression|oom|out of memory|wrong|incorrect)\b') AS t_title_failure,
           regexp_matches(lower(bare_title),
                    -- a percentage
                    '\d(\.\d+)?\s*%'
                    -- a multiplier with what it multiplies within a few words ("~3x host memory regression")
                    || '|(^|[^a-z0-9._])[~>]?\d+(\.\d+)?(-\d+(\.\d+)?)?\s*[x×][^a-z0-9][^.,;:|]{0,25}?\b(faster|slower'
                    || '|speedups?|more|less|higher|lower|larger|smaller|better|worse|time|memory|compression|ttft'
                    || '|tpot|latency|throughput|regression|overhead|improvement|reduction)\b'
                    -- a memory size that something takes, not the size of a card ("allocate 31.6 GiB")
                    || '|\b(allocat\w*|leak\w*|fills?|uses?|using|consum\w*|takes?|needs?|requires?|extra|additional'
                    || '|increas\w*|grows?|wastes?)\s+[~>]?\d+(\.\d+)?\s*(gb|gib|mb|mib|tb)\b'
                    || '|\d+(\.\d+)?\s*(gb|gib|mb|mib|tb)\s+(more|less|leak\w*|extra|increase|regression|overhead)\b') AS t_title_quantified
    FROM (
        SELECT title, title_tags(title) AS tags,
               trim(regexp_replace(coalesce(title, ''), '\[[^\]]*\]', ' ', 'g')) AS bare_title
        FROM (SELECT DISTINCT i.title FROM core_items AS i JOIN sets AS s ON s.day = i.day AND s.number = i.number
              WHERE i.repo = $repo AND i.day IN (SELECT day FROM days))
    )
),
items AS (
    SELECT i.*, s.set_names, w.window_end, t.* EXCLUDE (title),
           list_transform(coalesce(i.labels, []), lambda l: lower(l)) AS labels_lc
    FROM core_items AS i JOIN sets AS s ON s.day = i.day AND s.number = i.number
    JOIN windows AS w ON w.day = i.day
    JOIN titles AS t ON t.title IS NOT DISTINCT FROM i.title
    WHERE i.repo = $repo AND i.day IN (SELECT day FROM days)
),
rfcs AS (
    SELECT day, number FROM items WHERE list_contains(tags, 'rfc') OR list_contains(labels_lc, 'rfc')
),
links AS (
    SELECT day, issue_number AS number, pr_number AS other FROM int_item_links
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND issue_in_day AND pr_in_day
    UNION
    SELECT day, pr_number, issue_number FROM int_item_links
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND issue_in_day AND pr_in_day
),
linked AS (
    SELECT l.day, l.number, true AS linked, bool_or(r.number IS NOT NULL) AS to_rfc
    FROM links AS l LEFT JOIN rfcs AS r ON r.day = l.day AND r.number = l.other
    GROUP BY l.day, l.number
),
authors AS (
    SELECT day, author_login, count(*) AS items FROM items WHERE author_login IS NOT NULL GROUP BY day, author_login
),
texts AS (
    SELECT day, number, len(result_figures) > 0 AS has_figures, test_plan <> '' AS has_test_plan,
           len(referenced_items) > 0 AS closes_items
    FROM core_item_texts WHERE repo = $repo AND day IN (SELECT day FROM days)
),
reviews AS (
    -- a review or review comment belongs to the day it landed in (stg_*: the day's window)
    SELECT day, number, count(*) AS n FROM (
        SELECT day, pull_number AS number FROM stg_reviews WHERE repo = $repo AND day IN (SELECT day FROM days)
        UNION ALL
        SELECT day, pull_number FROM stg_review_comments WHERE repo = $repo AND day IN (SELECT day FROM days)
    ) GROUP BY day, number
),
focus AS (
    SELECT DISTINCT day, number FROM mart_focus_items
    WHERE repo = $repo AND day IN (SELECT day FROM days) AND demoted IS NULL
),
wide AS (
    SELECT i.day, i.number,
           CAST(list_contains(i.set_names, 'merged_prs') AS DOUBLE) AS merged,
           CAST(list_has_any(i.set_names, ['new_prs', 'new_issues']) AS DOUBLE) AS opened,
           CAST(i.closed_at IS NULL OR i.closed_at >= i.window_end AS DOUBLE) AS still_open,
           CAST(list_contains(i.set_names, 'closed_unmerged_prs') AS DOUBLE) AS closed_unmerged,
           CAST(i.kind = 'issue' AS DOUBLE) AS is_issue,
           CAST(list_has_any(i.tags, ['core', 'feature', 'feat', 'perf', 'performance', 'kernel', 'model',
                                      'new model', 'moe', 'mrv2', 'model runner v2', 'attention', 'spec decode',
                                      'quantization', 'hardware', 'frontend', 'ux']) AS DOUBLE) AS tag_substantive,
           CAST(list_has_any(i.tags, ['bug', 'bugfix', 'fix']) OR list_contains(i.labels_lc, 'bug') AS DOUBLE)
               AS tag_bug,
           CAST(list_has_any(i.tags, ['ci', 'build', 'ci/build', 'test', 'tests', 'doc', 'docs', 'misc',
                                      'refactor', 'chore', 'ci failure']) AS DOUBLE) AS tag_process,
           CAST(list_has_any(i.tags, ['rocm', 'amd', 'xpu', 'cpu', 'tpu', 'nvidia', 'intel', 'hpu', 'npu'])
                AS DOUBLE) AS tag_vendor,
           CAST(r.number IS NOT NULL AS DOUBLE) AS rfc,
           CAST(i.kind = 'pr' AND coalesce(l.to_rfc, false) AS DOUBLE) AS rfc_implementation,
           CAST(i.t_revert AS DOUBLE) AS revert,
           CAST(coalesce(i.draft, false) OR list_has_any(i.tags, ['draft', 'wip']) AS DOUBLE) AS draft,
           CAST(list_has_any(i.labels_lc, ['ready', 'ready-run-all-tests']) AS DOUBLE) AS ready,
           CAST(coalesce(l.linked, false) AS DOUBLE) AS linked,
           i.t_words AS title_words,
           CASE WHEN i.additions IS NOT NULL OR i.deletions IS NOT NULL
                THEN round(ln(1 + coalesce(i.additions, 0) + coalesce(i.deletions, 0)), 6) ELSE 0.0 END AS size_log,
           CAST((i.additions IS NOT NULL OR i.deletions IS NOT NULL)
                    AND coalesce(i.additions, 0) + coalesce(i.deletions, 0) <= 4
                OR i.t_typo AS DOUBLE) AS typo_sized,
           CAST(upper(coalesce(i.author_association, '')) IN ('FIRST_TIME_CONTRIBUTOR', 'FIRST_TIMER') AS DOUBLE)
               AS first_time,
           CAST(upper(coalesce(i.author_association, '')) IN ('MEMBER', 'OWNER', 'COLLABORATOR') AS DOUBLE)
               AS maintainer,
           round(ln(coalesce(a.items, 1)), 6) AS author_busy,
           CAST(least(3, coalesce(t.substantive, 0)) AS DOUBLE) AS topics_substantive,
           CAST(len(coalesce(t.rising_topics, [])) > 0 AS DOUBLE) AS topic_rising,
           CAST(len(coalesce(t.risk_topics, [])) > 0 AS DOUBLE) AS risk_topic,
           round(ln(1 + coalesce(h.comments, 0)), 6) AS comments_log,
           CAST(f.number IS NOT NULL AS DOUBLE) AS focus,
           CAST(list_contains(i.set_names, 'merged_prs') AND list_contains(i.set_names, 'new_prs') AS DOUBLE)
               AS opened_and_merged,
           CAST(i.t_title_new AS DOUBLE) AS title_new,
           CAST(i.t_title_perf AS DOUBLE) AS title_perf,
           CAST(i.t_title_low_level AS DOUBLE) AS title_low_level,
           CAST(i.t_title_hardware AS DOUBLE) AS title_hardware,
           CAST(i.t_title_model AS DOUBLE) AS title_model,
           CAST(i.t_title_failure AS DOUBLE) AS title_failure,
           CAST(i.kind = 'issue' AND (list_contains(i.tags, 'ci failure') OR list_contains(i.labels_lc, 'ci-failure'))
                AS DOUBLE) AS ci_failure,
           CAST(i.t_title_quantified AS DOUBLE) AS title_quantified,
           CASE WHEN list_has_any(i.set_names, ['new_prs', 'new_issues'])
                THEN round(least(1.0, greatest(0.0, date_diff('second', i.created_at, i.window_end) / 86400.0)), 6)
                ELSE 0.0 END AS hours_listed,
           CAST(i.kind = 'pr' AND coalesce(x.has_figures, false) AS DOUBLE) AS body_figures,
           CAST(i.kind = 'pr' AND coalesce(x.has_test_plan, false) AS DOUBLE) AS test_plan,
           CAST(i.kind = 'pr' AND list_contains(i.set_names, 'new_prs') AND coalesce(x.closes_items, false) AS DOUBLE)
               AS fixes_issue,
           CASE WHEN i.kind = 'pr' THEN round(ln(1 + coalesce(v.n, 0)), 6) ELSE 0.0 END AS reviews_log
    FROM items AS i
    LEFT JOIN rfcs AS r ON r.day = i.day AND r.number = i.number
    LEFT JOIN linked AS l ON l.day = i.day AND l.number = i.number
    LEFT JOIN authors AS a ON a.day = i.day AND a.author_login = i.author_login
    LEFT JOIN int_item_topic_sets AS t ON t.repo = $repo AND t.day = i.day AND t.number = i.number
    LEFT JOIN mart_item_hotness AS h ON h.repo = $repo AND h.day = i.day AND h.number = i.number
    LEFT JOIN focus AS f ON f.day = i.day AND f.number = i.number
    LEFT JOIN texts AS x ON x.day = i.day AND x.number = i.number
    LEFT JOIN reviews AS v ON v.day = i.day AND v.number = i.number
)
SELECT $repo AS repo, day, number, feature, value
FROM (UNPIVOT wide ON COLUMNS(* EXCLUDE (day, number)) INTO NAME feature VALUE value)
WHERE value <> 0
