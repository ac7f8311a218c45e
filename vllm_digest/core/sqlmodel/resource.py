"""A DuckDB resource of our own: every connection is closed, readers can open
read-only, each connection holds the file's lock (``lock.py``: one writer or many
readers, freed by the kernel when its holder dies) for as long as it is open, a busy
DuckDB file lock (a process outside the pipeline) is retried for a while instead of
failing, and a missing file is created whole by us, never by DuckDB (see ``_create_whole``).

Two files are opened this way (``DuckDBFileResource``): the warehouse (``WarehouseResource``, rebuildable
from raw/) and the state store (``state.py``: what must outlive a rebuild of it)."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import multiprocessing
import os
import random
import threading
import time
import uuid
from pathlib import Path
from typing import ClassVar, Iterator

import dagster as dg
import duckdb
from pydantic import Field

from vllm_digest.core.sqlmodel import lock
from vllm_digest.core.sqlmodel.files import WAREHOUSE, schema_statements
from vllm_digest.core.sqlmodel.migrate import add_missing_columns, apply_migrations, mark_migrated


_LOCK_ERRORS = ("Could not set lock", "Conflicting lock", "database is locked")


class DuckDBFileResource(dg.ConfigurableResource):
    """One DuckDB file of ours, opened under its lock (the warehouse's or the state store's)."""

    # which schema files' tables the file holds (files.schema_store); only the warehouse has numbered migrations
    STORE: ClassVar[str] = WAREHOUSE
    # whether a read-only connection creates a missing file (else it is an error: nothing was built yet)
    CREATE_WHEN_READ: ClassVar[bool] = False

    path: str = Field(description="the DuckDB file")
    lock_timeout_seconds: float = Field(
        default=120.0,
        description="how long to retry while a process outside the pipeline holds DuckDB's own file lock",
    )
    lock_wait_seconds: float = Field(
        default=6 * 3600.0,
        description="how long a step waits for the warehouse lock held by a live step before it fails "
                    "(a dead holder loses the lock at once)",
    )
    lock_report_seconds: float = Field(
        default=30.0, description="how often a waiting step logs who holds the warehouse lock"
    )

    @contextlib.contextmanager
    def connect(self, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
        """A connection holding the warehouse lock until it is closed: writable alone, read-only beside
        other readers."""
        with self._locked("read" if read_only else "write"):
            con = self._open(read_only)
            try:
                yield con
            finally:
                con.close()

    @contextlib.contextmanager
    def hold_lock(self, read_only: bool = False) -> Iterator[None]:
        """The file's lock, held for the block without opening the file (a reader of it by other means)."""
        with self._locked("read" if read_only else "write"):
            yield

    @contextlib.contextmanager
    def _locked(self, mode: str) -> Iterator[None]:
        path = Path(os.path.abspath(self.path))
        hold = _join(path, mode, self.path)
        if hold is None:
            # one thread at a time takes the lock for a path: a second thread arriving meanwhile then joins
            # it instead of taking a second flock beside it (or waiting for its own process)
            with _acquiring(path):
                hold = _join(path, mode, self.path) or self._take(path, mode)
        try:
            yield
        finally:
            _release(path, hold)

    def _take(self, path: Path, mode: str) -> _Hold:
        """Take the warehouse lock (waiting for other processes) and record it as held by this process."""
        step = _step_context()
        log = step.log if step is not None else None
        me = lock.Holder(
            pid=os.getpid(), mode=mode, since=lock.now_iso(),
            run_id=step.run_id if step is not None else None,
            step=_step_key(step),
            # a step of the in-process executor runs in the run worker itself: its death is the run's
            run_pid=os.getpid() if multiprocessing.parent_process() is None else None,
        )

        def report(message: str) -> None:
            (log.info if log is not None else _log_outside_step)(message)

        def took_over(dead: lock.Holder) -> None:
            message = f"took the warehouse lock over from {dead.describe()}, which died holding it"
            (log.warning if log is not None else _log_outside_step)(message)
            if step is not None:
                _fail_dead_run(step.instance, dead, log)

        # entered here, left by whichever connection (of any thread) closes last: see _release
        stack = contextlib.ExitStack()
        stack.enter_context(lock.hold(path, mode, me, wait_seconds=self.lock_wait_seconds,
                                      report_every=self.lock_report_seconds, report=report, took_over=took_over))
        hold = _Hold(mode=mode, count=1, stack=stack)
        with _held_lock:
            _held[path] = hold
        return hold

    def _fill_new(self, con: duckdb.DuckDBPyConnection) -> None:
        """Add to a file being created (its schema made, not yet in place) what it starts with: nothing here."""

    def _created(self) -> None:
        """Called once this process has put a new file in place."""

    def _open(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        path = Path(self.path)
        if not path.exists() and (not read_only or self.CREATE_WHEN_READ):
            path.parent.mkdir(parents=True, exist_ok=True)
            if _create_whole(path, self.STORE, self._fill_new):
                self._created()
        elif not path.exists():
            raise FileNotFoundError(
                f"warehouse {self.path!r} does not exist yet: materialize the warehouse assets first"
            )
        deadline = time.monotonic() + self.lock_timeout_seconds
        delay = 0.05
        while True:
            try:
                con = duckdb.connect(self.path, read_only=read_only)
                break
            except duckdb.IOException as exc:
                if not any(s in str(exc) for s in _LOCK_ERRORS) or time.monotonic() > deadline:
                    raise
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 2.0)
        try:
            con.execute("SET TimeZone = 'UTC'")
            if not read_only:
                # an older file is brought up to the declared schema (migrate.py says in which order)
                if self.STORE == WAREHOUSE:
                    for name in apply_migrations(con, self.path):
                        say(f"warehouse {self.path!r}: applied migration {name}")
                # the columns first: a schema file's view may read a column an older table lacks
                add_missing_columns(con)
                for ddl in schema_statements(self.STORE):
                    con.execute(ddl)
        except BaseException:
            con.close()
            raise
        return con


class WarehouseResource(DuckDBFileResource):
    # Dagster shows the docstring verbatim as the resource's description: plain text, one line
    """The DuckDB file every warehouse asset reads and writes; the report and the checks open it read-only."""

    path: str = Field(description="the warehouse file, warehouse.duckdb under the data home")

    def _created(self) -> None:
        with _held_lock:
            _created_here.add(Path(os.path.abspath(self.path)))

    def take_created(self) -> bool:
        """Whether this process created the warehouse file since the last call: the step that did says so
        (a warehouse made anew beside landed days holds none of them until they are materialized again)."""
        path = Path(os.path.abspath(self.path))
        with _held_lock:
            created = path in _created_here
            _created_here.discard(path)
        return created


# the warehouse files this process created and no step has reported yet (WarehouseResource.take_created)
_created_here: set[Path] = set()


@dataclasses.dataclass
class _Hold:
    """The warehouse lock this process holds for one file, shared by all its open connections (any thread's)."""

    mode: str                     # "write" or "read"
    count: int                    # open connections; the lock is let go when the last one closes
    stack: contextlib.ExitStack   # the entered lock.hold: closing it removes our record and frees the flock


# the warehouse locks this process holds: path -> its hold; a nested connection joins it
_held: dict[Path, _Hold] = {}
_held_lock = threading.Lock()
# per path: taken while a thread waits for the flock, so that a second thread joins instead of taking another
_acquiring_locks: dict[Path, threading.Lock] = {}


def _acquiring(path: Path) -> threading.Lock:
    with _held_lock:
        return _acquiring_locks.setdefault(path, threading.Lock())


def _join(path: Path, mode: str, shown: str) -> _Hold | None:
    """Count one more connection into the lock this process already holds for ``path``, or None if it holds none.

    DuckDB shares one database per process and orders its transactions itself, so a second connection
    needs no lock of its own (flock would make us wait for ourselves). It must have the same mode,
    except a writer may nest a writer: DuckDB refuses to open a file read-only and writable at once in
    one process, and a read-only connection handed out as a cursor of the writable one could write."""
    with _held_lock:
        hold = _held.get(path)
        if hold is None:
            return None
        if hold.mode != mode:
            asked, has = ("writable", "read-only") if mode == "write" else ("read-only", "writable")
            raise RuntimeError(
                f"a {asked} connection to the warehouse {shown!r} was asked for while this process has it open "
                f"{has}: close the {has} connection first"
                + ("" if mode == "write" else ", or read through the writable one")
            )
        hold.count += 1
        return hold


def _release(path: Path, hold: _Hold) -> None:
    """One connection of ``hold`` closed: let the lock go when it was the last one, whichever thread it was."""
    with _held_lock:
        hold.count -= 1
        if hold.count > 0:
            return
        if _held.get(path) is hold:
            del _held[path]
        # still under _held_lock: no thread can join this hold, or take a new flock beside it, until it is gone
        hold.stack.close()


def say(message: str) -> None:
    """A one-off message of opening the warehouse: the step's log inside a step, a warning outside."""
    step = _step_context()
    (step.log.warning if step is not None else _log_outside_step)(message)


def _log_outside_step(message: str) -> None:
    # outside a step (a script): a warning, so that Python's default handler shows it
    logging.getLogger(__name__).warning(message)


def _step_context():
    """The running step's context, or None outside a Dagster step (a script, a test)."""
    try:
        return dg.OpExecutionContext.get()
    except Exception:  # noqa: BLE001 - no step is running
        return None


def _step_key(step) -> str | None:
    if step is None:
        return None
    try:
        return step.get_step_execution_context().step.key
    except Exception:  # noqa: BLE001 - the name is for the log only
        return step.op_def.name


def _fail_dead_run(instance, dead: lock.Holder, log) -> None:
    """Mark the run of a holder that died holding the lock failed, when that holder was the run worker
    itself (the in-process executor) and the run still shows as in progress: nothing else will (the
    default run launcher cannot tell Dagster's run monitoring that its worker died)."""
    if dead.run_id is None or dead.run_pid is None or lock.pid_alive(dead.run_pid):
        return
    run = instance.get_run_by_id(dead.run_id)
    if run is None or run.status not in (dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.STARTING):
        return
    instance.report_run_failed(
        run, f"the run's worker (pid {dead.run_pid}) died while its step {dead.step} held the warehouse lock "
             f"(since {dead.since}); marked failed by a later step that took the lock over",
    )
    log.warning(f"marked run {dead.run_id} failed: its worker died holding the warehouse lock")


def _create_whole(path: Path, store: str = WAREHOUSE, fill=None) -> bool:
    """Create the file with its schema (``store``'s) under a temporary name, let ``fill`` add its first rows,
    and link it into place; True when this process's file is the one in place.

    DuckDB must never be the one to create the shared file: it decides "new database" from a stat()
    and only later opens, locks and writes a fresh header and an empty catalog. A process that saw the
    file missing, then waited (a busy machine) while another process created it and committed a
    step, would then overwrite those commits with an empty database. Linking a finished file is
    atomic and refuses an existing name, so whichever process links first wins and every DuckDB open
    finds an existing warehouse.
    """
    tmp = path.with_name(f".{path.name}.new-{uuid.uuid4().hex}")
    try:
        con = duckdb.connect(str(tmp))
        try:
            for ddl in schema_statements(store):
                con.execute(ddl)
            if store == WAREHOUSE:
                mark_migrated(con)  # created as declared: no migration has anything to do
            if fill is not None:
                fill(con)
        finally:
            con.close()  # checkpoints: the file is whole, and its WAL is gone
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False  # another process created it first: use theirs
        return True
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            leftover.unlink(missing_ok=True)
