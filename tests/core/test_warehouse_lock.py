"""The warehouse lock against real `dagster asset materialize` processes on the project's dagster.yaml:
a run killed with -9 while it writes the warehouse does not block the next one, and a run waiting for a
held warehouse says for whom and stops on SIGTERM."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import dagster as dg
import pytest

from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.core.sqlmodel.state import StateResource
from vllm_digest.report.narrative.cache import TABLES as NARRATIVE_TABLES
from vllm_digest.testing.narrative_replies import GroundedWriter
from vllm_digest.testing.openai_emulator import OpenAIEmulator
from vllm_digest.testing.pipeline import ROOT, project_dagster_home


DAYS = ("2026-03-20", "2026-03-22")
# hang guards only, far above a run of these few days
RUN_GUARD = 300
WAIT_GUARD = 120
STEP_PREFIX = "vllm_project__vllm__"


def _command() -> list[str]:
    dagster = Path(sys.executable).with_name("dagster")
    return [str(dagster), "asset", "materialize", "-m", "vllm_digest.definitions", "--select", "not group:weekly",
            "--partition-range", f"{DAYS[0]}...{DAYS[1]}"]


def _env(tmp_path: Path, **extra: str) -> tuple[dict, Path, Path]:
    dagster_home, home = project_dagster_home(tmp_path / "dagster_home"), tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("VLLM_DIGEST_")}
    env.update({"DAGSTER_HOME": str(dagster_home), "VLLM_DIGEST_HOME": str(home), "VLLM_DIGEST_CUTOFF": "11:39",
                **extra})
    return env, dagster_home, home


def _run(env: dict) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(_command(), cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_GUARD)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"the run never finished:\n{(exc.stderr or b'')[-3000:]!r}") from None
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _start(env: dict, out: Path) -> subprocess.Popen:
    with out.open("wb") as sink:
        return subprocess.Popen(_command(), cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)


def _wait_for(what: str, done, proc: subprocess.Popen, out: Path) -> None:
    deadline = time.monotonic() + WAIT_GUARD
    while not done():
        assert proc.poll() is None, f"ended before {what}:\n{out.read_text(errors='replace')[-3000:]}"
        assert time.monotonic() < deadline, f"never saw {what}:\n{out.read_text(errors='replace')[-3000:]}"
        time.sleep(0.05)


def _writes_warehouse(pid: int, warehouse: Path) -> bool:
    """The process holds DuckDB's own write lock on the warehouse file (a POSIX lock in /proc/locks): it
    is inside a warehouse step, whatever else the pipeline uses to keep writers apart."""
    try:
        st = warehouse.stat()
    except FileNotFoundError:
        return False
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "POSIX" in fields and "WRITE" in fields and str(pid) in fields and inode in fields:
            return True
    return False


def test_a_run_killed_while_writing_the_warehouse_does_not_block_the_next(tmp_path):
    env, dagster_home, home = _env(tmp_path)
    first_out, second_out = tmp_path / "first.log", tmp_path / "second.log"
    first = _start(env, first_out)
    try:
        _wait_for("a warehouse write", lambda: _writes_warehouse(first.pid, home / "warehouse.duckdb"), first, first_out)
    finally:
        first.kill()  # SIGKILL: no clean-up of any kind
        first.wait(timeout=WAIT_GUARD)

    second = _run(env)
    # the new run says whose lock it took over
    assert "took the warehouse lock over from run" in second.stderr
    assert f"(pid {first.pid}, writing since" in second.stderr

    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        runs = sorted(instance.get_runs(), key=lambda r: instance.get_run_record_by_id(r.run_id).create_timestamp)
        assert [r.status for r in runs] == [dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.SUCCESS]
        # the killed run is no longer shown in progress: the step that took the lock over failed it
        failure = instance.all_logs(runs[0].run_id, of_type=dg.DagsterEventType.RUN_FAILURE)
        assert "died while its step" in failure[0].message
    assert (home / "reports" / "vllm-project" / "vllm" / f"{DAYS[1]}.json").is_file()
    # nothing of the holders is left behind
    assert not list((home / "warehouse.duckdb.lock.d").glob("*.json"))


def test_a_run_waiting_for_the_warehouse_names_the_holder_and_stops_on_sigterm(tmp_path):
    env, dagster_home, home = _env(tmp_path)
    out = tmp_path / "run.log"
    warehouse = WarehouseResource(path=str(home / "warehouse.duckdb"))
    with warehouse.connect() as con:  # this test process holds the warehouse open for writing
        con.execute("SELECT 1")
        proc = _start(env, out)
        try:
            _wait_for("the run waiting", lambda: "waiting" in out.read_text(errors="replace"), proc, out)
            (line,) = [x for x in out.read_text(errors="replace").splitlines() if " waiting " in x]
            # Dagster's log line names the waiting step; the message names the holder
            assert f"held by a process outside any run (pid {os.getpid()}, writing since" in line, line
            assert " - INFO - __ASSET_JOB - " in line and f"{STEP_PREFIX}" in line, line
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=WAIT_GUARD)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"SIGTERM did not stop the waiting run:\n{out.read_text(errors='replace')[-3000:]}") from None
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=WAIT_GUARD)
    assert proc.returncode != 0
    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        (run,) = instance.get_runs()
        # the stopped run is finished, not left in progress
        assert run.status in (dg.DagsterRunStatus.CANCELED, dg.DagsterRunStatus.FAILURE), run.status


def _narrative_rows(home: Path) -> dict[str, list[tuple]]:
    """Each verdict table's rows without ``created_at``, the time each verdict was stored."""
    with StateResource(path=str(home / "state.duckdb")).connect(read_only=True) as con:
        return {
            table: con.execute(f"SELECT * EXCLUDE (created_at) FROM {table} ORDER BY key").fetchall()
            for table in NARRATIVE_TABLES
        }


def test_a_run_killed_while_narrating_leaves_the_verdicts_a_clean_run_stores(tmp_path):
    """Killed with -9 while the report step asks the model (after the first day's verdicts were saved), then
    run again: the next run is not blocked, asks only what was not saved, and the verdict tables hold what
    a clean run stores, all but the time each verdict was stored."""
    with OpenAIEmulator(responder=GroundedWriter()) as emulator:
        llm = {"VLLM_DIGEST_LLM_MODEL": "qwen-test", "VLLM_DIGEST_LLM_API_KEY": "sk-test-not-a-secret",
               "VLLM_DIGEST_LLM_BASE_URL": emulator.base_url, "VLLM_DIGEST_LLM_TIMEOUT": "10"}
        clean_env, _, clean_home = _env(tmp_path / "clean", **llm)
        _run(clean_env)
        asked = len(emulator.requests)
        per_day = asked // len(_days())
        env, dagster_home, home = _env(tmp_path / "killed", **llm)
        out = tmp_path / "killed.log"
        before = len(emulator.requests)
        killed = _start(env, out)
        try:
            # the second day's first request: the first day's verdicts were saved before it was sent
            _wait_for("the second day narrated", lambda: len(emulator.requests) - before > per_day, killed, out)
        finally:
            killed.kill()
            killed.wait(timeout=WAIT_GUARD)
        asked_by_killed = len(emulator.requests) - before
        _run(env)
        asked_again = len(emulator.requests) - before - asked_by_killed

    assert 0 < asked_again < asked  # the saved day was served from the cache
    clean, rerun = _narrative_rows(clean_home), _narrative_rows(home)
    assert clean["narrative_cache"] and len(clean["narrative_cache"]) == asked
    assert rerun == clean


def _days() -> list[str]:
    first = dt.date.fromisoformat(DAYS[0])
    return [str(first + dt.timedelta(days=i)) for i in range((dt.date.fromisoformat(DAYS[1]) - first).days + 1)]


class HeldReceiver:
    """A webhook receiver that holds each request unanswered until ``release`` (a chat server that is slow
    to answer), and says whether a request is being held."""

    def __init__(self):
        self.arrived, self.released = threading.Event(), threading.Event()
        self.holding = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.holding += 1
                receiver.arrived.set()
                receiver.released.wait(WAIT_GUARD)
                try:
                    self.send_response(200)
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"ok")
                except OSError:
                    pass  # the client gave up waiting
                finally:
                    receiver.holding -= 1

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def __enter__(self) -> "HeldReceiver":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


def test_a_delivery_waiting_on_the_network_keeps_no_other_run_from_the_warehouse(tmp_path):
    """While one run's delivery waits for a chat server's answer, a second run on the same instance writes
    the warehouse and finishes; the delivery is then answered and recorded."""
    with HeldReceiver() as receiver:
        env, dagster_home, home = _env(tmp_path, VLLM_DIGEST_WEBHOOK_URL=receiver.url(), VLLM_DIGEST_WEBHOOK_KIND="json")
        out = tmp_path / "delivering.log"
        delivering = _start(env, out)
        try:
            _wait_for("the delivery's request", receiver.arrived.is_set, delivering, out)
            writer = subprocess.run(
                [*_command()[:-4], "--select", "key:vllm_project/vllm/stg_issues", "--partition", DAYS[1]],
                cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_GUARD,
            )
            # the delivery was still waiting for its answer when the other run was done
            still_waiting = receiver.holding == 1 and delivering.poll() is None
            receiver.released.set()
            delivering.wait(timeout=RUN_GUARD)
        finally:
            if delivering.poll() is None:
                delivering.kill()
                delivering.wait(timeout=WAIT_GUARD)
    assert writer.returncode == 0, writer.stderr[-3000:]
    assert still_waiting, writer.stderr[-3000:]
    assert delivering.returncode == 0, out.read_text(errors="replace")[-3000:]
    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        assert {r.status for r in instance.get_runs()} == {dg.DagsterRunStatus.SUCCESS}


_OPENER = """
import sys
sys.path[:0] = [{root!r}]
from vllm_digest.core.sqlmodel.lock import WarehouseBusy
from vllm_digest.core.sqlmodel.resource import WarehouseResource
from vllm_digest.core.sqlmodel.state import StateResource
try:
    with WarehouseResource(path=sys.argv[1], lock_wait_seconds=float(sys.argv[3])).connect(read_only=sys.argv[2] == "read"):
        print("opened")
except WarehouseBusy as exc:
    print(exc)
"""


def test_readers_share_the_lock_a_writer_waits_for_them_and_a_process_never_waits_for_itself(tmp_path):
    path = tmp_path / "warehouse.duckdb"
    script = tmp_path / "opener.py"
    script.write_text(_OPENER.format(root=str(ROOT)))
    warehouse = WarehouseResource(path=str(path))

    def other_process(mode: str, wait: str) -> str:
        return subprocess.run([sys.executable, str(script), str(path), mode, wait], capture_output=True, text=True,
                              timeout=WAIT_GUARD, check=True).stdout.strip()

    with warehouse.connect():
        pass  # creates the file
    with warehouse.connect(read_only=True):
        assert other_process("read", "5") == "opened"
        busy = other_process("write", "0.5")
        assert f"to write the warehouse {str(path)!r}, held by a process outside any run (pid {os.getpid()}, reading" in busy
        assert "gave up after the configured 0.5 s (lock_wait_seconds)" in busy
        # a second connection of this process to read joins the lock it holds
        with warehouse.connect(read_only=True) as con:
            assert con.execute("SELECT 1").fetchone() == (1,)
    with warehouse.connect() as con, warehouse.connect() as nested:
        nested.execute("CREATE TABLE IF NOT EXISTS probe (x INTEGER)")
    assert other_process("write", "5") == "opened"
    assert not list((tmp_path / "warehouse.duckdb.lock.d").glob("*.json"))


_TRY_WRITE_LOCK = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("taken")
except BlockingIOError:
    print("busy")
"""


def test_the_lock_stays_held_until_the_last_connection_of_any_thread_closes(tmp_path):
    path = tmp_path / "warehouse.duckdb"
    warehouse = WarehouseResource(path=str(path))
    with warehouse.connect():
        pass  # creates the file

    def other_process_can_write() -> bool:
        # another process asking for the flock to write, without waiting
        out = subprocess.run([sys.executable, "-c", _TRY_WRITE_LOCK, str(path) + ".lock"], capture_output=True,
                             text=True, timeout=WAIT_GUARD, check=True).stdout.strip()
        return out == "taken"

    a_open, b_open, a_closed, b_may_close, b_closed = (threading.Event() for _ in range(5))
    read_by_b = []

    def thread_a():
        with warehouse.connect(read_only=True):
            a_open.set()
            b_open.wait(WAIT_GUARD)
        a_closed.set()

    def thread_b():
        a_open.wait(WAIT_GUARD)
        with warehouse.connect(read_only=True) as con:  # joins the lock thread A took
            b_open.set()
            b_may_close.wait(WAIT_GUARD)
            read_by_b.append(con.execute("SELECT 1").fetchone())
        b_closed.set()

    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for t in threads:
        t.start()
    try:
        assert a_closed.wait(WAIT_GUARD)
        # A, which took the lock, has closed; B still reads: no other process may write
        assert not other_process_can_write()
    finally:
        b_may_close.set()
        for t in threads:
            t.join(WAIT_GUARD)
    assert b_closed.is_set() and read_by_b == [(1,)]
    assert other_process_can_write()
    assert not list((tmp_path / "warehouse.duckdb.lock.d").glob("*.json"))
    # a fresh hold after that is counted on its own: nesting and closing leave it free again
    with warehouse.connect(read_only=True), warehouse.connect(read_only=True):
        assert not other_process_can_write()
    assert other_process_can_write()


def test_a_read_only_connection_inside_a_writable_one_is_refused_clearly(tmp_path):
    path = tmp_path / "warehouse.duckdb"
    warehouse = WarehouseResource(path=str(path))
    with warehouse.connect() as con:
        con.execute("CREATE TABLE IF NOT EXISTS probe (x INTEGER)")
        with pytest.raises(RuntimeError, match=r"a read-only connection to the warehouse .* was asked for while "
                                               r"this process has it open writable"):
            with warehouse.connect(read_only=True):
                pass
        # the writable connection goes on, and still holds the lock
        con.execute("INSERT INTO probe VALUES (1)")
    with warehouse.connect(read_only=True) as con:
        assert con.execute("SELECT count(*) FROM probe").fetchone() == (1,)


def test_terminate_in_the_ui_stops_a_run_waiting_for_the_warehouse(tmp_path):
    """On a real `dagster dev`: a run whose warehouse step waits for the lock (held here) is stopped by the
    UI's Terminate (the terminateRun mutation the button sends) and ends canceled."""
    from vllm_digest.testing.dagster_dev import DagsterDev

    prefix = ("vllm_project", "vllm")
    config = tmp_path / "vllm_digest.toml"
    config.write_text("# empty: no developer config file applies\n", encoding="utf-8")
    home = tmp_path / "home"
    env = {"VLLM_DIGEST_CONFIG": str(config), "VLLM_DIGEST_HOME": str(home), "VLLM_DIGEST_SOURCE": "sample",
           "VLLM_DIGEST_CUTOFF": "11:39"}
    dagster_home = tmp_path / "dagster_home"
    dev = DagsterDev.start(dagster_home, env, tmp_path / "dagster-dev.log")
    try:
        dev.wait_for_server()
        dev.wait_for_location(dev.location)
        with WarehouseResource(path=str(home / "warehouse.duckdb")).connect():
            backfill = dev.launch_backfill([(*prefix, "raw_activity"), (*prefix, "stg_issues")], DAYS[1], DAYS[1])
            with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
                def waiting_run():
                    for run in instance.get_runs(dg.RunsFilter(tags={"dagster/backfill": backfill})):
                        if any(e.user_message.startswith("waiting ") for e in instance.all_logs(run.run_id)):
                            return run.run_id
                    return None

                deadline = time.monotonic() + RUN_GUARD
                while (run_id := waiting_run()) is None:
                    assert time.monotonic() < deadline, dev.fail("no run of the backfill waited for the warehouse")
                    time.sleep(0.5)
                answer = dev.graphql(
                    """mutation($id: String!) { terminateRun(runId: $id) { __typename
                        ... on TerminateRunFailure { message } ... on PythonError { message } } }""",
                    {"id": run_id},
                )["terminateRun"]
                assert answer["__typename"] == "TerminateRunSuccess", answer
                while (status := instance.get_run_by_id(run_id).status) not in (
                        dg.DagsterRunStatus.CANCELED, dg.DagsterRunStatus.FAILURE):
                    assert time.monotonic() < deadline, dev.fail(f"the terminated run is still {status}")
                    time.sleep(0.5)
        assert status == dg.DagsterRunStatus.CANCELED
    finally:
        dev.stop()
