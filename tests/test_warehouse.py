"""Partition writes against real DuckDB files: a failed rebuild keeps the old
rows, and two processes writing one warehouse at once both succeed."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pipeline_helpers import ALL_MODELS, build_sample_day, table_hashes
from vllm_digest.partitions import window_for_day
from vllm_digest.warehouse.layers import CORE_MODELS, day_params
from vllm_digest.warehouse.partitions import replace_partition
from vllm_digest.warehouse.resource import WarehouseResource

ROOT = Path(__file__).resolve().parents[1]


class Injected(RuntimeError):
    pass


@pytest.mark.parametrize("fail_at", ["core_items", "core_people"])
def test_failure_between_delete_and_insert_keeps_previous_rows(make_settings, fail_at):
    settings = make_settings()
    window = window_for_day("2026-03-22", settings)
    build_sample_day(settings, window)
    before = table_hashes(settings)
    assert int(before["core_items"].rsplit(":", 1)[1]) > 0

    def explode(model):
        if model == fail_at:  # core_people is last: the other core tables were already rewritten
            raise Injected(model)

    params = day_params(settings.repos[0], window, settings.raw_dir)
    with WarehouseResource(path=str(settings.warehouse_path)).connect() as con:
        with pytest.raises(Injected):
            replace_partition(con, CORE_MODELS, params, before_insert=explode)
        # the connection is still usable: the transaction was rolled back, not left open
        assert con.execute("SELECT count(*) FROM core_people").fetchone()[0] > 0
    assert table_hashes(settings) == before


_WORKER = textwrap.dedent(
    """
    import sys, warnings
    sys.path[:0] = [{root!r}, {tests!r}]
    warnings.simplefilter("ignore")
    from conftest import materialize
    from vllm_digest.settings import load_settings
    settings = load_settings({{"VLLM_DIGEST_HOME": {home!r}, "VLLM_DIGEST_CUTOFF": "11:39"}})
    materialize(settings, sys.argv[1])
    """
)


def test_two_processes_write_one_warehouse(make_settings, tmp_path):
    settings = make_settings()
    script = tmp_path / "worker.py"
    script.write_text(_WORKER.format(root=str(ROOT), tests=str(ROOT / "tests"), home=str(settings.home)))
    env = {k: v for k, v in os.environ.items() if not k.startswith("VLLM_DIGEST_")}
    days = ("2026-03-21", "2026-03-22")
    procs = [
        subprocess.Popen([sys.executable, str(script), day], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for day in days
    ]
    outputs = [p.communicate(timeout=300)[0].decode(errors="replace") for p in procs]
    for day, proc, out in zip(days, procs, outputs):
        assert proc.returncode == 0, f"{day}:\n{out[-3000:]}"
    with WarehouseResource(path=str(settings.warehouse_path)).connect(read_only=True) as con:
        present = con.execute("SELECT CAST(day AS VARCHAR), new_prs FROM mart_daily_counts ORDER BY 1").fetchall()
    assert [d for d, _ in present] == list(days)
    assert dict(present)["2026-03-22"] == 48
    assert set(table_hashes(settings, ALL_MODELS)) == set(ALL_MODELS)
