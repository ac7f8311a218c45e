"""A real `dagster dev` for end-to-end tests: started in its own process
group, driven over HTTP and GraphQL, and stopped with everything it spawned
(webserver, daemon, code server, run workers), also when a test fails.

The GraphQL used here is the schema of the installed dagster-graphql 1.13
(`python -c "from dagster_graphql.schema import create_schema; print(create_schema())"`).
"""

from __future__ import annotations

import ctypes
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from vllm_digest.testing.net import free_port
from vllm_digest.testing.pipeline import ROOT, project_dagster_home
# Liveness bounds, not speed assertions: past them something hangs, and the
# error says what and shows the server's log.
START_TIMEOUT_S = 180
BACKFILL_TIMEOUT_S = 600
QUIET_TIMEOUT_S = 900
STOP_TIMEOUT_S = 90
POLL_S = 1.0
QUIET_POLL_S = 2.0
# a run's endTime is its RUN_SUCCESS event's time (dagster's run storage takes the event's timestamp), which
# the sensor's cursor holds as ISO text to the microsecond: a margin for that round trip, far below the gap
# between two runs' ends
END_SKEW_S = 0.001
ACTIVE_STATUSES = "[QUEUED, NOT_STARTED, STARTING, STARTED, CANCELING]"
# settings the server must not inherit from the developer's shell
_OWN_ENV_PREFIXES = ("VLLM_DIGEST_", "GITHUB_", "DAGSTER_")

BACKFILL_DONE = {"COMPLETED", "COMPLETED_SUCCESS", "COMPLETED_FAILED", "FAILED", "CANCELED"}
RUN_FAILED = {"FAILURE", "CANCELED"}


def sensor_caught_up(cursor: str | None, ends: list[float]) -> bool:
    """Whether a run status sensor (ours watch successes) has read the end of the last run in ``ends``
    (epoch seconds). It reads the runs that ended one per tick (one every 30 s: Dagster's run status
    sensor returns after the first run its function answers for), so "it ticked after the last run
    ended" is not enough: its cursor holds the time of the last run-status event it read
    (``record_timestamp``, ISO)."""
    if not ends:
        return True
    if not cursor:
        return False
    read = json.loads(cursor).get("record_timestamp")
    return read is not None and dt.datetime.fromisoformat(read).timestamp() >= max(ends) - END_SKEW_S


class DagsterDevError(AssertionError):
    """The server did not do what the test waited for; the message holds its log's tail."""


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of a process group, read from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # fields after the parenthesised command: state ppid pgrp ...
        state, _ppid, pgrp = stat.rsplit(")", 1)[1].split()[:3]
        if int(pgrp) == pgid and state != "Z":
            members.append(int(entry.name))
    return members


_PR_SET_PDEATHSIG = 1


def _reset_signals_and_detach() -> None:
    # Its own session, so teardown can signal the whole tree. SIGINT back to
    # its default: a shell running us in the background (CI, nohup) ignores
    # it, children inherit that, and `dagster dev` would then ignore Ctrl-C.
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    # If pytest itself is killed (no teardown runs), the kernel sends SIGTERM,
    # which dagster dev treats as Ctrl-C and shuts its services down.
    try:
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


@dataclass
class Backfill:
    id: str
    status: str
    runs: list[dict]
    partition_names: list[str]

    @property
    def run_ids(self) -> set[str]:
        return {r["runId"] for r in self.runs}


@dataclass
class DagsterDev:
    url: str
    process: subprocess.Popen
    log_path: Path
    http: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=60))
    location: str = "vllm_digest"

    # ------------------------------------------------------------ lifecycle
    @classmethod
    def start(
        cls, dagster_home: Path, env: dict[str, str], log_path: Path, command: list[str] | None = None
    ) -> "DagsterDev":
        """`dagster dev -w workspace.yaml` (or ``command``, e.g. ``dg dev``) on a free loopback port,
        with the project's dagster.yaml copied into ``dagster_home`` and only ``env`` for our settings."""
        project_dagster_home(dagster_home)
        port = free_port()
        base = {k: v for k, v in os.environ.items() if not k.startswith(_OWN_ENV_PREFIXES)}
        full_env = {**base, **env, "DAGSTER_HOME": str(dagster_home)}
        log = log_path.open("wb")
        command = command or [sys.executable, "-m", "dagster", "dev", "-w", "workspace.yaml"]
        process = subprocess.Popen(
            [*command, "-h", "127.0.0.1", "-p", str(port)],
            cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            preexec_fn=_reset_signals_and_detach,
        )
        log.close()
        return cls(url=f"http://127.0.0.1:{port}", process=process, log_path=log_path)

    def stop(self) -> list[int]:
        """Ctrl-C (dagster dev then stops webserver and daemon itself); whatever
        is left of the group after STOP_TIMEOUT_S is killed. Returns the pids
        that had to be killed."""
        self.http.close()
        pgid = self.process.pid
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pass
        deadline = time.monotonic() + 10
        while group_members(pgid) and time.monotonic() < deadline:
            time.sleep(0.2)
        killed = group_members(pgid)
        if killed:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.process.poll() is None:
            self.process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while group_members(pgid) and time.monotonic() < deadline:
            time.sleep(0.2)
        return killed

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return "(no log)"

    def fail(self, message: str) -> DagsterDevError:
        return DagsterDevError(f"{message}\n--- dagster dev log (tail) ---\n{self.log_tail()}")

    # ------------------------------------------------------------- waiting
    def wait_for_server(self, timeout: float = START_TIMEOUT_S) -> dict:
        """The webserver's /server_info (its versions) once it answers."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise self.fail(f"dagster dev exited with code {self.process.returncode} before serving")
            try:
                response = self.http.get(f"{self.url}/server_info", timeout=5)
                if response.status_code == 200:
                    return response.json()
            except httpx.TransportError:
                pass
            time.sleep(POLL_S)
        raise self.fail(f"{self.url}/server_info did not answer within {timeout:.0f} s")

    def wait_for_location(self, name: str, timeout: float = START_TIMEOUT_S) -> dict:
        """The code location entry once it is LOADED; a load error fails at once, with its message."""
        query = """{ workspaceOrError { __typename
            ... on Workspace { locationEntries { name loadStatus
                locationOrLoadError { __typename
                    ... on RepositoryLocation { name repositories { name } }
                    ... on PythonError { message stack } } } }
            ... on PythonError { message } } }"""
        deadline = time.monotonic() + timeout
        seen = None
        while time.monotonic() < deadline:
            workspace = self.graphql(query)["workspaceOrError"]
            entries = {e["name"]: e for e in workspace.get("locationEntries", [])}
            seen = entries.get(name)
            if seen and seen["loadStatus"] == "LOADED":
                loaded = seen["locationOrLoadError"]
                if loaded["__typename"] != "RepositoryLocation":
                    raise self.fail(f"code location {name!r} failed to load: {loaded.get('message')}")
                return loaded
            time.sleep(POLL_S)
        raise self.fail(f"code location {name!r} not loaded within {timeout:.0f} s (last seen: {seen})")

    # ------------------------------------------------------------- GraphQL
    def graphql(self, query: str, variables: dict | None = None) -> dict:
        response = self.http.post(f"{self.url}/graphql", json={"query": query, "variables": variables or {}})
        if response.status_code != 200:
            raise self.fail(f"POST /graphql answered {response.status_code}: {response.text[:2000]}")
        body = response.json()
        if body.get("errors"):
            raise self.fail(f"GraphQL errors: {body['errors']}")
        return body["data"]

    def asset_nodes(self) -> dict[tuple[str, ...], dict]:
        """Every asset of the workspace by key path, with its group, upstream keys,
        partitioning, backfill policy and freshness policy as the UI reads them."""
        data = self.graphql("""{ assetNodes {
            assetKey { path } groupName isPartitioned
            dependencyKeys { path }
            backfillPolicy { policyType }
            internalFreshnessPolicy { __typename
                ... on CronFreshnessPolicy { deadlineCron lowerBoundDeltaSeconds timezone } } } }""")
        return {
            tuple(n["assetKey"]["path"]): {**n, "deps": {tuple(d["path"]) for d in n["dependencyKeys"]}}
            for n in data["assetNodes"]
        }

    def materializations(self, key: tuple[str, ...]) -> list[dict]:
        """The asset's materializations, newest first: runId, partition, timestamp (ms, as a string)."""
        data = self.graphql(
            """query($key: [AssetKeyInput!]) { assetNodes(assetKeys: $key) {
                assetMaterializations { runId partition timestamp } } }""",
            {"key": [{"path": list(key)}]},
        )
        [node] = data["assetNodes"]
        return node["assetMaterializations"]

    def materializations_in(self, key: tuple[str, ...], backfill: Backfill) -> list[dict]:
        """The asset's materializations that the backfill's runs wrote."""
        return [m for m in self.materializations(key) if m["runId"] in backfill.run_ids]

    def run_backfill(self, keys: list[tuple[str, ...]], first: str, last: str,
                     timeout: float = BACKFILL_TIMEOUT_S, shape: str = "ui") -> Backfill:
        """``launch_backfill``, then wait until the daemon finishes it."""
        return self.wait_for_backfill(self.launch_backfill(keys, first, last, shape), timeout)

    def launch_backfill(self, keys: list[tuple[str, ...]], first: str, last: str, shape: str = "ui") -> str:
        """Launch a backfill of ``keys`` over the days first..last through launchPartitionBackfill, in one
        of the three request shapes the UI sends, and wait until the daemon finishes it:

        - ``"ui"``: ``assetSelection`` + ``partitionNames``, what *Lineage* / *Catalog* "Materialize" and an
          asset's own page send (unpartitioned keys in the selection are materialized once);
        - ``"by_assets"``: ``partitionsByAssets``, one partition range per partitioned key;
        - ``"partition_set"``: a partition-set backfill of the job whose assets ``keys`` are, as the job's
          *Partitions* page sends it (``keys`` must then be ``[("job", <job name>)]``).

        Returns the backfill's id. The daemon looks at backfills every 30 s, so tests that launch
        several independent ones at once and then wait for each pay that latency once.
        """
        days = self.partition_keys_between(first, last)
        if shape == "ui":
            params = {"assetSelection": [{"path": list(k)} for k in keys], "partitionNames": days}
        elif shape == "by_assets":
            nodes = self.asset_nodes()
            return self.launch_ranges_backfill({k: (first, last) if nodes[k]["isPartitioned"] else None for k in keys},
                                               f"e2e {shape} {first}...{last}")
        elif shape == "partition_set":
            [(_, job)] = keys
            params = {"selector": {"partitionSetName": f"{job}_partition_set",
                                   "repositorySelector": {"repositoryLocationName": self.location,
                                                          "repositoryName": "__repository__"}},
                      "partitionNames": days}
        else:
            raise ValueError(f"unknown backfill shape {shape!r}")
        return self._launch(params, shape, f"e2e {shape} {first}...{last}")

    def launch_ranges_backfill(self, ranges: dict[tuple[str, ...], tuple[str, str] | None], title: str) -> str:
        """A ``partitionsByAssets`` backfill (the request shape of the ``"by_assets"`` origin) with a range of
        its own for each key: ``(first, last)`` partition keys, or None for an unpartitioned key. One backfill
        can so hold days and the weeks over them (weekly keys are Mondays), and the daemon orders their runs
        by the dependencies. Returns the backfill's id."""
        params = {"partitionsByAssets": [
            {"assetKey": {"path": list(k)},
             **({"partitions": {"range": {"start": span[0], "end": span[1]}}} if span else {})}
            for k, span in ranges.items()
        ]}
        return self._launch(params, "by_assets", title)

    def _launch(self, params: dict, shape: str, title: str) -> str:
        launched = self.graphql(
            """mutation($params: LaunchBackfillParams!) { launchPartitionBackfill(backfillParams: $params) {
                __typename ... on LaunchBackfillSuccess { backfillId }
                ... on Error { message } ... on PythonError { message stack } } }""",
            {"params": {**params, "title": title}},
        )["launchPartitionBackfill"]
        if launched["__typename"] != "LaunchBackfillSuccess":
            raise self.fail(f"launchPartitionBackfill ({shape}) refused: {launched}")
        return launched["backfillId"]

    def partition_keys_between(self, first: str, last: str) -> list[str]:
        """The daily partition keys first..last, as the UI's range picker lists them (keys are YYYY-MM-DD)."""
        start, end = dt.date.fromisoformat(first), dt.date.fromisoformat(last)
        return [(start + dt.timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]

    def wait_until_quiet(self, sensor: str, timeout: float = QUIET_TIMEOUT_S) -> float:
        """Until no run is queued or in flight and the run status sensor ``sensor`` has read every
        successful run's end, twice in a row (so every run it asks for has been launched and has run);
        returns when the last run ended (epoch seconds)."""
        query = """{ active: runsOrError(filter: {statuses: %s}) { ... on Runs { results { runId } } }
            finished: runsOrError(filter: {statuses: [SUCCESS]}, limit: 100) { ... on Runs { results { endTime } } }
            sensorOrError(sensorSelector: {repositoryLocationName: "%s", repositoryName: "__repository__",
                                           sensorName: "%s"}) { __typename
                ... on Sensor { sensorState { typeSpecificData { ... on SensorData { lastCursor } } } } } }""" % (
            ACTIVE_STATUSES, self.location, sensor)
        deadline = time.monotonic() + timeout
        quiet = 0
        while time.monotonic() < deadline:
            data = self.graphql(query)
            if data["sensorOrError"]["__typename"] != "Sensor":
                raise self.fail(f"no sensor {sensor!r} in location {self.location!r}: {data['sensorOrError']}")
            ends = [r["endTime"] or 0 for r in data["finished"]["results"]]
            cursor = (data["sensorOrError"]["sensorState"]["typeSpecificData"] or {}).get("lastCursor")
            quiet = quiet + 1 if not data["active"]["results"] and sensor_caught_up(cursor, ends) else 0
            if quiet == 2:
                return max(ends, default=0)
            time.sleep(QUIET_POLL_S)
        raise self.fail(f"runs still active, or sensor {sensor!r} has not read every run's end, "
                        f"after {timeout:.0f} s")

    def backfill_state(self, backfill_id: str) -> Backfill:
        """The backfill as the daemon has it now: its status and the runs it has launched so far."""
        query = """query($id: String!) { partitionBackfillOrError(backfillId: $id) { __typename
            ... on PartitionBackfill { status partitionNames error { message }
                runs { runId status startTime endTime assetSelection { path } tags { key value } } }
            ... on PythonError { message } } }"""
        state = self.graphql(query, {"id": backfill_id})["partitionBackfillOrError"]
        if state["__typename"] != "PartitionBackfill":
            raise self.fail(f"backfill {backfill_id}: {state}")
        return Backfill(backfill_id, state["status"], state["runs"], state["partitionNames"] or [])

    def wait_for_backfill(self, backfill_id: str, timeout: float = BACKFILL_TIMEOUT_S) -> Backfill:
        deadline = time.monotonic() + timeout
        state = None
        while time.monotonic() < deadline:
            state = self.backfill_state(backfill_id)
            if state.status in BACKFILL_DONE:
                return state
            time.sleep(POLL_S)
        raise self.fail(f"backfill {backfill_id} not finished within {timeout:.0f} s (last seen: {state})")

    def wait_for_backfill_run(self, backfill_id: str, picks: Callable[[dict], bool],
                              timeout: float = BACKFILL_TIMEOUT_S) -> dict:
        """The first run of the backfill that ``picks`` chooses, once it has succeeded (while the backfill
        goes on to its next runs): what a test needs before it launches work that reads that run's output.
        Fails at once if the run fails or the backfill ends without it."""
        deadline = time.monotonic() + timeout
        state = None
        while time.monotonic() < deadline:
            state = self.backfill_state(backfill_id)
            for run in filter(picks, state.runs):
                if run["status"] == "SUCCESS":
                    return run
                if run["status"] in RUN_FAILED:
                    raise self.fail(f"backfill {backfill_id}: run {run['runId']} ended {run['status']}")
            if state.status in BACKFILL_DONE:
                raise self.fail(f"backfill {backfill_id} ended {state.status} without the run waited for")
            time.sleep(POLL_S)
        raise self.fail(f"backfill {backfill_id}: the run waited for did not succeed within {timeout:.0f} s "
                        f"(last seen: {state})")
