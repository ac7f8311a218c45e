"""A bad setting stops every entry point with ONE line: where the value came from (the variable, or the
config file and key), the value, and what is allowed; no traceback, on the CLI (`dagster`, `dg`, the demo)
nor in the UI's code location error under a real `dagster dev`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vllm_digest.testing.pipeline import ROOT, project_dagster_home

BIN = Path(sys.executable).parent
# (variable, bad value, what the line says is allowed)
BAD = [
    ("VLLM_DIGEST_CUTOFF", "25:00", "HH:MM (00:00 to 23:59)"),
    ("VLLM_DIGEST_SOURCE", "gitub", "['sample', 'github']"),
    ("VLLM_DIGEST_TIMEZONE", "Asia/Shanghia", "IANA timezone"),
]
COMMANDS = {
    "dagster": [str(BIN / "dagster"), "asset", "materialize", "-m", "vllm_digest.definitions", "--select", "*",
                "--partition", "2026-03-21"],
    "dg check": [str(BIN / "dg"), "check", "defs"],
    "dg launch": [str(BIN / "dg"), "launch", "--assets", "not group:weekly", "--partition", "2026-03-21"],
    "demo": [sys.executable, "-m", "vllm_digest.demo"],
}


def run(tmp_path: Path, command: list[str], **settings: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VLLM_DIGEST_", "DAGSTER_", "GITHUB_"))}
    env.update(DAGSTER_HOME=str(project_dagster_home(tmp_path / "dagster_home")),
               VLLM_DIGEST_HOME=str(tmp_path / "home"), **settings)
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def the_one_line(proc: subprocess.CompletedProcess, value: str) -> str:
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "Traceback" not in out and 'File "' not in out, out
    lines = [line for line in out.splitlines() if value in line]
    assert len(lines) == 1, out
    return lines[0]


@pytest.mark.parametrize("variable,value,allowed", BAD, ids=[b[0] for b in BAD])
def test_a_bad_variable_is_one_line_naming_it_on_the_dagster_cli(tmp_path, variable, value, allowed):
    line = the_one_line(run(tmp_path, COMMANDS["dagster"], **{variable: value}), value)
    assert f"{variable}: " in line and repr(value) in line and allowed in line, line


@pytest.mark.parametrize("command", ["dg check", "dg launch", "demo"])
def test_a_bad_variable_is_one_line_on_dg_and_the_demo(tmp_path, command):
    line = the_one_line(run(tmp_path, COMMANDS[command], VLLM_DIGEST_CUTOFF="25:00"), "25:00")
    assert "VLLM_DIGEST_CUTOFF: cutoff '25:00' is not a local time HH:MM (00:00 to 23:59)" in line, line


def test_a_bad_file_value_names_the_file_and_the_key(tmp_path):
    config = tmp_path / "digest.toml"
    config.write_text('timezone = "Europe/Pariss"\n', encoding="utf-8")
    line = the_one_line(run(tmp_path, COMMANDS["dg check"], VLLM_DIGEST_CONFIG=str(config)), "Europe/Pariss")
    assert f"key 'timezone' in '{config}': timezone 'Europe/Pariss' is not a known IANA timezone" in line, line


def test_the_variable_wins_over_the_file_and_is_the_one_named(tmp_path):
    from vllm_digest.core.config.settings import load_settings
    from vllm_digest.core.config.values import SettingsError

    config = tmp_path / "digest.toml"
    config.write_text('cutoff = "11:99"\n', encoding="utf-8")
    with pytest.raises(SettingsError) as err:
        load_settings({"VLLM_DIGEST_CONFIG": str(config), "VLLM_DIGEST_CUTOFF": "24:00"})
    assert str(err.value).startswith("VLLM_DIGEST_CUTOFF: cutoff '24:00'")
    with pytest.raises(SettingsError) as err:
        load_settings({"VLLM_DIGEST_CONFIG": str(config)})
    assert str(err.value) == f"key 'cutoff' in '{config}': cutoff '11:99' is not a local time HH:MM (00:00 to 23:59)"


def test_values_that_failed_while_building_are_one_line_too(tmp_path):
    """A taxonomy that is not TOML was read only when the definitions were built, and a very long timezone
    failed inside zoneinfo ("File name too long"): both were tracebacks naming no setting."""
    taxonomy = tmp_path / "passwd"
    taxonomy.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    line = the_one_line(run(tmp_path, COMMANDS["dg check"], VLLM_DIGEST_TAXONOMY=str(taxonomy)), str(taxonomy))
    assert f"VLLM_DIGEST_TAXONOMY: taxonomy '{taxonomy}': not valid TOML" in line, line
    zone = "Europe/" + "x" * 298
    line = the_one_line(run(tmp_path, COMMANDS["dg check"], VLLM_DIGEST_TIMEZONE=zone), "VLLM_DIGEST_TIMEZONE")
    assert "is not a known IANA timezone" in line and "(305 characters)" in line and zone not in line, line


@pytest.mark.e2e
def test_the_ui_code_location_error_is_the_line_itself(tmp_path):
    """Deployment -> View error: the location's load error is the one line, with no stack under it."""
    from vllm_digest.testing.dagster_dev import DagsterDev

    server = DagsterDev.start(
        tmp_path / "dagster_home",
        {"VLLM_DIGEST_HOME": str(tmp_path / "home"), "VLLM_DIGEST_CUTOFF": "25:00"},
        tmp_path / "dagster-dev.log",
    )
    query = """{ workspaceOrError { ... on Workspace { locationEntries { name loadStatus
        locationOrLoadError { __typename ... on PythonError { message stack cause { message } } } } } } }"""
    try:
        server.wait_for_server()
        import time

        deadline = time.monotonic() + 120  # a guard against a hang, not a timed assertion
        entry = None
        while time.monotonic() < deadline:
            entries = server.graphql(query)["workspaceOrError"]["locationEntries"]
            entry = next((e for e in entries if e["name"] == "vllm_digest"), None)
            if entry and entry["loadStatus"] == "LOADED":
                break
            time.sleep(0.5)
        error = entry["locationOrLoadError"]
        assert error["__typename"] == "PythonError", server.fail(f"no load error: {entry}")
        first = error["message"].strip().splitlines()[0]
        assert "VLLM_DIGEST_CUTOFF: cutoff '25:00' is not a local time HH:MM (00:00 to 23:59)" in first, error
        assert error["stack"] == [] and error["cause"] is None, error
    finally:
        server.stop()
