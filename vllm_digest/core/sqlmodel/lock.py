"""The warehouse lock: one writer or any number of readers at a time, across processes, released by the
kernel the moment its holder dies.

DuckDB lets one process write a file, or several open it read-only, never both; this lock says so before
DuckDB is asked, so a step waits here (and says for whom) instead of failing or spinning on DuckDB's own
lock. It is an ``flock`` on ``<warehouse>.lock``: a holder killed with SIGKILL, or dying of anything else,
loses it with its file descriptor, so no crash can leave the warehouse locked (a Dagster pool slot, which
this replaces, stayed taken by a run killed with -9 and blocked every later run for good).

Each holder leaves a small record (run, step, pid, mode, since) in ``<warehouse>.lock.d/`` while it
holds the lock, removed before it lets go. A waiter reads them to say who it waits for; a record whose
holder no longer holds the lock is proof that the holder died holding it, and the process that takes the
lock next reports it (see ``take_over``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import errno
import fcntl
import json
import os
import time
import uuid
from pathlib import Path
from typing import Callable, Iterator

# short sleeps between tries: a signal (SIGTERM, Dagster's terminate) interrupts a sleep at once
POLL_SECONDS = 0.2


class WarehouseBusy(TimeoutError):
    """The lock stayed held past the configured wait."""


@dataclasses.dataclass(frozen=True)
class Holder:
    """Who holds (or held) the lock: written by the holder into its record."""

    pid: int
    mode: str                     # "write" or "read"
    since: str                    # UTC, ISO 8601
    run_id: str | None = None
    step: str | None = None
    run_pid: int | None = None    # the run worker's pid when the step runs inside it (in-process executor)

    def describe(self) -> str:
        who = f"run {self.run_id} step {self.step}" if self.run_id else "a process outside any run"
        return f"{who} (pid {self.pid}, {'writing' if self.mode == 'write' else 'reading'} since {self.since})"


def lock_path(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + ".lock")


def records_dir(warehouse: Path) -> Path:
    return warehouse.with_name(warehouse.name + ".lock.d")


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


def read_records(warehouse: Path) -> dict[Path, Holder]:
    """Every holder record present; one that cannot be read (being written, or damaged) is skipped."""
    out = {}
    folder = records_dir(warehouse)
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.json")):
        try:
            out[path] = Holder(**json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            continue
    return out


def waiting_message(warehouse: Path, mode: str, waited: float) -> str:
    live = [h for h in read_records(warehouse).values() if pid_alive(h.pid)]
    held_by = "; ".join(h.describe() for h in live) or "a process that left no record (not a pipeline step)"
    return (f"waiting {waited:.0f} s to {'write' if mode == 'write' else 'read'} the warehouse "
            f"{str(warehouse)!r}, held by {held_by}")


@contextlib.contextmanager
def hold(
    warehouse: Path,
    mode: str,
    me: Holder,
    *,
    wait_seconds: float | None,
    report_every: float,
    report: Callable[[str], None],
    took_over: Callable[[Holder], None] = lambda holder: None,
) -> Iterator[None]:
    """Hold the warehouse lock (``mode`` "write": alone; "read": beside other readers) for the block.

    Waits in short sleeps while it is held elsewhere, calling ``report`` with who holds it when the wait
    starts and every ``report_every`` seconds after; gives up with ``WarehouseBusy`` after ``wait_seconds``
    (None: as long as it takes; the holder is alive, since a dead one has lost the lock). ``took_over``
    is called with each holder whose record shows it died holding the lock.
    """
    path = lock_path(warehouse)
    path.parent.mkdir(parents=True, exist_ok=True)
    # not inherited by an exec'd child (git, a helper): a child must not keep the lock after we let go
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    record = None
    try:
        _acquire(fd, warehouse, mode, wait_seconds, report_every, report)
        take_over(warehouse, mode, me.pid, took_over)
        record = _write_record(warehouse, dataclasses.replace(me, mode=mode))
        yield
    finally:
        # the record goes first: one seen without the lock held means its holder died
        if record is not None:
            record.unlink(missing_ok=True)
        os.close(fd)  # releases the lock


def _acquire(fd: int, warehouse: Path, mode: str, wait_seconds: float | None, report_every: float,
             report: Callable[[str], None]) -> None:
    flag = (fcntl.LOCK_EX if mode == "write" else fcntl.LOCK_SH) | fcntl.LOCK_NB
    start = time.monotonic()
    next_report = start
    while True:
        try:
            fcntl.flock(fd, flag)
            return
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
        now = time.monotonic()
        if wait_seconds is not None and now - start >= wait_seconds:
            raise WarehouseBusy(
                waiting_message(warehouse, mode, now - start)
                + f": gave up after the configured {wait_seconds:g} s (lock_wait_seconds)"
            )
        if now >= next_report:
            report(waiting_message(warehouse, mode, now - start))
            next_report = now + report_every
        time.sleep(POLL_SECONDS)


def take_over(warehouse: Path, mode: str, my_pid: int, took_over: Callable[[Holder], None]) -> None:
    """Clear the records of holders that no longer hold the lock, passing each to ``took_over``.

    Called with the lock held: holding it to write, every record is stale (nobody else can hold it);
    holding it to read, a writer's record is stale, and so is a reader's whose process is gone."""
    for path, holder in read_records(warehouse).items():
        if holder.pid == my_pid and holder.mode == "read" and mode == "read":
            continue  # another connection of this process
        stale = mode == "write" or holder.mode == "write" or not pid_alive(holder.pid)
        if stale:
            path.unlink(missing_ok=True)
            took_over(holder)


def _write_record(warehouse: Path, me: Holder) -> Path:
    folder = records_dir(warehouse)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{me.pid}-{uuid.uuid4().hex[:12]}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(dataclasses.asdict(me)), encoding="utf-8")
    os.replace(tmp, path)  # a reader sees a whole record or none
    return path


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
