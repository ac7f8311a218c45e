"""Create the Dagster instance's storages once, in one process, before any command uses them.

Dagster creates a SQLite instance's storages (``history/runs.db``, ``history/runs/index.db``,
``schedules/schedules.db``) the first time a process opens ``$DAGSTER_HOME``, with no lock: of two processes
that open a fresh home at once, one can find the tables the other has just made but not yet stamped, and
stamp an older revision beside the other's head. The version table then holds two heads, and every later
command fails with "Version table 'alembic_version' has more than one head present". ``make instance`` (which
``make dev`` and ``make demo`` run) and the demo open the instance here: under an OS file lock in
``$DAGSTER_HOME`` (released with its process, even a killed one), so the storages are created and stamped by
one process, and each storage's revision is read back, so a home already broken that way is named with what
to do instead of failing on every later run."""

from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path

import dagster as dg

LOCK_FILE = ".vllm_digest_instance.lock"


class InstanceSetupError(RuntimeError):
    """The instance's storages cannot be used as they are."""


def storage_revisions(instance: dg.DagsterInstance) -> dict[str, str | None]:
    """Each storage's schema revision, as Dagster reads it (an error for a storage it cannot read)."""
    storages = {"run": instance.run_storage, "event log": instance.event_log_storage,
                "schedule": instance.schedule_storage}
    return {name: (found[0] if (found := storage.alembic_version()) else None) if storage is not None else None
            for name, storage in storages.items()}


def prepared_instance() -> dg.DagsterInstance:
    """``DagsterInstance.get()`` (the home ``$DAGSTER_HOME`` names), its storages created, stamped and checked
    by one process at a time."""
    home = os.environ.get("DAGSTER_HOME", "")
    if not (os.path.isabs(home) and os.path.isdir(home)):
        raise InstanceSetupError(f"DAGSTER_HOME {home!r}: Dagster needs it to be the absolute path of an existing "
                                 f"folder (`make instance` creates .dagster_home/ and sets it)")
    with open(Path(home) / LOCK_FILE, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            instance = dg.DagsterInstance.get()
            storage_revisions(instance)
        except Exception as exc:  # alembic's CommandError, SQLAlchemy's on a damaged file, a bad dagster.yaml
            raise InstanceSetupError(
                f"DAGSTER_HOME {home}: the instance cannot be opened: {type(exc).__name__}: {exc}. A home opened by "
                f"two commands at once before its first setup can hold two schema heads (\"more than one head "
                f"present\"), which this setup does not repair: move its history/ and schedules/ folders away "
                f"(they hold the run history) and run `make instance` again") from None
    return instance


def main() -> int:
    try:
        instance = prepared_instance()
    except InstanceSetupError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"Dagster instance ready: {instance.root_directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
