"""A throwaway local PostgreSQL server: initdb + pg_ctl in a temp dir, on a free port of 127.0.0.1.

Used by tests/e2e/test_postgres_instance.py and by the bench's PostgreSQL figures. The server refuses to
run as root, so as root it runs as the unprivileged `postgres` system user (or `nobody`) in a temp
dir that user owns (under /tmp: root's pytest dirs are 0700, closed to that user).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

from vllm_digest.testing.net import free_port


USER = "dagster"  # the superuser initdb creates; trust auth on 127.0.0.1 only
DB = "postgres"


class PostgresUnavailable(RuntimeError):
    """Why no server can be started here (binaries or an unprivileged user missing)."""


def pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    return found[-1] if found else shutil.which(name)


def _server_user() -> str | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise PostgresUnavailable("running as root and no unprivileged user (postgres, nobody) to run PostgreSQL as")


@contextlib.contextmanager
def local_postgres(**server_settings: str) -> Iterator[int]:
    """Start a server (``server_settings``: extra ``-c name=value``), yield its port, stop it and delete its files."""
    initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        raise PostgresUnavailable("PostgreSQL server binaries (initdb, pg_ctl) not found under "
                                  "/usr/lib/postgresql/*/bin or on PATH: apt-get install postgresql")
    user = _server_user()
    if user and not shutil.which("runuser"):
        raise PostgresUnavailable("running as root without runuser to start PostgreSQL as an unprivileged user")
    base = Path(tempfile.mkdtemp(prefix="vllm-digest-pg-"))
    data = base / "data"
    data.mkdir()
    prefix = ["runuser", "-u", user, "--"] if user else []
    if user:
        for path in (base, data):
            shutil.chown(path, user)
    port = free_port()
    started = False
    try:
        try:
            subprocess.run([*prefix, initdb, "-D", str(data), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync"],
                           check=True, capture_output=True, text=True)
            subprocess.run([*prefix, pg_ctl, "-D", str(data), "-w", "-t", "60", "-l", str(base / "server.log"),
                            "-o", " ".join([f"-p {port} -k {base} -c listen_addresses=127.0.0.1",
                                            *(f"-c {k}={v}" for k, v in server_settings.items())]), "start"],
                           check=True, capture_output=True, text=True)
        except subprocess.CalledProcessError as exc:
            log = (base / "server.log").read_text(errors="replace") if (base / "server.log").exists() else ""
            raise RuntimeError(f"{exc.cmd[len(prefix)]} failed: {exc.stderr}\n{log[-2000:]}") from exc
        started = True
        yield port
    finally:
        if started:
            subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def instance_home(home: Path, port: int, example: Path) -> dict[str, str]:
    """Write ``example`` (dagster.postgres.yaml) as ``home``/dagster.yaml pointing at ``port``;
    returns the DAGSTER_PG_* environment it reads."""
    text = example.read_text(encoding="utf-8")
    if "port: 5432" not in text:
        raise ValueError(f"{str(example)!r} no longer names port 5432; update vllm_digest/testing/postgres_server.py")
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").write_text(text.replace("port: 5432", f"port: {port}"), encoding="utf-8")
    return {"DAGSTER_PG_HOST": "127.0.0.1", "DAGSTER_PG_USER": USER, "DAGSTER_PG_PASSWORD": "", "DAGSTER_PG_DB": DB}
