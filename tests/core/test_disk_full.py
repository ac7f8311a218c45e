"""A full disk is reported as a full disk: every write of ours whose COMMIT fails raises the COMMIT's own
error ("No space left on device"), never the rollback's "cannot rollback - no transaction is active".

The data home lives on a small tmpfs mounted for the test (root only; elsewhere the tests skip, saying
why), filled with a filler file once the day is built, so the next COMMIT cannot write its WAL.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import subprocess
import uuid
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from vllm_digest.analytics.build import ANALYTICS_MODELS
from vllm_digest.core.sqlmodel.state import StateResource
from vllm_digest.core.sqlmodel.transaction import transaction
from vllm_digest.definitions import build_definitions
from vllm_digest.delivery import log
from vllm_digest.report.narrative.cache import BatchedStore
from vllm_digest.testing.pipeline import materialize, settings_at
from vllm_digest.warehouse.layers import CORE_MODELS

DAY = "2026-03-05"
ENOSPC = "No space left on device"
ROLLBACK = "cannot rollback"


@pytest.fixture
def tmpfs(tmp_path):
    """A 48 MiB tmpfs at ``tmp_path/tmpfs``, unmounted afterwards."""
    mount_point = tmp_path / "tmpfs"
    mount_point.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs to fill needs root (mount -t tmpfs)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(mount_point)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"this machine refuses mount -t tmpfs: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill(folder: Path, leave: int = 256 << 10) -> None:
    """Write a filler file in ``folder`` until its file system is full, then free ``leave`` bytes of it: room
    for the small files (the lock's holder record), none for a transaction's WAL."""
    block = b"\0" * (1 << 16)
    filler = folder / f"filler-{uuid.uuid4().hex}"
    with open(filler, "wb") as out:
        try:
            while True:
                out.write(block)
                out.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    os.truncate(filler, max(0, filler.stat().st_size - leave))


def assert_disk_full(message: str) -> None:
    assert ENOSPC in message, message
    assert ROLLBACK not in message.splitlines()[0], message


def test_a_failed_commit_raises_its_own_error_not_the_rollbacks(tmpfs):
    con = duckdb.connect(str(tmpfs / "t.duckdb"))
    con.execute("CREATE TABLE t (a VARCHAR)")
    con.execute("CHECKPOINT")
    fill(tmpfs)
    with pytest.raises(duckdb.Error) as caught:
        with transaction(con):
            con.execute("INSERT INTO t SELECT md5(i::VARCHAR) FROM range(200000) AS r(i)")
    assert_disk_full(str(caught.value))
    # the rollback's own complaint is kept as a note, not as the error
    assert any(ROLLBACK in note for note in getattr(caught.value, "__notes__", []))
    assert con.execute("SELECT count(*) FROM t").fetchone() == (0,)


def test_the_delivery_log_and_the_narrative_cache_report_a_full_disk(tmpfs):
    state = StateResource(path=str(tmpfs / "state.duckdb"))
    with state.connect():
        pass  # created whole, checkpointed
    fill(tmpfs)
    now = dt.datetime(2026, 3, 23, tzinfo=dt.timezone.utc)
    with state.connect() as con:
        with pytest.raises(duckdb.Error) as caught:
            log.record(con, None, "o/r", DAY, "webhook:json", "h" * 64, "new", "x" * 2_000_000, log.SENT, now)
        assert_disk_full(str(caught.value))
        store = BatchedStore()
        store.put("k", model="m", section="summary", language="en", text="y" * 2_000_000,
                  tokens_in=1, tokens_out=1)
        with pytest.raises(duckdb.Error) as caught:
            store.flush(con)
        assert_disk_full(str(caught.value))
        assert con.execute("SELECT count(*) FROM narrative_cache").fetchone() == (0,)


def _step_failures(result) -> dict[str, str]:
    """step -> the headline of its failure: the error our code raised, which Dagster shows first under its
    own "Error occurred while executing op" wrapper."""
    out = {}
    for event in result.get_step_failure_events():
        error = event.event_specific_data.error
        out[event.step_key] = (error.cause or error).message
    return out


@pytest.mark.parametrize("models", [CORE_MODELS, ANALYTICS_MODELS], ids=["core", "analytics"])
def test_a_full_disk_is_the_headline_of_the_failed_step(tmpfs, models):
    """The core and the analytics step, re-run on a day once the disk holds room to open the warehouse
    (a few KiB of WAL) but not to commit the layer (~100 KiB a day for core, more for analytics)."""
    settings = settings_at(tmpfs / "home")
    materialize(settings, DAY)
    fill(tmpfs, leave=40 << 10)
    defs = build_definitions(settings)
    prefix = settings.repos[0].key_prefix
    result = dg.materialize(
        [*defs.assets, *defs.asset_checks], selection=[dg.AssetKey([*prefix, m]) for m in models],
        resources=defs.resources, instance=dg.DagsterInstance.ephemeral(), partition_key=DAY, raise_on_error=False,
    )
    assert not result.success
    failures = _step_failures(result)
    assert failures, "no step failed on a full disk"
    for step, message in failures.items():
        assert_disk_full(message)
