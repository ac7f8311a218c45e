"""A DuckDB resource of our own: every connection is closed, readers can open
read-only, a busy file lock is retried for a while instead of failing, and a missing
file is created whole by us, never by DuckDB (see ``_create_whole``)."""

from __future__ import annotations

import contextlib
import os
import random
import time
import uuid
from pathlib import Path
from typing import Iterator

import dagster as dg
import duckdb
from pydantic import Field

from vllm_digest.warehouse.sql_files import schema_statements

_LOCK_ERRORS = ("Could not set lock", "Conflicting lock", "database is locked")
# the pool every step that writes (or reads) the warehouse declares: DuckDB allows one writer per file,
# and dagster.yaml lets one step of the pool run at a time
WAREHOUSE_POOL = "duckdb_warehouse"


class WarehouseResource(dg.ConfigurableResource):
    # Dagster shows the docstring verbatim as the resource's description: plain text, one line
    """The DuckDB file every warehouse asset reads and writes; the report and the checks open it read-only."""

    path: str = Field(description="the warehouse file, warehouse.duckdb under the data home")
    lock_timeout_seconds: float = Field(
        default=120.0, description="how long to retry while another process holds the file's write lock"
    )

    @contextlib.contextmanager
    def connect(self, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
        con = self._open(read_only)
        try:
            yield con
        finally:
            con.close()

    def _open(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        path = Path(self.path)
        if not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                _create_whole(path)
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
                for ddl in schema_statements():
                    con.execute(ddl)
        except BaseException:
            con.close()
            raise
        return con


def _create_whole(path: Path) -> None:
    """Create the warehouse file with its schema under a temporary name and link it into place.

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
            for ddl in schema_statements():
                con.execute(ddl)
        finally:
            con.close()  # checkpoints: the file is whole, and its WAL is gone
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process created it first: use theirs
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            leftover.unlink(missing_ok=True)
