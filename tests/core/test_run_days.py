"""One way to pass a run's days to SQL: the run_days temporary table (core/sqlmodel/run_days.py)."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from vllm_digest.core.sqlmodel.files import PACKAGE, sql_files
from vllm_digest.core.sqlmodel.run_days import load_run_days, repo_days

ROOT = PACKAGE.parent
# parameters that passed the days (or their windows, span or weeks) beside run_days; the report's $wanted_days
# are item keys (day, number), not the run's days
_DAY_LISTS = re.compile(r"\$(days|window_starts|window_ends|first|last|weeks)\b|unnest\(CAST\(\$(?!wanted_)\w+ AS DATE\[\]\)\)")


def test_no_statement_takes_the_run_days_as_a_parameter():
    """Every SQL model, and every statement written in the package's or the tools' Python, reads the run's days
    from run_days; a $days list (or $first/$last/$weeks) beside it would be a second way."""
    offenders = []
    for path in [*sql_files().values(), *PACKAGE.rglob("*.py"), *(ROOT / "tools").rglob("*.py")]:
        for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
            if _DAY_LISTS.search(line) and "run_days" not in Path(path).name:
                offenders.append(f"{Path(path).relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_run_days_loads_on_a_read_only_connection(tmp_path):
    """The report, the weekly digest and the checks read through read-only connections: run_days is TEMP, so it
    loads there, and only that connection sees it."""
    path = tmp_path / "w.duckdb"
    duckdb.connect(str(path)).close()
    reader, other = duckdb.connect(str(path), read_only=True), duckdb.connect(str(path), read_only=True)
    try:
        load_run_days(reader, repo_days("o/r", ["2026-03-22", "2026-03-20"]))
        assert reader.execute("SELECT repo, CAST(day AS VARCHAR) FROM run_days ORDER BY day").fetchall() == [
            ("o/r", "2026-03-20"), ("o/r", "2026-03-22")]
        load_run_days(reader, [])  # an empty run replaces the days, it does not keep the last ones
        assert reader.execute("SELECT count(*) FROM run_days").fetchone()[0] == 0
        assert other.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'run_days'").fetchone()[0] == 0
    finally:
        reader.close()
        other.close()
