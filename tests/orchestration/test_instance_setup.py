"""`make instance` (run by `make dev` and `make demo`) creates the Dagster instance's storages once, so that
commands hitting a fresh DAGSTER_HOME at once cannot stamp two schema heads into it (Dagster's SQLite
storage-creation race: two heads in 2 of 6 trials of two processes opening a fresh home together)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from vllm_digest.testing.pipeline import ROOT

# the SQLite files of the project's dagster.yaml (Dagster's default local storage) that carry a schema revision
STORAGES = ("history/runs.db", "history/runs/index.db", "schedules/schedules.db")
RAW = "vllm_project/vllm/raw_activity"


def heads(home: Path) -> dict[str, list[str]]:
    """Each storage file's rows of alembic_version, read with plain sqlite3 (missing file: no entry)."""
    found = {}
    for name in STORAGES:
        if (home / name).is_file():
            with sqlite3.connect(home / name) as con:
                found[name] = sorted(v for (v,) in con.execute("SELECT version_num FROM alembic_version"))
    return found


def make_instance(home: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", "-s", "instance", f"DAGSTER_HOME={home}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_make_instance_creates_every_storage_with_one_head_then_two_first_commands_at_once_work(tmp_path):
    home = tmp_path / "dagster_home"
    made = make_instance(home)
    assert made.returncode == 0, made.stderr
    # the setup step itself created and stamped every storage: no later command is the first to open the home
    created = heads(home)
    assert set(created) == set(STORAGES), created
    assert all(len(rows) == 1 for rows in created.values()), created

    # two of the README's first commands (one day's fetch each) start at once on the just-set-up home
    env = {**os.environ, "DAGSTER_HOME": str(home), "VLLM_DIGEST_HOME": str(tmp_path / "data"),
           "VLLM_DIGEST_CUTOFF": "11:39"}
    dagster = Path(sys.executable).with_name("dagster")

    def materialize(day: str) -> subprocess.Popen:
        return subprocess.Popen([str(dagster), "asset", "materialize", "-m", "vllm_digest.definitions",
                                 "--select", RAW, "--partition", day],
                                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    both = [materialize("2026-03-20"), materialize("2026-03-21")]
    outs = [p.communicate(timeout=300)[0] for p in both]
    assert [p.returncode for p in both] == [0, 0], "\n".join(o[-2000:] for o in outs)
    assert heads(home) == created
    # and the instance keeps working for the next command
    third = materialize("2026-03-22")
    out = third.communicate(timeout=300)[0]
    assert third.returncode == 0, out[-2000:]


_SETUP = """
import os, sys, time
from vllm_digest.orchestration.instance import prepared_instance
while not os.path.exists(sys.argv[1]):
    time.sleep(0.001)
prepared_instance()
"""


def test_two_setups_of_one_fresh_home_at_once_stamp_one_head(tmp_path):
    """`make dev` and `make demo` started together both set the instance up: the lock makes one of them
    create the storages. Both processes are released at one moment, after their imports."""
    script = tmp_path / "setup.py"
    script.write_text(_SETUP)
    for trial in range(3):
        home = tmp_path / f"home{trial}"
        home.mkdir()
        (home / "dagster.yaml").write_bytes((ROOT / "dagster.yaml").read_bytes())
        go = tmp_path / f"go{trial}"
        env = {**os.environ, "DAGSTER_HOME": str(home)}
        procs = [subprocess.Popen([sys.executable, str(script), str(go)], cwd=ROOT, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for _ in range(2)]
        time.sleep(3)  # both are past their imports, polling for the file
        go.touch()
        outs = [p.communicate(timeout=120)[0] for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        found = heads(home)
        assert set(found) == set(STORAGES) and all(len(rows) == 1 for rows in found.values()), (trial, found)


def test_a_home_broken_by_the_race_is_named_with_the_way_out(tmp_path):
    home = tmp_path / "dagster_home"
    assert make_instance(home).returncode == 0
    with sqlite3.connect(home / "history/runs.db") as con:
        # what the race leaves: a second revision beside the head
        con.execute("INSERT INTO alembic_version VALUES ('000000000000')")
    again = make_instance(home)
    assert again.returncode != 0
    assert f"DAGSTER_HOME {home}: the instance cannot be opened" in again.stderr
    assert "more than one head present" in again.stderr and "make instance" in again.stderr
    assert "Traceback" not in again.stderr
