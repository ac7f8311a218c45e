"""Dagster's planned-events switch as the opt-in setting ``planned_events_per_run``: off by default, and
when on, what a real SQLite instance records for a range run changes, including the trade-off the
README states (a failed run's days are not marked failed)."""

from __future__ import annotations

import os
import subprocess
import sys

import dagster as dg
import pytest
# what the UI's partition status ("failed" filter) is computed from; not in dagster's top-level API
from dagster._core.storage.partition_status_cache import get_and_update_asset_status_cache_value

from vllm_digest.core.calendar import daily_partitions
from vllm_digest.core.config.values import SettingsError
from vllm_digest.definitions import build_definitions
from vllm_digest.orchestration.planned_events import DAGSTER_SWITCH
from vllm_digest.testing.pipeline import ROOT, project_dagster_home, settings_at


SETTING = "VLLM_DIGEST_PLANNED_EVENTS_PER_RUN"
DAYS = ("2026-03-14", "2026-03-15")


@pytest.fixture(autouse=True)
def no_switch(monkeypatch):
    # the switch is process-wide (os.environ): start without it, and have monkeypatch remove it after
    monkeypatch.delenv(DAGSTER_SWITCH, raising=False)


def test_off_by_default_and_off_leaves_the_environment_alone(tmp_path):
    settings = settings_at(tmp_path / "home")
    assert settings.planned_events_per_run is False
    build_definitions(settings)
    assert DAGSTER_SWITCH not in os.environ


def test_a_bad_value_names_the_variable(tmp_path):
    with pytest.raises(SettingsError, match=f"{SETTING}: planned_events_per_run 'sometimes' is not a yes/no"):
        settings_at(tmp_path / "home", **{SETTING: "sometimes"})


def test_the_file_key_turns_it_on(tmp_path):
    config = tmp_path / "vllm_digest.toml"
    config.write_text("planned_events_per_run = true\n", encoding="utf-8")
    assert settings_at(tmp_path / "home", VLLM_DIGEST_CONFIG=str(config)).planned_events_per_run is True


@pytest.mark.parametrize("on", [False, True], ids=["off", "on"])
def test_what_the_instance_records_for_a_failed_range_run(tmp_path, on):
    """A two-day run of the raw fetch that fails (its sample folder is empty), on a real SQLite instance.
    Off: a planned event per day, and both days marked failed (the UI's "failed" filter finds them).
    On: one planned event for the range, and no day marked failed: the trade-off of the setting."""
    empty = tmp_path / "no-sample"
    empty.mkdir()
    env = {"VLLM_DIGEST_SAMPLE_DIR": str(empty), **({SETTING: "true"} if on else {})}
    settings = settings_at(tmp_path / "home", **env)
    defs = build_definitions(settings)
    assert (os.environ.get(DAGSTER_SWITCH) == "true") is on
    [raw] = [k for k in defs.resolve_all_asset_keys() if k.path[-1] == "raw_activity"]
    with dg.DagsterInstance.from_config(str(project_dagster_home(tmp_path / "dagster_home"))) as instance:
        result = dg.materialize(
            list(defs.assets), selection=[raw], resources=defs.resources, instance=instance, raise_on_error=False,
            tags={"dagster/asset_partition_range_start": DAYS[0], "dagster/asset_partition_range_end": DAYS[-1]},
        )
        assert not result.success
        planned = [r.event_log_entry.dagster_event.event_specific_data for r in instance.get_records_for_run(
            result.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION_PLANNED).records]
        days = daily_partitions(settings)
        status = get_and_update_asset_status_cache_value(instance, raw, days)
        failed = status.deserialize_failed_partition_subsets(days).get_partition_keys() if status else []
    if on:
        [one] = planned
        assert one.partition is None and list(one.partitions_subset.get_partition_keys()) == list(DAYS)
        assert list(failed) == []
    else:
        assert sorted(p.partition for p in planned) == list(DAYS)
        assert sorted(failed) == list(DAYS)


@pytest.mark.parametrize("value", ["true", "", "sometimes"], ids=["on", "off", "bad"])
def test_the_launcher_starts_a_command_with_the_switch_as_set(tmp_path, value):
    """`make dev` starts `dg dev` through the module, so the webserver and the daemon (which create the UI's
    runs, and never load our settings) see the switch. A bad value does not stop it: the code location then
    shows the setting's error in the UI, as without the launcher."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VLLM_DIGEST_", "DAGSTER_"))}
    config = tmp_path / "vllm_digest.toml"
    config.write_text("# empty\n", encoding="utf-8")
    env |= {"VLLM_DIGEST_CONFIG": str(config), SETTING: value}
    shown = subprocess.run(
        [sys.executable, "-m", "vllm_digest.orchestration.planned_events", sys.executable, "-c",
         f"import os; print(os.environ.get({DAGSTER_SWITCH!r}))"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True,
    ).stdout.strip()
    assert shown == ("true" if value == "true" else "None")
