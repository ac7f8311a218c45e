"""The definitions load, and hold the graph the UI shows."""

import dagster as dg

from vllm_digest.definitions import build_definitions


def test_module_definitions_load():
    import vllm_digest.definitions as module

    dg.Definitions.validate_loadable(module.defs)


def test_graph_per_repo_with_groups_and_descriptions(make_settings):
    settings = make_settings(VLLM_DIGEST_REPOS="vllm-project/vllm,sgl-project/sglang")
    defs = build_definitions(settings)
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    for prefix in ("vllm_project/vllm", "sgl_project/sglang"):
        for table in ("raw_activity", "stg_issues", "core_items", "mart_five_sets", "daily_report"):
            assert f"{prefix}/{table}" in keys
    groups = {graph.get(k).group_name for k in graph.get_all_asset_keys()}
    assert {"ingest", "warehouse", "report"} <= groups
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        assert node.description and len(node.description) > 40, key
        assert node.kinds, key


def test_lineage_raw_to_report(make_settings):
    graph = build_definitions(make_settings()).resolve_asset_graph()

    def up(name):
        return {k.path[-1] for k in graph.get(dg.AssetKey(["vllm_project", "vllm", name])).parent_keys}

    assert up("stg_issues") == {"raw_activity"}
    assert up("core_items") == {"stg_issues", "stg_pulls"}
    assert "core_events" in up("mart_five_sets")
    assert {"mart_five_sets", "mart_daily_counts"} <= up("daily_report")


def test_analytics_group_reads_the_marts(make_settings):
    graph = build_definitions(make_settings()).resolve_asset_graph()
    topics = graph.get(dg.AssetKey(["vllm_project", "vllm", "mart_item_topics"]))
    assert topics.group_name == "analytics"
    assert {k.path[-1] for k in topics.parent_keys} >= {"core_items"}


def test_site_asset_follows_every_repos_report_and_weekly_digest(make_settings):
    graph = build_definitions(make_settings(VLLM_DIGEST_REPOS="vllm-project/vllm,sgl-project/sglang")).resolve_asset_graph()
    site = graph.get(dg.AssetKey(["site"]))
    assert site.group_name == "site" and site.partitions_def is None
    assert set(site.parent_keys) == {
        dg.AssetKey([*prefix, name]) for prefix in (["vllm_project", "vllm"], ["sgl_project", "sglang"])
        for name in ("daily_report", "weekly_digest")
    }


def test_every_asset_runs_a_partition_range_as_one_run(make_settings):
    """`dagster asset materialize --partition-range` refuses a selection holding any asset
    without BackfillPolicy.single_run(); the UI's backfills group by it too."""
    defs = build_definitions(make_settings())
    graph = defs.resolve_asset_graph()
    policies = {key.to_user_string(): graph.get(key).backfill_policy for key in graph.get_all_asset_keys()}
    # 34, plus mart_section_picks, mart_follow_ups and the weekly digest
    assert len(policies) == 39
    assert {k for k, p in policies.items() if p != dg.BackfillPolicy.single_run()} == set()


def test_building_the_definitions_warns_no_beta_or_preview(make_settings):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build_definitions(make_settings(VLLM_DIGEST_REPOS="vllm-project/vllm,sgl-project/sglang"))
    flagged = [w for w in caught if issubclass(w.category, (dg.BetaWarning, dg.PreviewWarning))]
    assert flagged == []


def test_a_fresh_process_loads_the_definitions_without_beta_or_preview_warnings(tmp_path):
    """What every command (`make demo`, `dagster dev`, the CLI) does first: import the module."""
    import os
    import subprocess
    import sys

    from vllm_digest.testing.pipeline import ROOT

    env = {k: v for k, v in os.environ.items() if not k.startswith("VLLM_DIGEST_")}
    env["VLLM_DIGEST_HOME"] = str(tmp_path / "home")
    # as errors: one such warning fails the import; -W always shows every other warning, once per call
    flags = ["-W", "always", "-W", "error::dagster.BetaWarning", "-W", "error::dagster.PreviewWarning"]
    proc = subprocess.run(
        [sys.executable, *flags, "-c", "import vllm_digest.definitions"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Warning" not in proc.stderr, proc.stderr[-2000:]


def test_resource_descriptions_are_plain_text_and_every_field_is_described(make_settings):
    """The UI shows these strings as they are: RST ``markup`` or a docstring's indentation shows literally."""
    defs = build_definitions(make_settings())
    assert set(defs.resources) == {"warehouse", "activity_source", "narrative", "state"}
    for name, resource in defs.resources.items():
        definition = resource.get_resource_definition()
        texts = {"description": definition.description}
        texts.update({field: spec.description for field, spec in definition.config_schema.config_type.fields.items()})
        for what, text in texts.items():
            assert text and len(text) > 10, (name, what)
            assert "``" not in text and "\n" not in text, (name, what, text)


def test_job_description_names_every_group_of_the_graph(make_settings):
    from vllm_digest.core.keys import DAILY_JOB, WEEKLY_GROUP, WEEKLY_JOB

    defs = build_definitions(make_settings())
    graph = defs.resolve_asset_graph()
    groups = {graph.get(k).group_name for k in graph.get_all_asset_keys()}
    assert groups == {"ingest", "warehouse", "analytics", "report", "site", WEEKLY_GROUP}
    description = defs.resolve_job_def(DAILY_JOB).description
    # the weekly digests have their own job (weekly partitions), which names them and the site
    assert [g for g in groups - {WEEKLY_GROUP} if g not in description] == []
    assert all(g in defs.resolve_job_def(WEEKLY_JOB).description for g in (WEEKLY_GROUP, "site"))
    assert "stg -> core -> mart" in description
